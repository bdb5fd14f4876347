"""WhatsApp "Export chat" text files (.txt, or _chat.txt inside the .zip), read line by line.

A 1 GB export never sits in memory: a first pass reads only headers (date order, authors), a second
pass yields messages. The layouts (iOS/Android/legacy, locales, 12/24 h, invisible marks, media
placeholders, system lines) are described in shared/EXPORT_FORMATS.md §1; the header regexes are the
ones §1.7 tested against ~470 real exports.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from pathlib import Path
from typing import IO
from urllib.parse import unquote

from core.errors import ImportFailed
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.importers.media import FolderMedia
from core.importers.whatsapp_bodies import (
    QUOTES, MediaHook, MessageBuilder, Pending, is_system_text, looks_like_media, phone_id,
)
from core.importers.whatsapp_notices import notice_table
from core.importers.whatsapp_stamps import (
    FLAVOURS, LRM, MARKS, MONTH_NAMED, NO_YEAR, DateFields, YearInference, date_fields, named_time,
    no_year_stamp, normalize_line, resolve_time, split_stamp, stamp_ok,
)
from core.types import Conversation, Message, SourceDocument

# --- reading lines -----------------------------------------------------------------------------

Opener = Callable[[], IO[bytes]]


def _text_stream(raw: IO[bytes]) -> io.TextIOWrapper:
    """UTF-8 (BOM or not) or UTF-16 with a BOM: both exist in the wild."""
    start = raw.peek(4)[:4] if hasattr(raw, "peek") else b""
    encoding = "utf-16" if start.startswith((b"\xff\xfe", b"\xfe\xff")) else "utf-8-sig"
    return io.TextIOWrapper(raw, encoding=encoding, newline="")


def iter_lines(opener: Opener, source: str) -> Iterator[str]:
    """Raw lines split on "\\n" only: str.splitlines would also cut at \\x0b, \\u2028... in bodies."""
    raw = opener()
    buffered = raw if hasattr(raw, "peek") else io.BufferedReader(raw)  # type: ignore[arg-type]
    with _text_stream(buffered) as text:
        pending = ""
        try:
            for block in iter(lambda: text.read(1 << 16), ""):
                pending += block
                *lines, pending = pending.split("\n")
                yield from lines
        except UnicodeDecodeError as error:
            raise ImportFailed(source, f"is not valid UTF-8 or UTF-16 text ({error.reason})",
                               hint="export the chat again from WhatsApp") from None
        if pending:
            yield pending


def detect_flavour(lines: list[str]) -> str | None:
    """iOS, Android or legacy iOS, decided once from the first headers so that a body line that
    happens to look like another flavour is not split off."""
    votes: Counter[str] = Counter()
    for raw in lines:
        line = normalize_line(raw)
        for flavour, pattern in FLAVOURS.items():
            match = pattern.match(line)
            if match and stamp_ok(flavour, match["ts"]):
                votes[flavour] += 1
                break
        if sum(votes.values()) >= 50:
            break
    return votes.most_common(1)[0][0] if votes else None


def looks_like_whatsapp(text: str) -> bool:
    """A chat export: it opens with message headers, and headers stay frequent. Judged on the
    first 40 lines, or, when a long message (a forwarded notice, a signature) fills those, on the
    whole head, where headers must still be one line in twenty."""
    every = [line for line in text.split("\n") if line.strip()]
    if len(every) > 1 and not text.endswith("\n"):
        every = every[:-1]  # the head may cut the last line
    lines = every[:40]
    flavour = detect_flavour(lines)
    if flavour is None:
        return False
    pattern = FLAVOURS[flavour]
    hits = sum(1 for line in lines if pattern.match(normalize_line(line)))
    if hits >= 1 and hits * 3 >= len(lines):
        return True
    opens_with_headers = sum(1 for line in lines[:5] if pattern.match(normalize_line(line))) >= 2
    all_hits = sum(1 for line in every if pattern.match(normalize_line(line)))
    return opens_with_headers and all_hits >= 10 and all_hits * 20 >= len(every)


def decode_head(head: bytes) -> str:
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return head[: len(head) // 2 * 2].decode("utf-16", errors="ignore")
    return head.decode("utf-8-sig", errors="ignore")


# --- the two passes ---------------------------------------------------------------------------

@dataclass
class _Header:
    ts: str
    author: str | None  # None: a system line without author
    body: str
    lrm: bool  # the raw line marked its body with U+200E: a placeholder or a system text
    # the body itself opens with U+200E: text iOS wrote, not the sender (see _own_text)
    own_text: bool = False


def _split_header(raw: str, pattern: re.Pattern[str]) -> _Header | None:
    match = pattern.match(normalize_line(raw))
    if not match:
        return None
    rest = match["rest"]
    author, sep, body = rest.partition(": ")
    lrm = raw.startswith(MARKS) or ": \u200e" in raw or ": \u200f" in raw
    if not sep:
        return _Header(match["ts"], None, rest, lrm)
    return _Header(match["ts"], author.strip(), body, lrm, own_text=_opens_with_lrm(raw))


def _opens_with_lrm(raw: str) -> bool:
    """iOS writes U+200E before every body it writes itself, in every language: group events
    ("Leon hat Ali hinzugefügt."), calls ("Llamada. 1 min"), placeholders, polls, locations. A
    sender's words never open with it: keyboards put RLM, not LRM, before right-to-left text, and
    iOS's right-to-left locales mark their own lines with RLM, which is why RLM is not taken here
    (a person's Arabic or Urdu message may open with one)."""
    stamp_end = raw.find("] ")  # iOS's bracketed header; Android marks only attached files
    separator = raw.find(": ", stamp_end) if stamp_end >= 0 else -1
    return separator >= 0 and raw.startswith(LRM, separator + 2)


class ChatScan:
    """What the first pass learns: flavour, day/month order, authors."""

    MAX_DATES = 200_000

    def __init__(self, flavour: str) -> None:
        self.flavour = flavour
        self.pattern = FLAVOURS[flavour]
        self.headers = 0
        self.day_first: bool | None = None
        self.dates: list[DateFields] = []  # distinct consecutive dates, for ambiguous files
        self._last_date = ""
        self.author_lines: Counter[str] = Counter()
        self.user_lines: Counter[str] = Counter()
        # iOS writes its notices (the encryption notice first) with the chat as their author:
        # the other person in a 1:1 chat, the group's name in a group
        self.chat_title: str | None = None
        # exports without years: the last (month, day) and how often the month went down
        self.last_month_day: tuple[int, int] | None = None
        self.rollovers = 0

    def observe(self, header: _Header) -> None:
        self.headers += 1
        if self.flavour == NO_YEAR:
            stamp = no_year_stamp(header.ts)
            if stamp is not None:
                if self.last_month_day is not None and stamp[0] < self.last_month_day[0]:
                    self.rollovers += 1
                self.last_month_day = stamp[:2]
        parts = split_stamp(header.ts)
        if parts and parts[0] != self._last_date:
            self._last_date = parts[0]
            fields = date_fields(parts[0])
            if fields is not None:
                if self.day_first is None and not fields.year_first:
                    if fields.a > 12:
                        self.day_first = True
                    elif fields.b > 12:
                        self.day_first = False
                if len(self.dates) < self.MAX_DATES:
                    self.dates.append(fields)
        if header.author is not None:
            self.author_lines[header.author] += 1
            notice = notice_table().kind(header.body, marked=True) if header.lrm else None
            if notice == "encryption notice" and self.chat_title is None:
                self.chat_title = header.author
            if notice is None and not is_system_text(header.body) and (
                    not header.lrm or looks_like_media(header.body)):
                self.user_lines[header.author] += 1

    def is_author(self, name: str) -> bool:
        """Reject `You changed the subject to "Plans` (a system text containing ': ')."""
        if self.author_lines[name] >= 2:
            return True
        return len(name) <= 60 and not (QUOTES & set(name))

    def resolve_day_first(self) -> bool:
        if self.day_first is not None:
            return self.day_first
        # no day over 12 anywhere: keep the order whose dates run forward most of the time
        return _backward_jumps(self.dates, day_first=True) <= _backward_jumps(self.dates,
                                                                               day_first=False)

    def participants(self) -> tuple[str, ...]:
        return tuple(name for name, n in self.user_lines.most_common() if self.is_author(name))


def _backward_jumps(dates: list[DateFields], *, day_first: bool) -> int:
    jumps, previous = 0, None
    for f in dates:
        month, day = (f.b, f.a) if day_first else (f.a, f.b)
        key = (f.year, month, day)
        if not (1 <= month <= 12):
            jumps += 1
            continue
        if previous is not None and key < previous:
            jumps += 1
        previous = key
    return jumps


_NAME_IN_FILE = re.compile(
    r"WhatsApp(?:[- ]Chat)?\s+(?:with|mit|con|avec|com|met|med|z|ze|s uživatelem|с контактом|с|-|–)"
    r"\s+(?P<name>.+?)(?:\s*\(\d+\))?$", re.I,
)


_FILE_NAMES = Path(__file__).with_name("whatsapp_file_names.txt")


@cache
def _file_name_patterns() -> tuple[re.Pattern[str], ...]:
    """Android's name for an exported chat in each language (whatsapp_file_names.txt), with the
    chat's name as a group; any run of spaces (Czech and Russian names hold no-break spaces)."""
    patterns = []
    templates = [line.strip() for line in _FILE_NAMES.read_text(encoding="utf-8").splitlines()
                 if "%s" in line and not line.startswith("#")]
    for line in sorted(templates, key=len, reverse=True):  # the longest wording that fits wins
        before, _, after = line.strip().partition("%s")
        words = [r"\s+".join(map(re.escape, part.split())) for part in (before, after)]
        space_before = r"\s*" if before and not before[-1].isspace() else (r"\s+" if before else "")
        space_after = r"\s*" if after and not after[0].isspace() else (r"\s+" if after else "")
        patterns.append(re.compile(
            rf"^{words[0]}{space_before}(?P<name>.+?){space_after}{words[1]}(?:\s*\(\d+\))?$", re.I))
    return tuple(patterns)


def partner_from_name(*names: str) -> str | None:
    """The chat's name in the name WhatsApp gave its export, in any of its languages (a file
    saved from a web mail may keep its name URL-encoded: `WhatsApp%20Chat%20with%20Maya`)."""
    for name in (unquote(n) if "%" in n else n for n in names):
        for pattern in _file_name_patterns():
            if (match := pattern.match(name.strip())):
                return match["name"].strip()
        match = _NAME_IN_FILE.search(name)
        if match:
            return match["name"].strip()
    return None


class ChatStream:
    """One WhatsApp chat text, readable twice (it is a file or a zip member)."""

    def __init__(self, opener: Opener, source: str) -> None:
        self.opener = opener
        self.source = source

    def lines(self) -> Iterator[str]:
        return iter_lines(self.opener, self.source)

    def scan(self) -> ChatScan:
        first: list[str] = []
        for line in self.lines():
            first.append(line)
            if len(first) >= 400:
                break
        flavour = detect_flavour(first)
        if flavour is None:
            raise ImportFailed(self.source, "has no WhatsApp message lines",
                               hint="export the chat again with WhatsApp's Export chat")
        scan = ChatScan(flavour)
        for raw in self.lines():
            header = _split_header(raw, scan.pattern)
            if header is not None:
                scan.observe(header)
        return scan


def iter_messages(stream: ChatStream, scan: ChatScan, context: ImportContext, *, chat_title: str,
                  media_hook: MediaHook | None = None, skipped: Counter[str] | None = None,
                  years: YearInference | None = None) -> Iterator[Message]:
    """The second pass: headers start messages, other lines continue the current one."""
    day_first = scan.resolve_day_first()
    builder = MessageBuilder(scan, context, chat_title, media_hook,
                              skipped if skipped is not None else Counter())
    pending: Pending | None = None
    for raw in stream.lines():
        header = _split_header(raw, scan.pattern)
        if header is None:
            when = None
        elif years is not None:
            when = years.resolve(header.ts, context.timezone)
        elif scan.flavour == MONTH_NAMED:
            when = named_time(header.ts, context.timezone)
        else:
            when = resolve_time(header.ts, day_first=day_first, zone=context.timezone)
        if header is None or when is None:
            # not a header (or a body line that only looks like one): the message goes on
            if pending is not None:
                pending.lines.append(normalize_line(raw))
            continue
        if pending is not None:
            message = builder.build(pending)
            if message is not None:
                yield message
        pending = Pending(when, header.author, header.lrm, [header.body], header.own_text)
    if pending is not None:
        message = builder.build(pending)
        if message is not None:
            yield message


#: names a chat text gets whatever chat it holds (iOS always writes `_chat.txt`)
_GENERIC_NAMES = {"_chat", "chat", "whatsapp", "whatsapp chat"}


def chat_title(scan: ChatScan, context: ImportContext, names: tuple[str, ...]) -> str:
    """The chat's name, so that two exports of different chats never become one conversation:
    from the file, zip or folder name WhatsApp gave it ("WhatsApp Chat with Maya"), else the
    author iOS writes its notices under (the chat itself), else the one other participant,
    else a file or folder name that is not the generic `_chat`, else the participants."""
    named = partner_from_name(*names)
    if named:
        return named
    if scan.chat_title:
        return scan.chat_title
    participants = scan.participants()
    others = [p for p in participants if not context.is_owner(p, phone_id(p))]
    if len(others) == 1 and len(participants) > 1:
        return others[0]
    specific = [n for n in names if n and n.strip().lower() not in _GENERIC_NAMES]
    if specific:
        return specific[0]
    return ", ".join(sorted(participants)) or "unnamed chat"


def chat_document(stream: ChatStream, context: ImportContext, *, identity: str,
                  names: tuple[str, ...], media_hook: MediaHook | None = None,
                  file_date: date | None = None) -> SourceDocument:
    """Scan the chat, then describe it as one document whose messages are read lazily."""
    scan = stream.scan()
    if scan.headers == 0:
        raise ImportFailed(stream.source, "has no WhatsApp message lines",
                           hint="export the chat again with WhatsApp's Export chat")
    participants = scan.participants()
    partner = chat_title(scan, context, names)
    conversation = Conversation(
        platform="whatsapp",
        key=f"whatsapp:{partner}",
        name=f"WhatsApp with {partner}",
        participants=participants,
        is_group=len(participants) > 2,
    )
    document = SourceDocument(kind="whatsapp", name=conversation.name, identity=identity,
                              conversation=conversation)
    years = None
    if scan.flavour == NO_YEAR and scan.last_month_day is not None:
        made = file_date or datetime.now(context.timezone).date()
        years = YearInference(last=scan.last_month_day, rollovers=scan.rollovers, file_date=made)
        span = (str(years.first_year) if years.first_year == years.last_year
                else f"{years.first_year}-{years.last_year}")
        document.note = (f"the export has no years: {span} inferred from the file's date "
                         f"({made.isoformat()}) and the order of the messages")
    document.messages = iter_messages(stream, scan, context, chat_title=partner,
                                      media_hook=media_hook, skipped=document.skipped, years=years)
    return document


class WhatsAppImporter(ImporterBase):
    """A WhatsApp chat exported as text (any file name: the name is localised)."""

    name = "whatsapp"
    reads_media_beside = True

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.suffix.lower() not in {".txt", ""}:
            return False
        return looks_like_whatsapp(decode_head(head))

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        stream = ChatStream(lambda: path.open("rb"), path.name)
        made = datetime.fromtimestamp(path.stat().st_mtime, context.timezone).date()
        # an unzipped export keeps its voice notes and photos beside the chat text
        yield chat_document(stream, context, identity=f"file:{file_sha256(path)}",
                            names=(path.stem, path.parent.name),
                            media_hook=FolderMedia(path.parent, context), file_date=made)
