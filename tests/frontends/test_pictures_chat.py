"""Pictures in the chat, through the real python-telegram-bot against the fake Bot API (and
discord.py against the fake Discord): the weekly report carries its picture, /timeline,
/people and /report send one, shown above the text that says the same in words."""

from __future__ import annotations

import struct
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from tests.frontends.conftest import OWNER, running_bot, runner_for, telegram_settings
from tests.frontends.fakes import scripted
from tests.frontends.test_discord import OWNER as DISCORD_OWNER
from tests.frontends.test_discord import discord_api, discord_settings, running  # noqa: F401 (fixture)
from tests.pictures.store import fill

LISBON = ZoneInfo("Europe/Lisbon")


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


def filled(memory, **options):
    """The real facets but a scripted model, its "now" the Sunday that ends the fixture's week."""
    return scripted(memory, clock=lambda: datetime(2024, 3, 31, 20, 0, tzinfo=LISBON), **options)


async def command(telegram_api, text: str) -> None:
    await telegram_api.push(user=OWNER, text=text,
                            entities=[{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}])


def photo_then_text(telegram_api) -> tuple[bytes, str, list[str]]:
    """The photo sent, its caption, and the texts sent after it (none may come before it)."""
    methods = [c.method for c in telegram_api.calls if c.method in ("sendPhoto", "sendMessage")]
    assert methods[0] == "sendPhoto", methods
    photo = telegram_api.sent("sendPhoto")[0]
    return photo.files["photo"], photo.params.get("caption", ""), telegram_api.texts()


async def test_the_weekly_report_arrives_with_the_week_at_a_glance(tmp_path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url, report_day="sun", report_time="18:00")
    clock = lambda: datetime(2024, 3, 31, 18, 0, tzinfo=LISBON)  # noqa: E731 (the Sunday that ends the week)
    async with running_bot(settings, service_factory=filled) as (frontend, facets):
        await fill(facets.admin)
        runner = runner_for(settings, frontend, facets, clock=clock,
                              grace=timedelta(hours=1))
        assert (await runner.tick())["weekly_report"] == "sent"
    png, caption, texts = photo_then_text(telegram_api)
    assert png_size(png) == (1080, 1350)
    assert caption.startswith("Your week at a glance, 25–31 Mar 2024.\nMessages: 16, 5 of them yours")
    assert "Most messages from: Maya Costa (4), Mãe (4)" in caption
    assert texts == ["Your week (7 days): mostly ferries."]


async def test_a_failing_picture_never_costs_the_owner_the_report(tmp_path, telegram_api):
    class Broken:
        """Pictures whose drawing fails."""

        async def make(self, kind, **bounds):
            raise RuntimeError("a bug in the drawing")

    def broken(memory, **options):
        parts = scripted(memory, **options)
        parts.pictures = Broken()
        return parts

    settings = telegram_settings(tmp_path / "data", telegram_api.url, report_day="sun", report_time="18:00")
    clock = lambda: datetime(2024, 3, 31, 18, 0, tzinfo=LISBON)  # noqa: E731
    async with running_bot(settings, service_factory=broken) as (frontend, facets):
        runner = runner_for(settings, frontend, facets, clock=clock,
                              grace=timedelta(hours=1))
        assert (await runner.tick())["weekly_report"] == "sent"
    assert not telegram_api.sent("sendPhoto")
    assert telegram_api.texts() == ["Your week (7 days): mostly ferries."]


async def test_timeline_sends_the_picture_then_the_cited_events(tmp_path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url)
    async with running_bot(settings) as (_, facets):
        await fill(facets.admin)
        await command(telegram_api, "/timeline")
        await telegram_api.wait_for(lambda: telegram_api.texts())
    png, caption, texts = photo_then_text(telegram_api)
    assert png_size(png) == (1080, 1350)
    assert caption.startswith("Timeline of 9 events, 2012–2024, coloured by kind")
    listing = texts[0].splitlines()
    assert listing[0].startswith("Timeline, 2012–2024: 9 events")
    assert "1. 2012 · Started at the university in Coimbra (work) — doc1:0-10" in listing
    assert "9. 2024-03-09 · Ferry to Tavira (other) — doc1:0-10" in listing


async def test_timeline_with_no_events_says_so_without_a_picture(tmp_path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url)
    async with running_bot(settings):
        await command(telegram_api, "/timeline")
        await telegram_api.wait_for(lambda: telegram_api.texts())
    assert not telegram_api.sent("sendPhoto")
    assert "no dated events" in telegram_api.texts()[0]


async def test_people_and_report_send_their_pictures(tmp_path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url)
    async with running_bot(settings, service_factory=filled) as (_, facets):
        await fill(facets.admin)
        await command(telegram_api, "/people")
        await telegram_api.wait_for(lambda: telegram_api.texts())
        await command(telegram_api, "/report")
        await telegram_api.wait_for(lambda: len(telegram_api.texts()) >= 2)
    people, report = telegram_api.sent("sendPhoto")
    assert people.params["caption"].startswith("Messages per month, 10 Jan 2019 – 1 Apr 2024")
    assert telegram_api.texts()[0].splitlines()[1].startswith("Maya Costa: 205 messages")
    assert report.params["caption"].startswith("The week of")
    assert telegram_api.texts()[1].startswith("Your week (7 days): mostly ferries.\n\nYour week at a glance")


async def test_discord_shows_the_picture_with_its_description_above_the_list(tmp_path, discord_api):  # noqa: F811
    async with running(discord_settings(tmp_path), discord_api) as (_, facets):
        await fill(facets.admin)
        await discord_api.slash(DISCORD_OWNER, "timeline")
        await discord_api.wait_for(lambda: any("Started at the university" in t for t in discord_api.texts()))
    with_file = [s for s in discord_api.replies() if s.files]
    assert len(with_file) == 1 and list(with_file[0].files) == ["timeline.png"]
    assert png_size(with_file[0].files["timeline.png"]) == (1080, 1350)
    assert with_file[0].body["attachments"][0]["description"].startswith("Timeline of 9 events")
    replies = discord_api.replies()
    assert replies.index(with_file[0]) < next(i for i, s in enumerate(replies) if "Started at" in s.content)
