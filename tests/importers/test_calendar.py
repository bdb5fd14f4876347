"""Calendars (.ics): each event a dated record; real calendars from icalendar's test data."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core.errors import ImportFailed
from core.importers.base import ImportContext
from tests.importers.conftest import parse_all

DATA = Path(__file__).parent / "data" / "calendar"


def test_google_calendar_export(context: ImportContext) -> None:
    [(document, [event])] = parse_all(DATA / "alarm_google_future.ics", context)
    assert document.name == "Calendar: Nicco Kunzmann" and document.kind == "calendar"
    assert event.time == datetime(2024, 10, 4, 18, 15, tzinfo=timezone.utc)
    assert event.sender == "Nicco Kunzmann"  # no organizer: the calendar's own event
    assert event.text == "event with alarms · 2024-10-04 18:15–19:00 UTC"
    assert event.platform_id.startswith("79fs7pkqvht9m5igs0vjv1sfra@google.com|")


def test_all_day_events_in_time_order(context: ImportContext) -> None:
    [(document, events)] = parse_all(DATA / "example.ics", context)
    assert [e.text.split(" · ")[0] for e in events] == ["New Year's Day", "Orthodox Christmas",
                                                        "International Women's Day"]
    christmas = events[1]
    assert christmas.text == "Orthodox Christmas · all day 2022-01-07 · at Russia\nIt is Christmas again!"
    assert christmas.time.date().isoformat() == "2022-01-07"


def test_an_all_day_event_stays_on_its_day_in_the_owners_zone(tmp_path: Path) -> None:
    """A calendar that names its zone (Google's X-WR-TIMEZONE) east of the owner's: the day of
    an all-day event is the owner's day, not the hour before it."""
    text = (DATA / "example.ics").read_bytes().decode("utf-8")
    assert "X-WR-TIMEZONE:Etc/GMT\r\n" in text
    path = tmp_path / "berlin.ics"
    path.write_bytes(text.replace("X-WR-TIMEZONE:Etc/GMT", "X-WR-TIMEZONE:Europe/Berlin").encode("utf-8"))
    owner_in_utc = ImportContext(timezone=timezone.utc, owner_aliases=frozenset())
    [(_, events)] = parse_all(path, owner_in_utc)
    christmas = events[1]
    assert "all day 2022-01-07" in christmas.text
    assert christmas.time == datetime(2022, 1, 7, tzinfo=timezone.utc)
    # its key is the one an import before this change wrote (the calendar's midnight): no duplicate
    assert christmas.platform_id.endswith("|2022-01-07T00:00:00+01:00")


def test_repeating_event_keeps_its_rule(context: ImportContext) -> None:
    [(_, [event])] = parse_all(DATA / "issue_1081_event_with_rrule.ics", context)
    assert event.text == "Test Event · 2025-01-01 10:00 UTC · repeats FREQ=DAILY;COUNT=10"


def test_organizer_attendees_and_time_zone(tmp_path: Path, context: ImportContext) -> None:
    """The Google export with an organizer, attendees and a TZID added (as Google writes them)."""
    text = (DATA / "alarm_google_future.ics").read_bytes().decode("utf-8")
    text = text.replace("DTSTART:20241004T181500Z\r\nDTEND:20241004T190000Z\r\n",
                        "DTSTART;TZID=Europe/Berlin:20241004T201500\r\nDTEND;TZID=Europe/Berlin:20241004T210000\r\n"
                        "ORGANIZER;CN=Mara Lind:mailto:mara@example.com\r\n"
                        "ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;CN=Teo Ramos;X-NUM-GUEST\r\n"
                        " S=0:mailto:teo@example.com\r\n"
                        "ATTENDEE;PARTSTAT=DECLINED;CN=Ana:mailto:ana@example.com\r\n"
                        "LOCATION:Café A Brasileira\\, Lisboa\r\n")
    path = tmp_path / "mara.ics"
    path.write_bytes(text.encode("utf-8"))
    [(_, [event])] = parse_all(path, context)
    assert event.sender == "Mara Lind" and event.sender_id == "mara@example.com" and event.is_owner
    assert event.time == datetime(2024, 10, 4, 20, 15, tzinfo=ZoneInfo("Europe/Berlin"))
    assert event.text == ("event with alarms · 2024-10-04 20:15–21:00 Europe/Berlin · at Café A Brasileira, Lisboa"
                          " · with Teo Ramos · declined by Ana")


def test_not_a_calendar(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "broken.ics"
    shutil.copy(DATA / "example.ics", path)
    path.write_text(path.read_text(encoding="utf-8").replace("BEGIN:VCALENDAR", "BEGIN:NOTHING"), encoding="utf-8")
    with pytest.raises(ImportFailed, match="broken.ics"):
        parse_all(path, context)


def test_an_event_without_a_readable_date_is_counted_in_the_summary(tmp_path: Path) -> None:
    """node-ical's multi-event-basic.ics (Apache-2.0, in the conformance corpus): the event
    "Foobar" has DTSTART;VALUE=DATE:Next Year; the other 8 are kept, that one counted."""
    source = Path(__file__).parents[1] / "conformance" / "files" / "ics" / "jens-maus-node-ical" / "multi-event-basic.ics"
    path = tmp_path / "multi.ics"
    path.write_bytes(source.read_bytes())
    [(document, messages)] = parse_all(path, ImportContext())
    assert len(messages) == 8 and not [m for m in messages if "Foobar" in m.text]
    assert document.skipped == {"events without a readable date": 1}


NODE_ICAL = Path(__file__).parents[1] / "conformance" / "files" / "ics" / "jens-maus-node-ical"


def test_two_events_a_feed_wrote_under_one_uid_are_both_kept(tmp_path: Path) -> None:
    """node-ical's tv-show-episode.ics (Apache-2.0): tvcountdown.com built UIDs from time and
    channel, so two episodes on one evening share UID 20110421T220000Z-83, with the same DTSTAMP
    and no SEQUENCE. Nothing says one replaces the other: 27 VEVENTs, 27 records, and importing
    the file again adds none (each keeps an id of its own)."""
    path = tmp_path / "tv.ics"
    path.write_bytes((NODE_ICAL / "tv-show-episode.ics").read_bytes())
    [(document, messages)] = parse_all(path, ImportContext())
    assert len(messages) == path.read_text(encoding="utf-8").count("BEGIN:VEVENT") == 27
    rock = [m for m in messages if m.text.startswith("30 Rock - S05E2") and "100th Episode" in m.text]
    assert sorted(m.text.split(" - ")[1] for m in rock) == ["S05E20", "S05E21"]
    assert len({m.platform_id for m in messages}) == 27 and not document.skipped


def test_a_later_version_of_an_event_replaces_the_earlier_one(tmp_path: Path) -> None:
    """The real calendar above with one episode written again as a rescheduling organizer
    sends it (RFC 5546 §2.1.5: same UID, SEQUENCE raised, a new DTSTART): the highest SEQUENCE
    is the event, the earlier version is counted, not kept beside it."""
    text = (NODE_ICAL / "tv-show-episode.ics").read_text(encoding="utf-8")
    start = text.index("BEGIN:VEVENT\nUID:20110505T220000Z-83")
    original = text[start: text.index("END:VEVENT\n", start) + len("END:VEVENT\n")]
    moved = original.replace("DATE-TIME:20110505", "DATE-TIME:20110506").replace(  # start, end
        "END:VEVENT", "SEQUENCE:1\nEND:VEVENT")
    path = tmp_path / "tv.ics"
    path.write_text(text.replace("END:VCALENDAR", moved + "END:VCALENDAR"), encoding="utf-8")
    [(document, messages)] = parse_all(path, ImportContext())
    respawn = [m for m in messages if "Respawn" in m.text]
    assert [m.text.split(" · ")[1] for m in respawn] == ["2011-05-06 22:00–22:30 US/Eastern"]
    assert len(messages) == 27 and document.skipped == {"earlier versions of an event": 1}
