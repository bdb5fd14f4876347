"""The pictures from a fixture store: the figures behind them and their captions match the data,
they are phone-sized PNGs, no message text gets in, and they look as the reference images do."""

from __future__ import annotations

import io
import struct
from collections import Counter
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from core.errors import UserFacingError
from core.pictures.gather import Pictures
from tests.pictures.store import (UTC_MESSAGES, EXPECTED_DAYS, EXPECTED_KINDS, EXPECTED_MENTIONS, EXPECTED_SENDERS,
                                  LISBON, SECRET, WEEK_FIRST, WEEK_LAST, WEEK_MESSAGES, history_messages_from,
                                  week_bounds)

REFERENCE = Path(__file__).parent / "reference"


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    return struct.unpack(">II", png[16:24])


def assert_phone_png(png: bytes) -> None:
    assert png_size(png) == (1080, 1350)  # 4:5 portrait: a phone shows it full width
    assert 20_000 < len(png) < 600_000


# ---------------------------------------------------------------- the week

async def test_the_week_counts_each_message_on_its_local_day_across_the_clock_change(pictured):
    since, until = week_bounds()
    data = await pictured.pictures.week_data(since=since, until=until)
    assert (data.first, data.last) == (WEEK_FIRST, WEEK_LAST)
    assert {d.day.day: (d.yours, d.others) for d in data.days} == EXPECTED_DAYS
    assert [(n.name, n.count) for n in data.senders] == EXPECTED_SENDERS  # "Maya" counted as Maya Costa
    assert [(n.name, n.count) for n in data.mentioned] == EXPECTED_MENTIONS  # never the owner herself
    assert [(n.name, n.count) for n in data.sources] == [("markdown", 1), ("whatsapp", 1)]
    assert (data.questions_answered, data.questions_open) == (2, 2)


async def test_the_week_picture_and_its_caption_say_the_same(pictured):
    since, until = week_bounds()
    picture = await pictured.pictures.make("week", since=since, until=until)
    assert_phone_png(picture.png)
    assert not picture.empty and picture.name == "week-2024-03-31.png"
    lines = picture.caption.splitlines()
    assert lines[0] == "Your week at a glance, 25–31 Mar 2024."
    assert lines[1] == ("Messages: 16, 5 of them yours; busiest Wednesday 27 (4). "
                        "Per day: Mon 25: 3, Tue 26: 3, Wed 27: 4, Thu 28: 1, Fri 29: 2, Sat 30: 1, Sun 31: 2.")
    assert lines[2] == "Most messages from: Maya Costa (4), Mãe (4), Teo Ramos (2), Σοφία Παππά (1)."
    assert lines[3] == ("Came up most (messages and entries naming them): Maya Costa (5), Teo Ramos (3), "
                        "Will Stone (2), Σοφία Παππά (1).")
    assert lines[4:] == ["Sources added: 2 (1 markdown, 1 whatsapp).", "Open questions answered: 2; 2 still open."]
    assert len(picture.caption) <= 1024  # fits under a Telegram photo
    assert picture.alt == ("The week of 25–31 Mar 2024 at a glance: 16 messages, most from Maya Costa; "
                           "2 sources added; 2 open questions answered.")


async def test_no_message_text_reaches_a_picture(pictured):
    since, until = week_bounds()
    said = [text for *_, text in WEEK_MESSAGES] + [text for _, _, text in UTC_MESSAGES]
    for kind, bounds in (("week", dict(since=since, until=until)), ("people", {}), ("timeline", {})):
        picture = await pictured.pictures.make(kind, **bounds)
        words = picture.caption + picture.alt
        assert SECRET not in words
        assert not [text for text in said if text in words]
        assert "Running later" not in words and "river" not in words


@pytest.mark.parametrize("zone", ["Europe/Lisbon", "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns"])
async def test_days_are_the_owner_s_local_days_in_any_zone(pictured, zone):
    """Zones off whole hours (+5:30, +5:45, -2:30) too: each message on the day its local time says."""
    tz = ZoneInfo(zone)
    pictures = Pictures(pictured.memory.conn, zone=tz, owner_names={"ana"}, timeline=pictured.biographer.timeline,
                        clock=lambda: datetime(2024, 4, 1, tzinfo=tz))
    data = await pictures.week_data(since=datetime(2024, 3, 25, tzinfo=tz), until=datetime(2024, 3, 31, tzinfo=tz))
    moments = [(datetime(2024, 3, day, hour, 30, tzinfo=LISBON), sender == "Ana") for day, hour, sender, _ in
               WEEK_MESSAGES] + [(moment, False) for moment, *_ in UTC_MESSAGES]
    expected = Counter()
    for moment, mine in moments:
        expected[(moment.astimezone(tz).date(), mine)] += 1
    assert {(d.day, True): d.yours for d in data.days} | {(d.day, False): d.others for d in data.days} == \
        {(WEEK_FIRST + timedelta(days=i), mine): expected[(WEEK_FIRST + timedelta(days=i), mine)]
         for i in range(7) for mine in (True, False)}


async def test_the_week_ends_today_by_default_and_a_month_is_the_most(pictured):
    pictures = Pictures(pictured.memory.conn, zone=LISBON, owner_names={"ana"}, timeline=pictured.biographer.timeline,
                        clock=lambda: datetime(2024, 3, 31, 20, tzinfo=LISBON))
    data = await pictures.week_data()
    assert (data.first, data.last) == (WEEK_FIRST, WEEK_LAST)
    with pytest.raises(UserFacingError, match="at most 31 days"):
        await pictured.pictures.make("week", since=datetime(2024, 1, 1, tzinfo=LISBON),
                               until=datetime(2024, 3, 1, tzinfo=LISBON))
    with pytest.raises(UserFacingError, match="ends before it starts"):
        await pictured.pictures.make("people", since=datetime(2024, 3, 1, tzinfo=LISBON),
                               until=datetime(2024, 1, 1, tzinfo=LISBON))
    with pytest.raises(UserFacingError, match="no picture called 'mood'"):
        await pictured.pictures.make("mood")


# ---------------------------------------------------------------- the timeline

async def test_the_timeline_lists_every_cited_event_with_its_kind(pictured):
    picture = await pictured.pictures.make("timeline")
    assert_phone_png(picture.png)
    lines = picture.caption.splitlines()
    assert lines[0] == "Timeline, 2012–2024: 9 events (1 health, 2 people, 2 home, 3 work, 1 other)."
    events = lines[2:]
    assert len(events) == len(EXPECTED_KINDS)  # the impossible date is left out, nothing else
    for line in events:
        number, rest = line.split(". ", 1)
        title, kind = rest.split(" · ", 1)[1].rsplit(" — ", 1)[0].rsplit(" (", 1)
        assert EXPECTED_KINDS[title] == kind.rstrip(")")
        assert line.endswith("— doc1:0-10")
    assert events[0] == "1. 2012 · Started at the university in Coimbra (work) — doc1:0-10"
    assert "coloured by kind" in picture.alt


async def test_the_timeline_of_a_period_numbers_its_own_events(pictured):
    picture = await pictured.pictures.make("timeline", since=datetime(2016, 6, 1, tzinfo=LISBON),
                                     until=datetime(2019, 12, 31, tzinfo=LISBON))
    events = picture.caption.splitlines()[2:]
    # "2016" names the whole year, so it overlaps a period starting in June
    assert [e.split(" — ")[0] for e in events] == [
        "1. 2016 · Moved to Porto (home)", "2. 2017-03-14 · Broke my knee skiing (health)",
        "3. 2018-05 · Promoted to head baker (work)", "4. 2019-07-20 · Married Maya (people)"]


# ---------------------------------------------------------------- who the owner talks to

async def test_who_you_talk_to_counts_every_message_of_the_top_people(pictured):
    picture = await pictured.pictures.make("people")
    assert_phone_png(picture.png)
    lines = picture.caption.splitlines()
    assert lines[0] == ("Who you talk to, 10 Jan 2019 – 1 Apr 2024: messages per month from the 5 people who "
                        "wrote most.")
    # history + the week (+ Maya's message past midnight on 1 April, Teo's late on 24 March)
    maya = history_messages_from("Maya Costa") + 4 + 1
    teo = history_messages_from("Teo Ramos") + 2 + 1
    assert lines[1].startswith(f"Maya Costa: {maya} messages, from Jan 2019 to Apr 2024; most in ")
    assert lines[2].startswith(f"Teo Ramos: {teo} messages, from Jan 2021 to Mar 2024")
    assert lines[3].startswith(f"Mãe: {history_messages_from('Mãe') + 4} messages")
    assert lines[4] == "Will Stone: 12 messages, from Jan 2023 to Dec 2023; most in Dec 2023 (1)."
    assert lines[5] == "Σοφία Παππά: 1 message, all in Mar 2024; most in Mar 2024 (1)."
    assert "Ana" not in picture.caption  # the owner is who they talk to, not one of them


async def test_who_you_talk_to_in_a_period(pictured):
    data = await pictured.pictures.contact_data(since=datetime(2023, 1, 1, tzinfo=LISBON),
                                                until=datetime(2024, 3, 31, tzinfo=LISBON))
    assert data.unit == "month" and data.bins[0] == date(2023, 1, 1) and data.bins[-1] == date(2024, 3, 1)
    totals = {s.name: s.total for s in data.people}
    assert totals == {"Maya Costa": history_messages_from("Maya Costa", since_year=2023) + 4,
                      "Teo Ramos": history_messages_from("Teo Ramos", since_year=2023) + 2 + 1,
                      "Mãe": 12 + 4, "Will Stone": 12, "Σοφία Παππά": 1}
    assert data.everyone_else == 0


# ---------------------------------------------------------------- an empty store

async def test_an_empty_store_makes_empty_pictures_that_say_so(tmp_path):
    from core.service.admin import AdminFacet
    from core.service.parts import Parts
    from tests.core.helpers import memory_at
    from tests.fakes.embedder import HashEmbedder

    async with memory_at(tmp_path / "empty", HashEmbedder()) as memory:
        service = AdminFacet(Parts(memory=memory))
        for kind in ("week", "timeline", "people"):
            picture = await service.pictures.make(kind)
            assert picture.empty and png_size(picture.png) == (1080, 1350)
        assert "none in this period" in (await service.pictures.make("week")).caption
        assert "no dated events" in (await service.pictures.make("timeline")).caption


# ---------------------------------------------------------------- the look

def _pixels(png: bytes) -> np.ndarray:
    from matplotlib.image import imread

    return imread(io.BytesIO(png), format="png")[..., :3]


@pytest.mark.parametrize("kind", ["week", "timeline", "people"])
async def test_pictures_look_like_their_reference_images(pictured, kind):
    """tests/pictures/reference/ holds one image per picture, looked at in review; a change to the
    drawing shows up here. After a deliberate change: `python -m tests.pictures.make_references`,
    then look at the new images before committing them."""
    since, until = week_bounds()
    picture = await pictured.pictures.make(kind, **(dict(since=since, until=until) if kind == "week" else {}))
    reference = (REFERENCE / f"{kind}.png").read_bytes()
    difference = np.abs(_pixels(picture.png) - _pixels(reference))
    assert difference.shape == (1350, 1080, 3)
    # anti-aliasing may differ in a few pixels between FreeType builds; a moved label does not pass
    assert float(np.sqrt((difference ** 2).mean())) * 255 < 3.0
