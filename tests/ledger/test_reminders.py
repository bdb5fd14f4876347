"""Reminders from the scheduler through the real Telegram adapter: at the owner's local time, once,
never twice (a restart included), not in quiet hours or while paused, with a drafted follow-up for
what others owe."""

from __future__ import annotations

from datetime import date, timedelta

from core.schedule.jobs import ledger_reminders
from core.providers.openai_chat import OpenAIChat
from tests.frontends.conftest import runner_for
from tests.ledger.harness import Clock, lena_on_telegram, lena_service, lena_settings


async def test_a_due_promise_is_reminded_once_at_the_local_time_also_after_a_restart(tmp_path, telegram_api):
    settings = lena_settings(tmp_path / "data", telegram_api.url, ledger_reminder_time="09:00")
    clock = Clock(2024, 5, 10, 8, 59)  # Friday; Lisbon is UTC+1 in May
    async with lena_on_telegram(settings, clock=clock) as (frontend, facets):
        item, _ = await facets.admin.ledger.add("commitment", "Send Ana the deck", person="Ana",
                                                due=date(2024, 5, 10), new_person=True)
        runner = runner_for(settings, frontend, facets, clock=clock)
        assert (await runner.tick())["ledger_reminders"] == "missed"  # yesterday's slot
        assert not telegram_api.texts()
        clock.now = clock.now.replace(minute=0, hour=9)
        assert (await runner.tick())["ledger_reminders"] == "sent 1"
        clock.now += timedelta(minutes=1)
        assert "ledger_reminders" not in await runner.tick()
    [reminder] = telegram_api.texts()
    assert "Your promises due:" in reminder and f"#{item.id} Send Ana the deck · to Ana" in reminder
    assert "(today)" in reminder and "/todo" in reminder

    clock.now += timedelta(minutes=5)  # restart: the slot and the reminder are in the store
    async with lena_on_telegram(settings, clock=clock) as (frontend, facets):
        runner = runner_for(settings, frontend, facets, clock=clock)
        assert await runner.tick() == {}
        clock.now += timedelta(days=1)  # overdue now, but reminded for this due date already
        assert (await runner.tick())["ledger_reminders"] == "nothing due"
        await facets.admin.ledger.reschedule(item.id, date(2024, 5, 13))  # moved to Monday: reminded then
        clock.now += timedelta(days=2)
        assert (await runner.tick())["ledger_reminders"] == "sent 1"
        await facets.admin.ledger.set_status(item.id, "done")
        clock.now += timedelta(days=1)
        assert (await runner.tick())["ledger_reminders"] == "nothing due"
    assert len(telegram_api.texts()) == 2


async def test_quiet_hours_and_pause_hold_reminders_back_without_losing_them(tmp_path, telegram_api):
    settings = lena_settings(tmp_path / "data", telegram_api.url, ledger_reminder_time="07:30",
                             quiet_hours="22:00-08:00")
    clock = Clock(2024, 5, 10, 7, 30)
    async with lena_on_telegram(settings, clock=clock) as (frontend, facets):
        await facets.admin.ledger.add("commitment", "Call the plumber", person="Rui", due=date(2024, 5, 10),
                                      new_person=True)
        runner = runner_for(settings, frontend, facets, clock=clock)
        assert (await runner.tick())["ledger_reminders"] == "quiet hours"
        await facets.admin.preferences.set("quiet_hours", "off")
        await facets.admin.preferences.set_paused(True)
        clock.now += timedelta(days=1)
        assert (await runner.tick())["ledger_reminders"] == "paused"
        await facets.admin.preferences.set_paused(False)
        clock.now += timedelta(days=1)
        assert (await runner.tick())["ledger_reminders"] == "sent 1"
    [reminder] = telegram_api.texts()
    assert "overdue since Fri 10 May 2024" in reminder


async def test_owed_past_its_date_comes_with_a_follow_up_to_copy(tmp_path, telegram_api, fake_openai):
    settings = lena_settings(tmp_path / "data", telegram_api.url)
    clock = Clock(2024, 5, 10, 9, 0)
    llm = OpenAIChat(base_url=fake_openai.base_url, api_key="k", models={"chat": "fake"}, max_retries=0)
    try:
        async with lena_on_telegram(settings, clock=clock, llm=llm) as (frontend, facets):
            await facets.admin.ledger.add("owed", "Return the photos", person="Rui", due=date(2024, 5, 9),
                                          new_person=True)
            await facets.admin.ledger.add("owed", "Pay back lunch", person="Rui", due=date(2024, 5, 10))  # not yet
            await facets.admin.ledger.add("owed", "The old camera", person="Rui", due=date(2024, 3, 1))  # history
            fake_openai.reply("Olá Rui! Ainda tens as fotos? Sem pressa 🙂")
            runner = runner_for(settings, frontend, facets, clock=clock)
            assert (await runner.tick())["ledger_reminders"] == "sent 1"
    finally:
        await llm.close()
    [reminder] = telegram_api.texts()
    assert "Owed to you, past its date:" in reminder and "Return the photos · from Rui" in reminder
    assert "A message you could send Rui:\n\nOlá Rui! Ainda tens as fotos? Sem pressa 🙂" in reminder
    assert "Pay back lunch" not in reminder and "camera" not in reminder
    draft_request = fake_openai.requests[0]["messages"]
    assert "Return the photos" in draft_request[1]["content"] and "tools" not in fake_openai.requests[0]
    assert len(telegram_api.sent()) == 1 and telegram_api.sent()[0].params["chat_id"] == "4242"  # only the owner


class FailingNotifier:
    async def send_text(self, text: str) -> None:
        raise ConnectionError("Telegram is down")


async def test_a_reminder_that_could_not_be_sent_is_sent_at_the_next_slot(tmp_path, settings):
    from core.schedule.preferences import Preferences

    preferences = Preferences(timezone="Europe/Lisbon", question_time="19:00", questions_per_day=1,
                              quiet_hours="off", report_day="sun", report_time="18:00")
    clock = Clock(2024, 5, 10, 9, 0)
    async with lena_service(settings, clock=clock) as facets:
        await facets.admin.ledger.add("commitment", "Send Ana the deck", person="Ana", due=date(2024, 5, 10),
                                      new_person=True)
        try:
            await ledger_reminders(facets.schedule, preferences=preferences, notifier=FailingNotifier(), now=clock.now)
        except ConnectionError:
            pass
        batch = await facets.schedule.ledger_reminders(today=date(2024, 5, 11))
        assert len(batch) == 1 and "Send Ana the deck" in batch.text  # a template draft needs no model
