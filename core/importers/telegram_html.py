"""Telegram Desktop's HTML export (the default format): `messages.html`, then `messages2.html`,
`messages3.html`... with up to 1,000 messages each, read in order as one chat.

The layout is the one Telegram Desktop's exporter writes (export_output_html.cpp): each message a
`div.message.default` whose `div.body` holds the time (`div.pull_right.date.details`, its title
the full date, with `UTC+hh:mm` in newer versions), the sender (`div.from_name`), a reply link,
media (`div.media_wrap`), the text (`div.text`) and, for a forward, a `div.forwarded.body` with
the original sender. A message sent by the same person within a few minutes of the previous one
is "joined": it has no `from_name` and continues that sender. Service messages
(`div.message.service`) have no time: they take the time of the message before them; the date
separators between days are service messages with negative ids. The HTML holds no user ids.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path

from core.errors import ImportFailed
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.importers.media import media_words, poll_text
from core.types import Conversation, Message, SourceDocument
from core.words import counted

_PAGE = re.compile(r"^messages(\d*)\.html$", re.I)
_MARKERS = (b'class="page_header"', b'class="message default clearfix', b'class="history"')
_FROM_NAME = re.compile(r'<div class="from_name">\s*([^<]+?)\s*</div>')
_DATE_TITLE = re.compile(
    r"^(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4}) (?P<H>\d{1,2}):(?P<M>\d{2}):(?P<S>\d{2})"
    r"(?: UTC(?P<sign>[+-])(?P<oh>\d{2}):(?P<om>\d{2}))?$")
_REPLY = re.compile(r"#go_to_message(\d+)")
_MEDIA_LABELS = (  # class of the media block -> what it was
    ("media_voice_message", "voice message"), ("media_video", "video"),
    ("media_audio_file", "audio"), ("media_photo", "photo"), ("media_file", "file"),
    ("media_call", "call"), ("media_contact", "contact"), ("media_location", "location"),
    ("media_live_location", "live location"), ("media_venue", "place"), ("media_poll", "poll"),
    ("media_game", "game"), ("media_invoice", "invoice"),
)


def export_pages(first: Path) -> list[Path]:
    """messages.html and the pages that continue it, in order."""
    numbered = []
    for sibling in first.parent.iterdir():
        match = _PAGE.match(sibling.name)
        if match and match.group(1):
            numbered.append((int(match.group(1)), sibling))
    return [first] + [page for _, page in sorted(numbered)]


def html_time(title: str, zone: tzinfo) -> datetime | None:
    """`05.03.2024 21:07:44 UTC+01:00` (older exports: no offset, the computer's local time)."""
    match = _DATE_TITLE.match(title.strip())
    if not match:
        return None
    if match["sign"]:
        offset = timedelta(hours=int(match["oh"]), minutes=int(match["om"]))
        zone = timezone(-offset if match["sign"] == "-" else offset)
    try:
        return datetime(int(match["y"]), int(match["m"]), int(match["d"]), int(match["H"]),
                        int(match["M"]), int(match["S"]), tzinfo=zone)
    except ValueError:
        return None


def _text(tag) -> str:  # noqa: ANN001 - a bs4 Tag
    """The words of a block, line breaks kept."""
    for br in tag.find_all("br"):
        br.replace_with("\n")
    return "\n".join(" ".join(line.split()) for line in tag.get_text().split("\n")).strip()


def _direct(tag, *classes: str):  # noqa: ANN001, ANN202 - bs4 Tags
    """The first child div of `tag` having all these classes (not a nested one)."""
    for child in tag.find_all("div", recursive=False):
        if set(classes) <= set(child.get("class") or ()):
            return child
    return None


@dataclass
class _Previous:
    sender: str = ""
    forwarded_from: str | None = None
    time: datetime | None = None


class _Reader:
    """Messages of the export's pages, in order, one page in memory at a time."""

    def __init__(self, pages: list[Path], context: ImportContext, skipped: Counter[str]) -> None:
        self.pages = pages
        self.context = context
        self.skipped = skipped
        self.folder = pages[0].parent
        self.previous = _Previous()
        self.day: datetime | None = None

    def messages(self) -> Iterator[Message]:
        from bs4 import BeautifulSoup

        for page in self.pages:
            soup = BeautifulSoup(page.read_bytes(), "html.parser")
            for node in soup.select("div.history > div.message"):
                message = self._message(node)
                if message is not None:
                    yield message

    def _message(self, node) -> Message | None:  # noqa: ANN001 - a bs4 Tag
        classes = set(node.get("class") or ())
        ident = (node.get("id") or "").removeprefix("message")
        if "service" in classes:
            body = node.find("div", class_="body")
            text = _text(body) if body else ""
            if ident.startswith("-"):  # the date written between days ("5 March 2024")
                try:
                    self.day = datetime.strptime(text, "%d %B %Y").replace(tzinfo=self.context.timezone)
                except ValueError:
                    pass
                return None
            # an event carries no time: the message before it gives one, else the day it is under
            when = self.previous.time or self.day
            if not text or when is None:
                self.skipped["notices"] += 1
                return None
            return Message(sender="", text=text, time=when, platform_id=ident or None, kind="system")
        body = _direct(node, "body")
        if body is None:
            self.skipped["unreadable messages"] += 1
            return None
        stamp = _direct(body, "date")
        time = html_time(stamp.get("title", ""), self.context.timezone) if stamp else None
        if time is None:
            self.skipped["undated messages"] += 1
            return None
        name = _direct(body, "from_name")
        sender = _text(name) if name else self.previous.sender  # "joined": the same sender
        if " via @" in sender:
            sender = sender.split(" via @")[0]
        forwarded = _direct(body, "forwarded", "body")
        forwarded_from = None
        content = body
        if forwarded is not None:
            content = forwarded
            original = _direct(forwarded, "from_name")
            if original is not None:
                for span in original.find_all("span"):
                    span.decompose()  # the original's date
                forwarded_from = _text(original)
            else:
                forwarded_from = self.previous.forwarded_from
        self.previous = _Previous(sender or "Deleted Account", forwarded_from, time)
        reply = body.find("div", class_="reply_to")
        reply_to = None
        if reply is not None and reply.a is not None:
            found = _REPLY.search(reply.a.get("href", ""))
            reply_to = found.group(1) if found else None
        label, attachments = self._media(content)
        text_block = _direct(content, "text")
        text = _text(text_block) if text_block else ""
        words = " ".join(part for part in (label, text) if part)
        if not words:
            self.skipped["empty messages"] += 1
            return None
        return Message(
            sender=self.previous.sender, text=words, time=time, is_owner=self.context.is_owner(sender),
            platform_id=ident or None, reply_to=reply_to, forwarded_from=forwarded_from,
            kind="media" if label and not text else "text", attachments=attachments,
        )

    def _media(self, content) -> tuple[str, tuple[str, ...]]:  # noqa: ANN001 - a bs4 Tag
        wrap = _direct(content, "media_wrap")
        if wrap is None:
            return "", ()
        link = wrap.find("a")
        href = link.get("href", "") if link is not None else ""
        attachments = (href,) if href and not href.startswith(("http:", "https:", "#")) else ()
        if wrap.find(class_="photo_wrap"):
            return "[photo]", attachments
        poll = wrap.find(class_="media_poll")
        if poll is not None:
            return self._poll(poll), ()
        if wrap.find(class_="sticker_wrap"):
            return "[sticker]", attachments
        if wrap.find(class_=["video_file_wrap", "animated_wrap"]):
            return "[video]", attachments
        media = wrap.find(class_="media")
        media_classes = set(media.get("class") or ()) if media is not None else set()
        kind = next((label for css, label in _MEDIA_LABELS if css in media_classes), "media")
        details = [_text(tag) for tag in (wrap.find(class_=c) for c in ("title", "description", "status"))
                   if tag is not None and _text(tag)]
        if kind == "voice message":
            words = self._transcript(attachments)
            return "[voice message]" + (f" {words}" if words else ""), attachments
        described = ", ".join(d for d in details if d.lower() != kind)
        return (f"[{kind}: {described}]" if described else f"[{kind}]"), attachments

    @staticmethod
    def _poll(poll) -> str:  # noqa: ANN001 - a bs4 Tag
        """Telegram writes a poll as its question, then one `- option` line per answer, each
        with its votes in a details span (export_output_html.cpp, pushPoll)."""
        question = poll.find(class_="question")
        options = []
        for answer in poll.find_all(class_="answer"):
            for votes in answer.find_all(class_="details"):
                votes.decompose()
            options.append(_text(answer).removeprefix("-").strip())
        return poll_text(_text(question) if question else "", options)

    def _transcript(self, attachments: tuple[str, ...]) -> str | None:
        if not attachments or self.context.transcriber is None:
            return None
        local = (self.folder / attachments[0]).resolve()
        if not local.is_relative_to(self.folder.resolve()) or not local.is_file():
            return None
        return media_words(local, self.context, name=attachments[0])


class TelegramHtmlImporter(ImporterBase):
    """Telegram Desktop's "Export chat history" in its default format, HTML."""

    name = "telegram"
    reads_media_beside = True
    companion_suffixes = frozenset({".css", ".js"})  # the export's own page style and script

    def sniff(self, path: Path, head: bytes) -> bool:
        # by content: a page saved under another name ("chat.html", "messages (1).html") is
        # still the export
        return path.suffix.lower() in {".html", ".htm"} and sum(m in head for m in _MARKERS) >= 2

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        match = _PAGE.match(path.name)
        if match and match.group(1) and (path.parent / "messages.html").is_file():
            return  # a later page: read with messages.html, in order
        pages = export_pages(path) if match and not match.group(1) else [path]
        digest = hashlib.sha256("".join(file_sha256(p) for p in pages).encode()).hexdigest()
        head = path.read_bytes()[: 1 << 16].decode("utf-8", errors="replace")
        title = re.search(r'<div class="page_header">.*?<div class="text bold">\s*([^<]+?)\s*</div>',
                          head, re.S)
        if title is None and 'class="message' not in head:
            raise ImportFailed(path.name, "is an HTML page without Telegram messages",
                               hint="import the messages.html of a Telegram Desktop chat export")
        name = html.unescape(title.group(1)) if title else path.parent.name
        senders: dict[str, None] = {}
        for page in pages:
            for found in _FROM_NAME.finditer(page.read_text(encoding="utf-8", errors="replace")):
                senders[html.unescape(found.group(1)).split(" via @")[0]] = None
        conversation = Conversation(
            platform="telegram",
            key=f"telegram:html:{name}",
            name=f"Telegram with {name}" if len(senders) <= 2 else name,
            participants=tuple(senders),
            is_group=len(senders) > 2,
        )
        document = SourceDocument(kind="telegram", name=conversation.name,
                                  identity=f"file:{digest}#telegram-html", conversation=conversation,
                                  note=f"Telegram HTML export, {counted(len(pages), 'page')}")
        document.messages = _Reader(pages, context, document.skipped).messages()
        yield document
