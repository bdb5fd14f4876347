"""The lines of a WhatsApp chat text: invisible marks and native digits normalised, the header
grammar of each flavour (iOS, Android, legacy iOS, Android without years or with month words) and
the header's time. The grammar is the one shared/EXPORT_FORMATS.md §1.7 tested against ~470 real
exports.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, timezone, tzinfo
from functools import lru_cache
from pathlib import Path

from core.importers.base import MONTH_NUMBERS

# --- line normalisation ----------------------------------------------------------------------

_STRIP = dict.fromkeys(
    map(ord, "\ufeff\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"), None
)
_SPACES = {ord(c): " " for c in "\u00a0\u202f\u2009\u2007"}
LRM = "\u200e"
MARKS = ("\u200e", "\u200f")  # LRM, or RLM in right-to-left locales: WhatsApp's own lines
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
class DateFields:
    a: int
    b: int
    year: int
    year_first: bool


@lru_cache(maxsize=8192)  # dates and clock times repeat on thousands of lines
def date_fields(date: str) -> DateFields | None:
    match = _DATE_PARTS.match(date)
    if not match:
        return None
    a, b, c = int(match["a"]), int(match["b"]), int(match["c"])
    if len(match["a"]) == 4:
        return DateFields(b, c, a, year_first=True)
    era = match["era"]
    if era == "R":  # Japanese calendar: Reiwa 1 = 2019
        c += 2018
    elif era == "H":  # Heisei 1 = 1989
        c += 1988
    elif match["be"]:  # Thai Buddhist calendar
        c -= 543
    elif c < 100:
        c += 2000
    return DateFields(a, b, c, year_first=False)


@lru_cache(maxsize=8192)  # dates and clock times repeat on thousands of lines
def split_stamp(ts: str) -> tuple[str, str] | None:
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


def stamp_ok(flavour: str, ts: str) -> bool:
    if flavour == MONTH_NAMED:
        return named_time(ts, timezone.utc) is not None
    return bool(no_year_stamp(ts) if flavour == NO_YEAR else split_stamp(ts))


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
    parts = split_stamp(ts)
    if parts is None:
        return None
    fields, clock = date_fields(parts[0]), _clock(parts[1])
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
