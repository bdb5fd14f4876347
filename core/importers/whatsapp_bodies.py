"""What one WhatsApp message is: its body read as text, a placeholder for media, an attached file,
a poll, or one of WhatsApp's own notices (shared/EXPORT_FORMATS.md §1.4, §1.5), built into a
Message once its lines are gathered.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from core.importers.base import ImportContext
from core.importers.media import poll_text
from core.importers.whatsapp_notices import DROPPED, MEDIA, SYSTEM, notice_table
from core.types import Message

if TYPE_CHECKING:
    from core.importers.whatsapp import ChatScan

# --- bodies: placeholders, media, system lines (§1.4, §1.5) -----------------------------------

# an attached file named in the body: Android "IMG-….jpg (file attached)", iOS "<attached: …>"
_ANDROID_FILE = re.compile(r"^(?P<file>[^\s<>][^<>]*?\.\w{2,5}) \([^()]{3,40}\)$")
_IOS_ATTACHED = re.compile(r"< ?[^<>:：]{2,20}[:：] ?(?P<file>[^<>]+?\.\w{2,5}) ?>\s*$")
# Android "<Media omitted>" in any language: one short phrase in angle brackets
_MEDIA_OMITTED = re.compile(r"^<[^<>\d]{3,40}>$")
# view-once media is written as "null"; an edit as "This message was edited" on its own
_UNREADABLE = {"null", "This message was edited"}
_SYSTEM_WITH_AUTHOR = re.compile(
    r"end-to-end encrypted|disappearing messages|security code .*changed|changed their phone number"
    r"|^Missed (?:group )?(?:voice|video) call|^(?:Voice|Video) call|^You (?:blocked|unblocked)"
    r"|created (?:this )?group|^You were added|pinned a message", re.I,
)
# a word every _SYSTEM_WITH_AUTHOR alternative contains
_SYSTEM_WORDS = ("encrypted", "disappearing", "security code", "phone number", " call", "blocked",
                 "created", "you were added", "pinned")
_EDITED = " <This message was edited>"
_SHORT = 80  # placeholders and notices are shorter than this
QUOTES = set("\"“”«»„")

_FILE_KINDS = (
    (re.compile(r"^PTT-|-AUDIO-.*\.opus$|\.(?:opus|ogg)$", re.I), "voice note"),
    (re.compile(r"^AUD-|-AUDIO-|\.(?:mp3|m4a|aac|wav)$", re.I), "audio"),
    (re.compile(r"^STK-|-STICKER-|\.webp$", re.I), "sticker"),
    (re.compile(r"^IMG-|-PHOTO-|\.(?:jpe?g|png|heic|gif)$", re.I), "photo"),
    (re.compile(r"^VID-|-VIDEO-|-GIF-|\.(?:mp4|mov|3gp)$", re.I), "video"),
    (re.compile(r"\.vcf$", re.I), "contact card"),
)


def file_kind(name: str) -> str:
    for pattern, kind in _FILE_KINDS:
        if pattern.search(name):
            return kind
    return "document"


def looks_like_media(body: str) -> bool:
    return bool(_ANDROID_FILE.match(body) or _IOS_ATTACHED.search(body) or _MEDIA_OMITTED.match(body))


def is_system_text(text: str) -> bool:
    """WhatsApp's own notices are one short line; a long message that mentions "pinned a
    message" is someone's words (and checking only short lines keeps the scan cheap)."""
    if len(text) >= _SHORT * 2:
        return False
    lower = text.lower()
    # a plain-substring screen first: the case-insensitive regex was a third of the parse time
    return any(word in lower for word in _SYSTEM_WORDS) and bool(_SYSTEM_WITH_AUTHOR.search(text))


# A poll, as Android and iOS export it: a head word ("POLL:"), the question, one "OPTION: text
# (N votes)" line per option. Android writes these words in English; iOS in the phone's language
# ("ENCUESTA:" / "OPCIÓN: Zzz (4 votos)", "UMFRAGE:" / "OPTION: Deegner (1 Stimme)"), as capitals
# on lines it marks as its own
_POLL_HEAD = "POLL:"
_CAPITAL_HEAD = re.compile(r"^(?P<word>[^\W\d_]{3,20}):$")
_POLL_OPTION = re.compile(r"^(?P<word>[^\W\d_]{3,20}): ?(?P<option>.*?)(?: \(\d+ [^\W\d_]{1,12}\))?$")


def _is_poll_head(first: str, *, marked: bool) -> bool:
    head = first.strip()
    if head == _POLL_HEAD:
        return True
    match = _CAPITAL_HEAD.match(head) if marked else None
    return bool(match and match["word"].isupper())


def poll_block(first: str, rest: str, *, marked: bool = False) -> str | None:
    """A poll message as its question and options (votes left out), or None for other text.
    `marked`: WhatsApp marked the body as its own, so a head in another language is a poll's."""
    if not _is_poll_head(first, marked=marked):
        return None
    question: list[str] = []
    options: list[str] = []
    option_word: str | None = None  # "OPTION", "OPCIÓN": the first capital word before ": "
    for line in filter(None, (line.strip() for line in rest.split("\n"))):
        option = _POLL_OPTION.match(line)
        if option and option["word"].isupper() and option_word in (None, option["word"]):
            option_word = option["word"]
            options.append(option["option"])
        elif options:
            options[-1] += f" {line}"  # an option written over two lines
        else:
            question.append(line)
    return poll_text(" ".join(question), options) if question or options else None


# what iOS writes for something the sender shared: a location or a group's invite link
# ("Standort: https://maps.google.com/?q=…"), an old placeholder of one word ("image")
_SHARED = re.compile(r"https?://|^\S+$")


def _sent_by_author(body: str) -> bool:
    """Of the bodies iOS writes itself, those that stand for what the sender shared; the others
    (group events, calls, number changes) are notices about the chat, in any language."""
    return bool(_SHARED.search(body))


def phone_id(author: str) -> str | None:
    compact = re.sub(r"[\s\-()\u2011]", "", author)
    return compact if re.fullmatch(r"\+?\d{6,15}", compact) else None


@dataclass
class Pending:
    time: datetime
    author: str | None
    lrm: bool
    lines: list[str]
    own_text: bool = False  # iOS wrote the body itself (whatsapp._opens_with_lrm)


MediaHook = Callable[[str, str], str | None]  # (file name, kind) -> extra text (transcript...)


class MessageBuilder:
    """One message from its gathered lines: the sender's words, a media placeholder, a poll, or
    a notice (kept as a system line, or left out and counted)."""

    def __init__(self, scan: ChatScan, context: ImportContext, chat_title: str,
                 media_hook: MediaHook | None, skipped: Counter[str]) -> None:
        self.scan = scan
        self.context = context
        # iOS writes its notices under the chat's own name: the one the file gives, or the one
        # the export's first notice was written under, when they differ
        self.chat_titles = {chat_title, scan.chat_title} - {None}
        self.media_hook = media_hook
        self.skipped = skipped  # what is left out, by reason, for the import's summary
        self.notices = notice_table()

    def build(self, pending: Pending) -> Message | None:
        body = "\n".join(pending.lines).strip()
        author = pending.author
        if author is not None and not self.scan.is_author(author):
            body, author = f"{author}: {body}", None
        first, _, rest = body.partition("\n")
        # WhatsApp's own notices, in any language, are treated as their English counterparts
        marked = author is None or pending.lrm or author in self.chat_titles
        notice = self.notices.kind(first, marked=marked)
        if notice is None and author is None and len(first) > _SHORT and "WhatsApp" in first:
            notice = "encryption notice"  # a newer wording of it, in any language
        if notice in DROPPED:
            self.skipped[DROPPED[notice]] += 1  # no one's words: left out, and counted
            return None
        if notice in SYSTEM:
            # name the person (a missed call from Teo), not the chat that iOS writes as author
            return Message(sender="", text=SYSTEM[notice] + (f" ({author})" if author else ""),
                           time=pending.time, kind="system")
        if author is None:
            return Message(sender="", text=body, time=pending.time, kind="system")
        if notice in MEDIA:
            label = MEDIA[notice]
            if notice == "document omitted" and (name := self.notices.document_name(first)):
                label = f"[document omitted: {name}]"
            text = f"{label} {rest.strip()}".strip()  # a caption stays
            return self._message(author, text, pending.time, kind="media")
        if body in _UNREADABLE:
            self.skipped["unreadable messages"] += 1  # view-once media, edit stubs
            return None
        poll = poll_block(first, rest, marked=pending.own_text)
        if poll is not None:
            return self._message(author, poll, pending.time, kind="text")
        media = self._media(first, rest)
        if media is not None:
            text, attachments = media
            return self._message(author, text, pending.time, kind="media", attachments=attachments)
        if (is_system_text(first) or (pending.lrm and author in self.chat_titles)
                or (pending.own_text and not _sent_by_author(body))):
            # the same text whatever else the export holds, so re-imports dedup
            return Message(sender="", text=f"{body} ({author})", time=pending.time, kind="system")
        if body.endswith(_EDITED):
            body = body[: -len(_EDITED)]
        return self._message(author, body, pending.time, kind="text")

    def _media(self, first: str, rest: str) -> tuple[str, tuple[str, ...]] | None:
        caption = rest.strip()
        attached = _ANDROID_FILE.match(first) or (first.endswith(">") and _IOS_ATTACHED.search(first))
        if attached:
            name = attached["file"].strip()
            kind = file_kind(name)
            extra = self.media_hook(name, kind) if self.media_hook else None
            label = f"[{kind}]" if kind != "document" else f"[document: {name}]"
            text = " ".join(part for part in (label, extra, caption) if part)
            return text, (name,)
        if _MEDIA_OMITTED.match(first):  # Android's "<Media omitted>", in a wording not listed
            return (f"[media omitted] {caption}".strip(), ())
        return None

    def _message(self, author: str, text: str, time: datetime, *, kind: str,
                 attachments: tuple[str, ...] = ()) -> Message:
        phone = phone_id(author)
        return Message(
            sender=author,
            text=text,
            time=time,
            sender_id=phone,
            is_owner=self.context.is_owner(author, phone),
            kind=kind,  # type: ignore[arg-type]
            attachments=attachments,
        )
