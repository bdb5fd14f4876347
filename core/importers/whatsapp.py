"""WhatsApp "Export chat" text files (.txt, or _chat.txt inside the .zip), read line by line.

A 1 GB export never sits in memory: a first pass reads only headers (date order, authors), a second
pass yields messages. The layouts (iOS/Android/legacy, locales, 12/24 h, invisible marks, media
placeholders, system lines) are described in shared/EXPORT_FORMATS.md §1; the header regexes are the
ones §1.7 tested against ~470 real exports.
"""

from __future__ import annotations

import io
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from datetime import date, datetime, timezone, tzinfo
from pathlib import Path
from typing import IO
from urllib.parse import unquote

from core.errors import ImportFailed
from core.importers.base import ImportContext, ImporterBase, MONTH_NUMBERS, file_sha256
from core.importers.media import FolderMedia, poll_text
from core.importers.whatsapp_notices import DROPPED, MEDIA, SYSTEM, notice_table
from core.types import Conversation, Message, SourceDocument

# --- line normalisation ----------------------------------------------------------------------

_STRIP = dict.fromkeys(
    map(ord, "\ufeff\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"), None
)
_SPACES = {ord(c): " " for c in "\u00a0\u202f\u2009\u2007"}
_LRM = "\u200e"
_MARKS = ("\u200e", "\u200f")  # LRM, or RLM in right-to-left locales: WhatsApp's own lines
_NATIVE_DIGIT = re.compile(r"[^\D0-9]")  # a Unicode digit other than 0-9 (Arabic, Persian...)


def normalize_line(line: str) -> str:
    """Drop bidi marks, unify odd spaces, turn native digits into ASCII (Arabic, Persian...)."""
    line = line.rstrip("\r")
    if line.isascii():  # the common case, kept fast for 1 GB files
        return line
    line = line.translate(_STRIP).translate(_SPACES)
    if _NATIVE_DIGIT.search(line):
        line = _NATIVE_DIGIT.sub(lambda m: str(unicodedata.digit(m.group())), line)
    return line


# --- header grammar (EXPORT_FORMATS.md §1.7) ---------------------------------------------------

_AMPM = r"(?:[AaPp]\.? ?[Mm]\.?|午前|午後|上午|下午|오전|오후|ص|م|SA|CH|vorm\.|nachm\.)"
_TIME = rf"(?:{_AMPM} ?)?\d{{1,2}}[:.]\d{{2}}(?:[:.]\d{{2}})?(?: ?{_AMPM})?"
_DATE = r"\d{1,4}[./-] ?\d{1,2}[./-] ?[A-Z]?\d{1,4}\.?(?: ?BE)?"


def _date_joiners() -> str:
    """The words Android puts between date and time in every language (whatsapp_date_joiners.txt:
    `à`, `um`, `kl.`, `، ساعت` ...), longest first, as regex alternatives."""
    table = Path(__file__).with_name("whatsapp_date_joiners.txt").read_text(encoding="utf-8")
    joiners = [line.split("\t", 1)[0][1:-1] for line in table.splitlines()
               if line.startswith("[")]
    return "|".join(re.escape(j) for j in sorted(set(joiners), key=len, reverse=True))


# between date and time: a space, a comma (Arabic's too), Finnish phones' "klo" (o'clock), or a
# language's word for "at" ("12/03/2021 à 14:05"), on iOS and Android
_BETWEEN = rf"(?:[,،]?(?: klo)?|{_date_joiners()})"
IOS_HEADER = re.compile(rf"^\[(?P<ts>{_DATE}{_BETWEEN} {_TIME}|{_TIME}, {_DATE})\] (?P<rest>.*)$")
ANDROID_HEADER = re.compile(rf"^(?P<ts>{_DATE}{_BETWEEN} {_TIME}) [-–] (?P<rest>.*)$")
LEGACY_IOS_HEADER = re.compile(rf"^(?P<ts>{_DATE}{_BETWEEN} {_TIME}): (?P<rest>.*)$")
# Android before about 2015 wrote no year: `18 Mar 12:14 - Name: text`, `Mar 5, 8:11 PM - ...`
_MONTH_WORD = r"[^\W\d_]{3,9}\.?"
NO_YEAR = "android-no-year"
NO_YEAR_HEADER = re.compile(
    rf"^(?P<ts>(?:\d{{1,2}} {_MONTH_WORD}|{_MONTH_WORD} \d{{1,2}}),? {_TIME}) [-–] (?P<rest>.*)$")
# Android about 2013 wrote the month as a word, and the time first: `19:23, 28 Aug 2013 - Name: text`
MONTH_NAMED = "android-month-named"
_NAMED_DATE = rf"(?:\d{{1,2}} {_MONTH_WORD},? \d{{4}}|{_MONTH_WORD} \d{{1,2}},? \d{{4}})"
MONTH_NAMED_HEADER = re.compile(
    rf"^(?P<ts>{_TIME}, {_NAMED_DATE}|{_NAMED_DATE},? {_TIME}) [-–] (?P<rest>.*)$")
FLAVOURS: dict[str, re.Pattern[str]] = {
    "ios": IOS_HEADER, "android": ANDROID_HEADER, "legacy-ios": LEGACY_IOS_HEADER,
    NO_YEAR: NO_YEAR_HEADER, MONTH_NAMED: MONTH_NAMED_HEADER,
}

_TS_DATE_FIRST = re.compile(rf"^(?P<date>{_DATE}){_BETWEEN} (?P<time>{_TIME})$")
_TS_TIME_FIRST = re.compile(rf"^(?P<time>{_TIME}), (?P<date>{_DATE})$")
_DATE_PARTS = re.compile(
    r"^(?P<a>\d{1,4})[./-] ?(?P<b>\d{1,2})[./-] ?(?P<era>[A-Z])?(?P<c>\d{1,4})\.?(?P<be> ?BE)?$"
)
_TIME_PARTS = re.compile(
    rf"^(?:(?P<pre>{_AMPM}) ?)?(?P<h>\d{{1,2}})[:.](?P<m>\d{{2}})(?:[:.](?P<s>\d{{2}}))?"
    rf"(?: ?(?P<post>{_AMPM}))?$"
)
_PM_WORDS = ("p", "P", "午後", "下午", "오후", "م", "CH", "nachm.")


@dataclass(frozen=True)
class _DateFields:
    a: int
    b: int
    year: int
    year_first: bool


@lru_cache(maxsize=8192)  # dates and clock times repeat on thousands of lines
def _date_fields(date: str) -> _DateFields | None:
    match = _DATE_PARTS.match(date)
    if not match:
        return None
    a, b, c = int(match["a"]), int(match["b"]), int(match["c"])
    if len(match["a"]) == 4:
        return _DateFields(b, c, a, year_first=True)
    era = match["era"]
    if era == "R":  # Japanese calendar: Reiwa 1 = 2019
        c += 2018
    elif era == "H":  # Heisei 1 = 1989
        c += 1988
    elif match["be"]:  # Thai Buddhist calendar
        c -= 543
    elif c < 100:
        c += 2000
    return _DateFields(a, b, c, year_first=False)


@lru_cache(maxsize=8192)  # dates and clock times repeat on thousands of lines
def _split_stamp(ts: str) -> tuple[str, str] | None:
    match = _TS_DATE_FIRST.match(ts) or _TS_TIME_FIRST.match(ts)
    return (match["date"], match["time"]) if match else None


@lru_cache(maxsize=8192)  # dates and clock times repeat on thousands of lines
def _clock(time: str) -> tuple[int, int, int] | None:
    match = _TIME_PARTS.match(time)
    if not match:
        return None
    hour, minute, second = int(match["h"]), int(match["m"]), int(match["s"] or 0)
    ampm = match["pre"] or match["post"]
    if ampm:
        hour = hour % 12 + (12 if ampm.startswith(_PM_WORDS) else 0)
    return hour, minute, second


_NO_YEAR_STAMP = re.compile(
    rf"^(?:(?P<d1>\d{{1,2}}) (?P<m1>{_MONTH_WORD})|(?P<m2>{_MONTH_WORD}) (?P<d2>\d{{1,2}})),? "
    rf"(?P<time>{_TIME})$")


@lru_cache(maxsize=8192)
def no_year_stamp(ts: str) -> tuple[int, int, tuple[int, int, int]] | None:
    """(month, day, clock) of a header without a year (`18 Mar 12:14`, `Mar 5, 8:11 PM`)."""
    match = _NO_YEAR_STAMP.match(ts)
    if not match:
        return None
    month = MONTH_NUMBERS.get((match["m1"] or match["m2"]).rstrip(".").lower())
    clock = _clock(match["time"])
    if month is None or clock is None:
        return None
    return month, int(match["d1"] or match["d2"]), clock


_NAMED_STAMP = re.compile(
    rf"^(?:(?P<t1>{_TIME}), )?(?:(?P<d1>\d{{1,2}}) (?P<m1>{_MONTH_WORD}),? |(?P<m2>{_MONTH_WORD}) "
    rf"(?P<d2>\d{{1,2}}),? )(?P<year>\d{{4}})(?:,? (?P<t2>{_TIME}))?$")


def named_time(ts: str, zone: tzinfo) -> datetime | None:
    """The time of a header whose month is a word (`19:23, 28 Aug 2013`, `Aug 28, 2013, 7:23 PM`)."""
    match = _NAMED_STAMP.match(ts)
    if not match or not (match["t1"] or match["t2"]):
        return None
    month = MONTH_NUMBERS.get((match["m1"] or match["m2"]).rstrip(".").lower())
    clock = _clock(match["t1"] or match["t2"])
    if month is None or clock is None:
        return None
    try:
        return datetime(int(match["year"]), month, int(match["d1"] or match["d2"]), *clock, tzinfo=zone)
    except ValueError:
        return None


def _stamp_ok(flavour: str, ts: str) -> bool:
    if flavour == MONTH_NAMED:
        return named_time(ts, timezone.utc) is not None
    return bool(no_year_stamp(ts) if flavour == NO_YEAR else _split_stamp(ts))


class YearInference:
    """Years for an export that wrote none. The export was made on `file_date`, so its last
    message is on or before that day; going back, every month that is lower than the one
    before it in the file means a new year began between them."""

    def __init__(self, *, last: tuple[int, int], rollovers: int, file_date: date) -> None:
        last_year = file_date.year if last <= (file_date.month, file_date.day) else file_date.year - 1
        self.first_year = last_year - rollovers
        self.last_year = last_year
        self._year = self.first_year
        self._month = 0

    def resolve(self, ts: str, zone: tzinfo) -> datetime | None:
        stamp = no_year_stamp(ts)
        if stamp is None:
            return None
        month, day, clock = stamp
        if month < self._month:
            self._year += 1
        self._month = month
        try:
            return datetime(self._year, month, day, *clock, tzinfo=zone)
        except ValueError:  # 29 Feb in a year inferred wrong, or not a date at all
            return None


def resolve_time(ts: str, *, day_first: bool, zone: tzinfo) -> datetime | None:
    """The header's local wall-clock time in `zone`, or None if it is not a real date."""
    parts = _split_stamp(ts)
    if parts is None:
        return None
    fields, clock = _date_fields(parts[0]), _clock(parts[1])
    if fields is None or clock is None:
        return None
    if fields.year_first:
        month, day = fields.a, fields.b
    elif day_first:
        day, month = fields.a, fields.b
    else:
        month, day = fields.a, fields.b
    try:
        return datetime(fields.year, month, day, *clock, tzinfo=zone)
    except ValueError:
        return None


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
_QUOTES = set("\"“”«»„")

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


def _looks_like_media(body: str) -> bool:
    return bool(_ANDROID_FILE.match(body) or _IOS_ATTACHED.search(body) or _MEDIA_OMITTED.match(body))


def _is_system_text(text: str) -> bool:
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


def _phone_id(author: str) -> str | None:
    compact = re.sub(r"[\s\-()\u2011]", "", author)
    return compact if re.fullmatch(r"\+?\d{6,15}", compact) else None


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
            if match and _stamp_ok(flavour, match["ts"]):
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
    lrm = raw.startswith(_MARKS) or ": \u200e" in raw or ": \u200f" in raw
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
    return separator >= 0 and raw.startswith(_LRM, separator + 2)


class _Scan:
    """What the first pass learns: flavour, day/month order, authors."""

    MAX_DATES = 200_000

    def __init__(self, flavour: str) -> None:
        self.flavour = flavour
        self.pattern = FLAVOURS[flavour]
        self.headers = 0
        self.day_first: bool | None = None
        self.dates: list[_DateFields] = []  # distinct consecutive dates, for ambiguous files
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
        parts = _split_stamp(header.ts)
        if parts and parts[0] != self._last_date:
            self._last_date = parts[0]
            fields = _date_fields(parts[0])
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
            if notice is None and not _is_system_text(header.body) and (
                    not header.lrm or _looks_like_media(header.body)):
                self.user_lines[header.author] += 1

    def is_author(self, name: str) -> bool:
        """Reject `You changed the subject to "Plans` (a system text containing ': ')."""
        if self.author_lines[name] >= 2:
            return True
        return len(name) <= 60 and not (_QUOTES & set(name))

    def resolve_day_first(self) -> bool:
        if self.day_first is not None:
            return self.day_first
        # no day over 12 anywhere: keep the order whose dates run forward most of the time
        return _backward_jumps(self.dates, day_first=True) <= _backward_jumps(self.dates,
                                                                               day_first=False)

    def participants(self) -> tuple[str, ...]:
        return tuple(name for name, n in self.user_lines.most_common() if self.is_author(name))


def _backward_jumps(dates: list[_DateFields], *, day_first: bool) -> int:
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

    def scan(self) -> _Scan:
        first: list[str] = []
        for line in self.lines():
            first.append(line)
            if len(first) >= 400:
                break
        flavour = detect_flavour(first)
        if flavour is None:
            raise ImportFailed(self.source, "has no WhatsApp message lines",
                               hint="export the chat again with WhatsApp's Export chat")
        scan = _Scan(flavour)
        for raw in self.lines():
            header = _split_header(raw, scan.pattern)
            if header is not None:
                scan.observe(header)
        return scan


@dataclass
class _Pending:
    time: datetime
    author: str | None
    lrm: bool
    lines: list[str]
    own_text: bool = False  # iOS wrote the body itself (_opens_with_lrm)


MediaHook = Callable[[str, str], str | None]  # (file name, kind) -> extra text (transcript...)


class _MessageBuilder:
    def __init__(self, scan: _Scan, context: ImportContext, chat_title: str,
                 media_hook: MediaHook | None, skipped: Counter[str]) -> None:
        self.scan = scan
        self.context = context
        # iOS writes its notices under the chat's own name: the one the file gives, or the one
        # the export's first notice was written under, when they differ
        self.chat_titles = {chat_title, scan.chat_title} - {None}
        self.media_hook = media_hook
        self.skipped = skipped  # what is left out, by reason, for the import's summary
        self.notices = notice_table()

    def build(self, pending: _Pending) -> Message | None:
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
        if (_is_system_text(first) or (pending.lrm and author in self.chat_titles)
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
        phone = _phone_id(author)
        return Message(
            sender=author,
            text=text,
            time=time,
            sender_id=phone,
            is_owner=self.context.is_owner(author, phone),
            kind=kind,  # type: ignore[arg-type]
            attachments=attachments,
        )


def iter_messages(stream: ChatStream, scan: _Scan, context: ImportContext, *, chat_title: str,
                  media_hook: MediaHook | None = None, skipped: Counter[str] | None = None,
                  years: YearInference | None = None) -> Iterator[Message]:
    """The second pass: headers start messages, other lines continue the current one."""
    day_first = scan.resolve_day_first()
    builder = _MessageBuilder(scan, context, chat_title, media_hook,
                              skipped if skipped is not None else Counter())
    pending: _Pending | None = None
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
        pending = _Pending(when, header.author, header.lrm, [header.body], header.own_text)
    if pending is not None:
        message = builder.build(pending)
        if message is not None:
            yield message


#: names a chat text gets whatever chat it holds (iOS always writes `_chat.txt`)
_GENERIC_NAMES = {"_chat", "chat", "whatsapp", "whatsapp chat"}


def chat_title(scan: _Scan, context: ImportContext, names: tuple[str, ...]) -> str:
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
    others = [p for p in participants if not context.is_owner(p, _phone_id(p))]
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
