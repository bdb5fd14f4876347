"""The pictures' data, read from the store: counts per local day or month, names, event titles.
Nothing here calls a model; drawing runs off the event loop."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterable
from datetime import date, datetime, timedelta, timezone, tzinfo
from typing import TYPE_CHECKING

from core.biographer.runs import REPORT_KIND
from core.dates import Period
from core.errors import UserFacingError
from core.pictures import KINDS, Picture
from core.pictures.contact import ContactData, Series, bin_start, bins_between, unit_for
from core.pictures.mentions import count_mentions
from core.pictures.timeline import Mark, TimelineData, event_span, kind_of
from core.pictures.week import DayCount, NameCount, WeekData
from core.times import parse_utc, utc_iso
from core.types import TimelineEvent
from core.words import counted
from storage import activity
from storage import people as people_store

if TYPE_CHECKING:
    from storage.db import Store

log = logging.getLogger(__name__)

MAX_WEEK_DAYS = 31  # one bar a day stays readable up to a month
NOT_CONVERSATION = ("biographer",)  # what the owner told the biographer itself: not messages exchanged
CONTACT_PEOPLE = 6


def utc_offsets(zone: tzinfo, start: datetime, end: datetime) -> list[tuple[str, int]]:
    """The zone's offset from UTC in seconds over [start, end]: [(UTC instant, offset from then
    on)], the first at `start`, then one at each change (daylight saving time, a new law)."""
    def offset(moment: datetime) -> int:
        return int(moment.astimezone(zone).utcoffset().total_seconds())

    changes = [(utc_iso(start), offset(start))]
    step = timedelta(hours=12)  # no zone changes its offset twice within half a day
    before, current = start.astimezone(timezone.utc), offset(start)
    while before < end:
        after = min(before + step, end.astimezone(timezone.utc))
        if offset(after) != current:
            while after - before > timedelta(seconds=1):  # the first second of the new offset
                middle = before + (after - before) / 2
                before, after = (middle, after) if offset(middle) == current else (before, middle)
            current = offset(after)
            changes.append((utc_iso(after), current))
        before = after
    return changes


def _people(names: dict[str, str]) -> dict[str, list[str]]:
    """Canonical name -> every name of that person."""
    grouped: dict[str, list[str]] = defaultdict(list)
    for alias, person in names.items():
        grouped[person].append(alias)
    for person in grouped:
        grouped[person].append(person)
    return grouped


def _ranked(counts: Counter[str]) -> tuple[NameCount, ...]:
    return tuple(NameCount(name, n) for name, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])))


class Pictures:
    """Makes each picture from stored data only."""

    def __init__(self, conn: Store, *, zone: tzinfo, owner_names: Iterable[str],
                 timeline: Callable[[], Awaitable[list[TimelineEvent]]], clock: Callable[[], datetime]) -> None:
        self.conn = conn
        self.zone = zone
        self.owner_names = frozenset(n.lower() for n in owner_names)
        self.timeline = timeline
        self.clock = clock

    async def make(self, kind: str, *, since: datetime | None = None, until: datetime | None = None) -> Picture:
        """The picture `kind` ("week", "timeline" or "people") of [since, until]."""
        if kind not in KINDS:
            raise UserFacingError(f"there is no picture called {kind!r}", hint=f"use one of: {', '.join(KINDS)}")
        if since is not None and until is not None and since > until:
            raise UserFacingError("the period ends before it starts", hint="give --since a date before --until")
        if kind == "week":
            from core.pictures.week import draw

            data = await self.week_data(since=since, until=until)
        elif kind == "timeline":
            from core.pictures.timeline import draw

            data = await self.timeline_data(since=since, until=until)
        else:
            from core.pictures.contact import draw

            data = await self.contact_data(since=since, until=until)
        return await asyncio.to_thread(draw, data)

    def _local(self, moment: datetime | None) -> date | None:
        return moment.astimezone(self.zone).date() if moment is not None else None

    def _bounds(self, first: date, last: date) -> tuple[datetime, datetime]:
        period = Period(first, last + timedelta(days=1))
        return period.start(self.zone), period.end(self.zone)

    # ------------------------------------------------------------ the week

    async def week_data(self, *, since: datetime | None = None, until: datetime | None = None) -> WeekData:
        """The local days from `since` to `until` (default: the seven days ending today)."""
        last = self._local(until) or self._local(self.clock())
        first = self._local(since) or last - timedelta(days=6)
        if (last - first).days >= MAX_WEEK_DAYS:
            raise UserFacingError(f"the week picture covers at most {counted(MAX_WEEK_DAYS, 'day')}",
                                  hint="pick a shorter period, or use the people picture for longer ones")
        start, end = self._bounds(first, last)
        rows = await activity.messages_per_day(self.conn, since=utc_iso(start), until=utc_iso(end),
                                               offsets=utc_offsets(self.zone, start, end),
                                               exclude_platforms=NOT_CONVERSATION)
        names = await people_store.person_names(self.conn)
        yours: Counter[date] = Counter()
        others: Counter[date] = Counter()
        senders: Counter[str] = Counter()
        owner_senders = set(self.owner_names)
        for row in rows:
            day = date.fromisoformat(row.day)
            if row.is_owner:
                yours[day] += row.messages
                owner_senders.add(row.sender.lower())
            else:
                others[day] += row.messages
                senders[names.get(row.sender.lower(), row.sender)] += row.messages
        days = tuple(DayCount(first + timedelta(days=i), yours[first + timedelta(days=i)],
                              others[first + timedelta(days=i)]) for i in range((last - first).days + 1))
        people = _people(names)
        owners = {person for person, aliases in people.items() if owner_senders & {a.lower() for a in aliases}}
        texts = await activity.texts_between(self.conn, since=utc_iso(start), until=utc_iso(end),
                                             exclude_kinds=(REPORT_KIND,))
        mentioned = count_mentions(texts, people)
        for person in owners:
            mentioned.pop(person, None)
            senders.pop(person, None)
        added = await activity.sources_added(self.conn, since=utc_iso(start), until=utc_iso(end),
                                             exclude_kinds=(REPORT_KIND,))
        return WeekData(days=days, senders=_ranked(senders)[:5], mentioned=_ranked(mentioned)[:5],
                        sources=_ranked(Counter(s.kind for s in added)),
                        questions_answered=await activity.questions_answered(self.conn, since=utc_iso(start),
                                                                              until=utc_iso(end)),
                        questions_open=await activity.questions_open(self.conn))

    # ------------------------------------------------------------ who the owner talks to

    async def contact_data(self, *, since: datetime | None = None, until: datetime | None = None) -> ContactData:
        """Messages over time from the people who wrote most (default: the whole store)."""
        names = await people_store.person_names(self.conn)
        # whole local days, as the bins count them, so the totals and the bins agree
        given = [utc_iso(self._bounds(day, day)[i]) if day else None
                 for i, day in enumerate((self._local(since), self._local(until)))]
        totals: Counter[str] = Counter()
        spellings: dict[str, list[str]] = defaultdict(list)
        stored = []
        for row in await activity.sender_totals(self.conn, since=given[0], until=given[1],
                                                exclude_platforms=NOT_CONVERSATION):
            if people_store.is_placeholder(row.sender):  # a Slack integration is nobody to talk to
                continue
            person = names.get(row.sender.lower(), row.sender)
            totals[person] += row.messages
            spellings[person].append(row.sender)
            stored += [row.first, row.last]
        today = self._local(self.clock())
        first = self._local(since) or (self._local(parse_utc(min(stored))) if stored else today)
        last = self._local(until) or (self._local(parse_utc(max(stored))) if stored else today)
        start, end = self._bounds(first, last)
        top = [name for name, _ in sorted(totals.items(), key=lambda item: (-item[1], item[0]))[:CONTACT_PEOPLE]]
        unit = unit_for(first, last)
        bins = bins_between(first, last, unit)
        index = {b: i for i, b in enumerate(bins)}
        counts = {person: [0] * len(bins) for person in top}
        rows = await activity.messages_per_day(
            self.conn, since=utc_iso(start), until=utc_iso(end), offsets=utc_offsets(self.zone, start, end),
            exclude_platforms=NOT_CONVERSATION, senders=[s for person in top for s in spellings[person]])
        for row in rows:
            person = names.get(row.sender.lower(), row.sender)
            if not row.is_owner and person in counts:
                counts[person][index[bin_start(date.fromisoformat(row.day), unit)]] += row.messages
        people = tuple(Series(person, tuple(counts[person])) for person in top)
        return ContactData(first=first, last=last, unit=unit, bins=bins, people=people,
                           everyone_else=sum(totals.values()) - sum(s.total for s in people))

    # ------------------------------------------------------------ the timeline

    async def timeline_data(self, *, since: datetime | None = None, until: datetime | None = None) -> TimelineData:
        """The events whose dates fall in [since, until] (default: all), numbered by date."""
        first, last = self._local(since) or date.min, self._local(until) or date.max
        marks: list[Mark] = []
        for event in await self.timeline():
            span = event_span(event.date)
            if span is None:
                log.warning("timeline event #%s has an impossible date %r; left out of the picture", event.id,
                            event.date)
            elif span[1] >= first and span[0] <= last:
                marks.append(Mark(number=len(marks) + 1, date_text=event.date, first=span[0], last=span[1],
                                  title=event.title, kind=kind_of(event.title, event.detail),
                                  locators=tuple(event.locators)))
        return TimelineData(marks=tuple(marks))
