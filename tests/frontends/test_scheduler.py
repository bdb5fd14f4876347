"""Scheduled prompts through the real Telegram adapter: at their time, never in quiet hours, once."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.scheduler import running_scheduler
from core.schedule.jobs import latest_slot
from tests.frontends.conftest import OWNER, running_bot, runner_for, telegram_settings
from tests.frontends.fakes import question, scripted

LISBON = ZoneInfo("Europe/Lisbon")


class Clock:
    def __init__(self, *args: int) -> None:
        self.now = datetime(*args, tzinfo=LISBON)

    def __call__(self) -> datetime:
        return self.now


def biographer(memory, **options):
    return scripted(memory, **options, questions=[question(7, "Where did you live in 2015?"),
                                                 question(8, "Who taught you to swim?")])


async def test_prompt_at_its_time_reply_is_the_answer_and_no_duplicate_after_restart(tmp_path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url, question_time="19:00")
    clock = Clock(2024, 5, 6, 18, 30)
    async with running_bot(settings, service_factory=biographer) as (frontend, facets):
        runner = runner_for(settings, frontend, facets, clock=clock)
        assert (await runner.tick())["question_prompt"] == "missed"  # yesterday's, long past the grace
        assert not telegram_api.texts()
        clock.now = clock.now.replace(hour=19, minute=0)
        assert (await runner.tick())["question_prompt"] == "sent"
        prompt = telegram_api.sent()[0]
        assert "Where did you live in 2015?" in prompt.params["text"]
        assert facets.admin.biographer.asked == [(7, clock.now)]
        prompt_message = {"message_id": 1001, "date": 0, "chat": {"id": OWNER["id"], "type": "private"},
                          "from": {"id": 999000, "is_bot": True, "first_name": "Biographer"},
                          "text": prompt.params["text"]}
        await telegram_api.push(user=OWNER, text="In Porto, near the river", reply_to_message=prompt_message)
        await telegram_api.wait_for(lambda: len(telegram_api.texts()) >= 2)
        assert facets.admin.biographer.answered == [(7, "In Porto, near the river")]
        assert telegram_api.texts()[1] == "Thank you, I added that to your story."
    # restart five minutes later: the 19:00 slot is settled in the store
    clock.now += timedelta(minutes=5)
    async with running_bot(settings, service_factory=biographer) as (frontend, facets):
        assert await runner_for(settings, frontend, facets, clock=clock).tick() == {}
    assert len(telegram_api.sent()) == 2


async def test_never_in_quiet_hours_and_paused_means_silent(tmp_path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url, question_time="23:00",
                                 quiet_hours="22:00-08:00")
    clock = Clock(2024, 5, 6, 23, 0)
    async with running_bot(settings, service_factory=biographer) as (frontend, facets):
        runner = runner_for(settings, frontend, facets, clock=clock)
        assert (await runner.tick())["question_prompt"] == "quiet hours"
        await facets.admin.preferences.set("quiet_hours", "off")
        await facets.admin.preferences.set_paused(True)
        clock.now += timedelta(days=1)
        assert (await runner.tick())["question_prompt"] == "paused"
    assert not telegram_api.texts()


async def test_missed_slot_made_up_once_on_start_within_grace(tmp_path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url, question_time="19:00",
                                 schedule_grace_hours=2)
    clock = Clock(2024, 5, 6, 20, 30)  # the process was down at 19:00
    async with running_bot(settings, service_factory=biographer) as (frontend, facets):
        runner = runner_for(settings, frontend, facets, clock=clock)
        async with running_scheduler(runner, every_seconds=0.2):
            await telegram_api.wait_for(lambda: telegram_api.texts())
            await telegram_api.wait_for(lambda: len(telegram_api.calls) > 0)
        assert (await runner.tick()) == {}
    assert len(telegram_api.texts()) == 1


async def test_daily_limit_counts_prompts_of_the_local_day(tmp_path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url, question_time="09:00", questions_per_day=2)
    clock = Clock(2024, 5, 6, 9, 0)
    async with running_bot(settings, service_factory=biographer) as (frontend, facets):
        runner = runner_for(settings, frontend, facets, clock=clock)
        assert (await runner.tick())["question_prompt"] == "sent"
        clock.now = clock.now.replace(hour=12)
        assert (await runner.tick())["question_prompt"] == "sent"
        clock.now += timedelta(days=1)
        clock.now = clock.now.replace(hour=9)
        assert (await runner.tick())["question_prompt"] == "nothing open"


async def test_weekly_report_and_backup_keep_the_last_n(tmp_path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url, report_day="mon", report_time="18:00",
                                 backup_keep=2)
    clock = Clock(2024, 5, 6, 18, 0)  # a Monday
    async with running_bot(settings, service_factory=biographer) as (frontend, facets):
        runner = runner_for(settings, frontend, facets, clock=clock, grace=timedelta(days=1))
        outcomes = await runner.tick()
        assert outcomes["weekly_report"] == "sent"
        assert outcomes["backup"].startswith("saved ")
        for day in (1, 2, 3):
            clock.now += timedelta(days=1)
            await runner.tick()
    assert any("Your week (7 days)" in t for t in telegram_api.texts())
    backups = sorted((tmp_path / "data" / "backups").glob("biographer-*"))
    assert [b.name for b in backups] == ["biographer-20240508-180000", "biographer-20240509-180000"]
    import sqlean

    copy = sqlean.connect(str(backups[-1] / "biographer.sqlite3"))
    assert copy.execute("SELECT COUNT(*) FROM _migrations").fetchone()[0] >= 2
    copy.close()


def test_latest_slot_on_a_weekday():
    now = datetime(2024, 5, 8, 10, 0, tzinfo=LISBON)  # a Wednesday
    from datetime import time

    assert latest_slot(now, [time(18, 0)], weekday=6) == datetime(2024, 5, 5, 18, 0, tzinfo=LISBON)
    assert latest_slot(now, [time(9, 0), time(12, 0)]) == datetime(2024, 5, 8, 9, 0, tzinfo=LISBON)
