"""What the templates show, shaped from the service's values: the timeline at a zoom level, times
in the owner's words, an edit's diff as lines. Presentation only: no query, no ranking."""

from __future__ import annotations

import calendar
import secrets
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from markupsafe import Markup, escape

from core.biographer.profile import unified_diff
from core.memory.highlight import query_spans
from core.times import parse_utc
from core.types import ProfileEdit, TimelineEvent

UNDATED = "undated"
YEAR_PREVIEW = 5  # event titles shown per year in the overview


@dataclass
class EventGroup:
    label: str  # "2019", "May 2019", "sometime in 2019"
    href: str | None  # zooms into it; None at the finest level
    events: list[TimelineEvent] = field(default_factory=list)
    more: int = 0  # events not shown at this zoom


@dataclass
class TimelineZoom:
    level: str  # "years" | "year" | "month"
    title: str
    groups: list[EventGroup]
    up: tuple[str, str] | None  # (label, href) one level out
    total: int


def _year(event: TimelineEvent) -> str:
    head = event.date[:4]
    return head if head.isdigit() else UNDATED


def _month(event: TimelineEvent) -> int | None:
    part = event.date[5:7]
    return int(part) if part.isdigit() and 1 <= int(part) <= 12 else None


def timeline_zoom(events: Sequence[TimelineEvent], *, year: int | None = None,
                  month: int | None = None) -> TimelineZoom:
    """The years with their events (a preview each), a year by month, or one month's events whole."""
    ordered = sorted(events, key=lambda e: (_year(e) == UNDATED, e.date, e.id))
    if year is None:
        years: dict[str, list[TimelineEvent]] = {}
        for event in ordered:
            years.setdefault(_year(event), []).append(event)
        groups = [EventGroup(label, None if label == UNDATED else f"/timeline?year={label}",
                             items[:YEAR_PREVIEW], max(0, len(items) - YEAR_PREVIEW))
                  for label, items in years.items()]
        return TimelineZoom("years", "Timeline", groups, None, len(ordered))
    in_year = [e for e in ordered if _year(e) == f"{year:04d}"]
    if month is None:
        months: dict[int | None, list[TimelineEvent]] = {}
        for event in in_year:
            months.setdefault(_month(event), []).append(event)
        groups = [EventGroup(f"sometime in {year}", None, months[None])] if None in months else []
        groups += [EventGroup(f"{calendar.month_name[m]} {year}", f"/timeline?year={year}&month={m}", months[m])
                   for m in sorted(k for k in months if k is not None)]
        return TimelineZoom("year", str(year), groups, ("all years", "/timeline"), len(in_year))
    in_month = [e for e in in_year if _month(e) == month]
    title = f"{calendar.month_name[month]} {year}"
    return TimelineZoom("month", title, [EventGroup(title, None, in_month)], (str(year), f"/timeline?year={year}"),
                        len(in_month))


def local_time(value: datetime | str | None, zone: tzinfo, *, seconds: bool = False) -> str:
    """`2024-03-14 08:15` in the owner's zone ('' when unknown)."""
    if value is None or value == "":
        return ""
    moment = parse_utc(value) if isinstance(value, str) else value
    if moment.tzinfo is not None:
        moment = moment.astimezone(zone)
    return moment.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def time_span(start: str | None, end: str | None, zone: tzinfo) -> str:
    """`2024-03-14 08:15–08:20`, or one time, or ''."""
    first, last = local_time(start, zone), local_time(end, zone)
    if not last or last == first:
        return first
    if first[:10] == last[:10]:
        return f"{first}–{last[11:]}"
    return f"{first} – {last}" if first else last


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "added" | "removed" | "context" | "hunk"
    text: str


def edit_diff(edit: ProfileEdit) -> list[DiffLine]:
    """What an edit of bio.md changed, line by line."""
    return diff_lines(unified_diff(edit.old_text + "\n" if edit.old_text else "",
                                   edit.new_text + "\n" if edit.new_text else ""))


def diff_lines(diff: str) -> list[DiffLine]:
    out = []
    for line in diff.splitlines():
        if line.startswith(("---", "+++")):
            continue
        kind = {"+": "added", "-": "removed", "@": "hunk"}.get(line[:1], "context")
        out.append(DiffLine(kind, line if kind == "hunk" else line[1:]))
    return out


@dataclass(frozen=True)
class Figure:
    url: str
    alt: str
    caption: str


class PictureShelf:
    """The last few pictures drawn for the page, by a random key (the <img> that follows asks for
    it once); a small bounded map, so memory stays flat."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._kept: OrderedDict[str, bytes] = OrderedDict()

    def keep(self, picture) -> Figure:
        key = secrets.token_urlsafe(12)
        self._kept[key] = picture.png
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)
        return Figure(url=f"/pictures/{key}.png", alt=picture.alt, caption=picture.caption)

    def get(self, key: str) -> bytes | None:
        return self._kept.get(key)


def marked(text: str, query: str) -> Markup:
    """A passage with the query's words in <mark>: each piece of the raw text escaped on its own,
    so nothing a passage holds (markup, entities) becomes HTML or is split by a mark."""
    out, at = [], 0
    for start, end in query_spans(text, query) if query else ():
        out += [escape(text[at:start]), Markup("<mark>"), escape(text[start:end]), Markup("</mark>")]
        at = end
    out.append(escape(text[at:]))
    return Markup("").join(out)
