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
