"""Calendars (`.ics`): Google Calendar's export, Apple Calendar, Outlook and any RFC 5545 file.

One document per calendar; each event is one dated record (a Message whose time is the event's
start), so search, `--since`/`--until` and the timeline see every event on its own day rather than
the whole calendar as one undated text. The record's sender is the organizer (the calendar's own
name when the event has none, as for the events you put in your own calendar); its text says what,
when (in the event's own time zone, or "all day"), where, with whom and how it repeats. A repeating
event is one record at its first occurrence with its rule kept as text, never expanded; a changed
occurrence (`RECURRENCE-ID`) is a record of its own. To-dos and journal entries are not read.
Events that share a UID and a RECURRENCE-ID are versions of one event (RFC 5545 §3.8.4.7, RFC 5546
§2.1.5): the one with the highest SEQUENCE, then the latest DTSTAMP, is kept and the others are
counted as earlier versions; versions alike in both but different in content are a file that
reused a UID for two events (a TV guide's feed does), and both are kept.

The file is read twice, line by line: time zones and the calendar's name first, then the events,
each parsed on its own with `icalendar`, so a malformed event is skipped (and counted in the
document's note) instead of failing the whole calendar. The records are sorted by time before they
are stored (a calendar lists events in any order), so memory holds the records, not the file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from icalendar import Calendar, Event

from core.errors import ImportFailed
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.types import Conversation, Message, SourceDocument
from core.words import counted

_SUFFIXES = frozenset({".ics", ".ical", ".icalendar"})
_NAME_PROPERTIES = ("X-WR-CALNAME", "NAME")


def looks_like_calendar(path: Path, head: bytes) -> bool:
    start = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return start[:15].upper() == b"BEGIN:VCALENDAR" or (
        path.suffix.lower() in _SUFFIXES and b"BEGIN:VEVENT" in head.upper())


@dataclass
class _Header:
    name: str = ""
    zone: str = ""
    timezones: list[str] = field(default_factory=list)
    seen_calendar: bool = False


def _lines(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as f:
        for line in f:
            yield line.rstrip("\r\n")


def _components(path: Path, wanted: str) -> Iterator[str]:
    """Each `wanted` component (VEVENT, VTIMEZONE) of the file as its own text."""
    begin, end = f"BEGIN:{wanted}", f"END:{wanted}"
    block: list[str] | None = None
    for line in _lines(path):
        upper = line.strip().upper()
        if block is None:
            if upper == begin:
                block = [line]
            continue
        block.append(line)
        if upper == end:
            yield "\r\n".join(block) + "\r\n"
            block = None


def _header(path: Path) -> _Header:
    header = _Header()
    depth = 0
    last: str | None = None
    for line in _lines(path):
        upper = line.strip().upper()
        if upper == "BEGIN:VCALENDAR":
            header.seen_calendar = True
        if upper.startswith("BEGIN:") and upper != "BEGIN:VCALENDAR":
            depth += 1
        elif upper.startswith("END:") and upper != "END:VCALENDAR":
            depth -= 1
        elif depth == 0 and line[:1] in (" ", "\t") and last:
            setattr(header, last, getattr(header, last) + line[1:])  # a folded calendar property
            continue
        elif depth == 0:
            key, _, value = line.partition(":")
            key = key.split(";")[0].upper()
            last = "name" if key in _NAME_PROPERTIES and not header.name else (
                "zone" if key == "X-WR-TIMEZONE" else None)
            if last:
                setattr(header, last, value.strip())
    header.timezones = list(_components(path, "VTIMEZONE"))
    return header


def _zone(name: str, fallback: tzinfo) -> tzinfo:
    try:
        return ZoneInfo(name) if name else fallback
    except (ZoneInfoNotFoundError, ValueError):
        return fallback


def _person(value: Any) -> tuple[str, str | None]:
    """(name, e-mail) of an ORGANIZER or ATTENDEE."""
    address = str(value)
    email = address[7:] if address.lower().startswith("mailto:") else (address or None)
    name = str(getattr(value, "params", {}).get("CN") or "").strip().strip('"')
    return name or email or "someone", email


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _zone_label(moment: datetime) -> str:
    zone = moment.tzinfo
    key = getattr(zone, "key", None) or getattr(zone, "zone", None)
    return str(key) if key else (moment.tzname() or "")


def _when(start: date, end: date | None) -> str:
    if not isinstance(start, datetime):
        last = (end - timedelta(days=1)) if isinstance(end, date) and not isinstance(end, datetime) else start
        span = start.isoformat() if last <= start else f"{start.isoformat()} to {last.isoformat()}"
        return f"all day {span}"
    text = f"{start:%Y-%m-%d %H:%M}"
    if isinstance(end, datetime):
        text += f"–{end:%H:%M}" if end.date() == start.date() else f" to {end:%Y-%m-%d %H:%M}"
    label = _zone_label(start) if start.tzinfo else ""
    return f"{text} {label}".strip()


class _Reader:
    def __init__(self, header: _Header, path: Path, context: ImportContext) -> None:
        self.context = context
        self.zone = _zone(header.zone, context.timezone)  # for floating times
        self.calendar = header.name or path.stem

    def record(self, event: Event) -> Message | None:
        start_prop = event.get("DTSTART")
        if start_prop is None:
            return None
        start = start_prop.dt
        end = event.get("DTEND").dt if event.get("DTEND") is not None else None
        if end is None and event.get("DURATION") is not None:
            end = start + event.get("DURATION").dt
        if isinstance(start, datetime) and start.tzinfo is None:
            start = start.replace(tzinfo=self.zone)
            end = end.replace(tzinfo=self.zone) if isinstance(end, datetime) and end.tzinfo is None else end
        # an all-day event is a date, in no time zone (RFC 5545 3.3.4): the owner's midnight keeps
        # it on its day wherever they read it; the calendar's zone (X-WR-TIMEZONE) put a Berlin
        # calendar's 17 June at 16 June 22:00 for an owner in UTC
        moment = (start if isinstance(start, datetime)
                  else datetime.combine(start, time(), tzinfo=self.context.timezone))
        # the event's key keeps the calendar's midnight it was first written with: a calendar
        # imported again matches what is already saved
        keyed = start if isinstance(start, datetime) else datetime.combine(start, time(), tzinfo=self.zone)
        organizer = event.get("ORGANIZER")
        # an event with no organizer is the owner's own entry in their calendar: kept under the
        # calendar's name, and the owner's (so the calendar never shows up as a person)
        sender, email = _person(organizer) if organizer is not None else (self.calendar, None)
        own_entry = organizer is None
        uid = str(event.get("UID") or "")
        recurrence = event.get("RECURRENCE-ID")
        return Message(
            sender=sender,
            text=self.describe(event, start, end),
            time=moment.astimezone(self.context.timezone),
            sender_id=email,
            is_owner=own_entry or self.context.is_owner(sender, email),
            platform_id=f"{uid}|{recurrence.dt.isoformat() if recurrence else ''}|{keyed.isoformat()}"
            if uid else None,
        )

    @staticmethod
    def describe(event: Event, start: date, end: date | None) -> str:
        summary = str(event.get("SUMMARY") or "").strip() or "(no title)"
        if str(event.get("STATUS") or "").upper() == "CANCELLED":
            summary += " (cancelled)"
        parts = [summary, _when(start, end)]
        if str(event.get("LOCATION") or "").strip():
            parts.append(f"at {str(event['LOCATION']).strip()}")
        guests = [_person(a)[0] for a in _listed(event.get("ATTENDEE"))
                  if str(getattr(a, "params", {}).get("PARTSTAT", "")).upper() != "DECLINED"]
        declined = [_person(a)[0] for a in _listed(event.get("ATTENDEE"))
                    if str(getattr(a, "params", {}).get("PARTSTAT", "")).upper() == "DECLINED"]
        if guests:
            parts.append(f"with {', '.join(dict.fromkeys(guests))}")
        if declined:
            parts.append(f"declined by {', '.join(dict.fromkeys(declined))}")
        rule = event.get("RRULE")
        if rule is not None:
            parts.append(f"repeats {rule.to_ical().decode()}")
        text = " · ".join(parts)
        description = str(event.get("DESCRIPTION") or "").strip()
        return f"{text}\n{description}" if description else text


def _revision(event: Event) -> tuple[int, str]:
    """What orders two versions of one event: SEQUENCE (0 when absent), then DTSTAMP in UTC."""
    try:
        sequence = int(event.get("SEQUENCE") or 0)
    except (TypeError, ValueError):
        sequence = 0
    stamp = event.get("DTSTAMP")
    try:
        moment = getattr(stamp, "dt", None)
    except ValueError:  # icalendar's BrokenCalendarProperty: a stamp it could not read
        moment = None
    if isinstance(moment, datetime):
        moment = moment.astimezone(ZoneInfo("UTC")) if moment.tzinfo else moment
    return sequence, moment.isoformat() if isinstance(moment, date) else ""


@dataclass(frozen=True)
class _Version:
    record: Message
    revision: tuple[int, str]  # _revision of its VEVENT

    @property
    def event_key(self) -> str | None:
        """UID and RECURRENCE-ID: the platform id without the start, which a new version moves."""
        return self.record.platform_id.rsplit("|", 1)[0] if self.record.platform_id else None


def _latest_versions(versions: list[_Version]) -> tuple[list[Message], int]:
    """Per UID and RECURRENCE-ID, the latest version only, and how many earlier ones were left
    out. Versions equal in SEQUENCE and DTSTAMP but unlike in content are two events under one
    UID: each keeps its record, told apart by its content. A version repeated as it is counts
    as an earlier one."""
    by_event: dict[str | None, list[_Version]] = {}
    for version in versions:
        by_event.setdefault(version.event_key or str(id(version)), []).append(version)
    kept: list[Message] = []
    for same in by_event.values():
        newest = max(v.revision for v in same)
        latest = list({v.record.text: v.record for v in same if v.revision == newest}.values())
        if len(latest) > 1:
            latest = [replace(r, platform_id=f"{r.platform_id}|{_digest(r.text)}") for r in latest]
        kept.extend(latest)
    return kept, len(versions) - len(kept)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _register_timezones(header: _Header) -> None:
    """icalendar resolves a TZID through the VTIMEZONE definitions it has parsed."""
    for block in header.timezones:
        try:
            Calendar.from_ical("BEGIN:VCALENDAR\r\n" + block + "END:VCALENDAR\r\n")
        except ValueError:
            continue  # an unreadable zone: its events fall back to the calendar's zone


class CalendarImporter(ImporterBase):
    name = "calendar"

    def sniff(self, path: Path, head: bytes) -> bool:
        return looks_like_calendar(path, head)

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        header = _header(path)
        if not header.seen_calendar:
            raise ImportFailed(path.name, "is not an iCalendar file (no BEGIN:VCALENDAR)",
                               hint="export the calendar again as .ics")
        _register_timezones(header)
        reader = _Reader(header, path, context)
        versions: list[_Version] = []
        unreadable = 0
        for block in _components(path, "VEVENT"):
            try:
                event = Event.from_ical(block)
                record = reader.record(event)
                revision = _revision(event)
            except (ValueError, TypeError, AttributeError, KeyError):
                record = None
            if record is None:
                unreadable += 1
                continue
            versions.append(_Version(record, revision))
        if not versions:
            raise ImportFailed(path.name, "is a calendar without readable events",
                               hint="export the calendar again as .ics" if unreadable else "nothing to import")
        records, earlier = _latest_versions(versions)
        records.sort(key=lambda m: m.time)  # stable: same-time events keep the file's order
        organizers = tuple(dict.fromkeys(m.sender for m in records))
        conversation = Conversation(platform="calendar", key=f"calendar:{reader.calendar}",
                                    name=f"Calendar: {reader.calendar}", participants=organizers)
        note = (f"{counted(unreadable, 'event')} could not be read and {'was' if unreadable == 1 else 'were'} skipped"
            if unreadable else "")
        document = SourceDocument(kind="calendar", name=conversation.name, identity=f"file:{file_sha256(path)}",
                                  conversation=conversation, messages=iter(records), note=note)
        if unreadable:  # counted in the import's summary too: nothing disappears untold
            document.skipped["events without a readable date"] = unreadable
        if earlier:
            document.skipped["earlier versions of an event"] = earlier
        yield document
