"""Dates as people write them in filters: `2024`, `2024-03`, `2024-03-05`, `yesterday`, `last week`.

Each is a period; a filter takes its start (`--since`) or its end (`--until`, inclusive), in the
owner's time zone. One parser for every front end (CLI, bots, the HTTP API, the agent's tools).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone, tzinfo

from core.errors import UserFacingError

HINT = ("use YYYY, YYYY-MM, YYYY-MM-DD (or an ISO date and time), today, yesterday, "
        "this/last week, this/last month, this/last year, or N days ago")
_YEAR = re.compile(r"^(\d{4})$")
_MONTH = re.compile(r"^(\d{4})-(\d{1,2})$")
_AGO = re.compile(r"^(\d{1,5}) (day|week|month|year)s? ago$")


@dataclass(frozen=True)
class Period:
    """A half-open span of local days: [first, after)."""

    first: date
    after: date

    def start(self, zone: tzinfo) -> datetime:
        return datetime.combine(self.first, time(0), tzinfo=zone)

    def end(self, zone: tzinfo) -> datetime:
        """The last instant of the period (inclusive bounds read naturally: --until 2024-03)."""
        return datetime.combine(self.after, time(0), tzinfo=zone) - timedelta(microseconds=1)


def _month_after(year: int, month: int) -> date:
    return date(year + month // 12, month % 12 + 1, 1)


def _relative(text: str, today: date) -> Period | None:
    monday = today - timedelta(days=today.weekday())
    named = {
        "today": Period(today, today + timedelta(days=1)),
        "yesterday": Period(today - timedelta(days=1), today),
        "this week": Period(monday, monday + timedelta(days=7)),
        "last week": Period(monday - timedelta(days=7), monday),
        "this month": Period(today.replace(day=1), _month_after(today.year, today.month)),
        "last month": Period(_month_after(today.year, today.month - 2) if today.month > 1
                             else date(today.year - 1, 12, 1), today.replace(day=1)),
        "this year": Period(date(today.year, 1, 1), date(today.year + 1, 1, 1)),
        "last year": Period(date(today.year - 1, 1, 1), date(today.year, 1, 1)),
    }
    if text in named:
        return named[text]
    if match := _AGO.match(text):
        n, unit = int(match.group(1)), match.group(2)
        days = {"day": 1, "week": 7, "month": 30, "year": 365}[unit] * n
        day = today - timedelta(days=days)
        return Period(day, day + timedelta(days=1))
    return None


def parse_period(value: str, *, today: date) -> Period:
    """The period `value` names; a UserFacingError saying what is accepted otherwise."""
    text = " ".join(value.strip().lower().split())
    try:
        if match := _YEAR.match(text):
            year = int(match.group(1))
            return Period(date(year, 1, 1), date(year + 1, 1, 1))
        if match := _MONTH.match(text):
            year, month = int(match.group(1)), int(match.group(2))
            return Period(date(year, month, 1), _month_after(year, month))
        if (relative := _relative(text, today)) is not None:
            return relative
        day = date.fromisoformat(text) if len(text) <= 10 else datetime.fromisoformat(text).date()
        return Period(day, day + timedelta(days=1))
    except (ValueError, OverflowError):
        pass
    raise UserFacingError(f"not a date: {value!r}", hint=HINT)


def parse_bound(value: str, *, zone: tzinfo, end: bool, now: datetime | None = None) -> datetime:
    """A filter bound: the start of the period (`end=False`) or its last instant (`end=True`).
    A full date and time is taken as that instant."""
    text = value.strip()
    if "T" in text or (" " in text and ":" in text):
        try:
            moment = datetime.fromisoformat(text)
            return _comparable(moment if moment.tzinfo else moment.replace(tzinfo=zone), text, zone)
        except ValueError:
            pass
    today = (now or datetime.now(zone)).astimezone(zone).date()
    period = parse_period(text, today=today)
    try:
        return _comparable(period.end(zone) if end else period.start(zone), text, zone)
    except OverflowError:
        raise _out_of_range(text) from None


def _comparable(moment: datetime, text: str, zone: tzinfo) -> datetime:
    """A bound the store can compare: it must exist in UTC (the store's times) and in the owner's
    zone (the answers' times); 9999-12-31T23:00-05:00 is past the last year Python can hold."""
    try:
        moment.astimezone(timezone.utc)
        moment.astimezone(zone)
    except OverflowError:
        raise _out_of_range(text) from None
    return moment


def _out_of_range(text: str) -> UserFacingError:
    return UserFacingError(f"{text[:40]!r} is beyond the dates the store can compare",
                           hint="use a date from the years 2 to 9998 (or leave the bound out)")


def span_text(first: date, last: date) -> str:
    """Days as people write them: "5 Mar 2024", "4–10 Mar 2024", "28 Feb – 5 Mar 2024",
    "30 Dec 2023 – 5 Jan 2024"."""
    if first == last:
        return f"{first.day} {first:%b %Y}"
    if (first.year, first.month) == (last.year, last.month):
        return f"{first.day}–{last.day} {first:%b %Y}"
    if first.year == last.year:
        return f"{first.day} {first:%b} – {last.day} {last:%b %Y}"
    return f"{first.day} {first:%b %Y} – {last.day} {last:%b %Y}"
