"""The ledger's scheduled work: conversations read within a minute of an import and nightly, and the
weekly report's promises."""

from __future__ import annotations

from datetime import timedelta

from bot.scheduler import build_runner
from core.biographer.gate import AgentGate
from tests.ledger.conftest import item, locator, proposals, whatsapp


class Quiet:
    """A Notifier that keeps what it was given."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.answers: list = []

    async def send_text(self, text: str) -> None:
        self.texts.append(text)

    async def send_answer(self, answer) -> None:
        self.answers.append(answer)

    async def send_question(self, question_id: str, text: str, *, sent_at) -> None:
        self.texts.append(text)


def runner_for(schedule, ledger_settings, clock, **overrides):
    return build_runner(ledger_settings, schedule, AgentGate(), Quiet(), clock=clock, **overrides)


async def test_an_import_is_read_into_the_ledger_at_the_next_tick(schedule, service, fake_openai, tmp_path, ledger_settings,
                                                                 clock):
    runner = runner_for(schedule, ledger_settings, clock)
    assert "ledger_catch_up" not in await runner.tick()  # nothing to read
    await service.memory.ingest([whatsapp(tmp_path, "Ana", ["20/05/2024, 11:00 - Ana: I'll bring the wine"])])
    wine = await locator(service, "bring the wine")
    proposals(fake_openai, [item("owed", "Bring the wine", [(wine, "I'll bring the wine")], person="Ana")])
    clock.advance(minutes=1)
    assert (await runner.tick())["ledger_catch_up"].startswith("1 window of 1 conversation; 1 new")
    clock.advance(minutes=1)
    assert "ledger_catch_up" not in await runner.tick()  # read once
    assert [i.text for i in await service.ledger.items()] == ["Bring the wine"]


async def test_a_failing_model_is_left_alone_for_half_an_hour(schedule, service, fake_openai, tmp_path, ledger_settings, clock):
    runner = runner_for(schedule, ledger_settings, clock)
    await service.memory.ingest([whatsapp(tmp_path, "Ana", ["20/05/2024, 11:00 - Ana: hello"])])
    fake_openai.fail(503, "overloaded")
    assert (await runner.tick())["ledger_catch_up"].startswith("failed")
    clock.advance(minutes=10)
    assert "ledger_catch_up" not in await runner.tick()
    clock.advance(minutes=21)
    proposals(fake_openai)
    assert (await runner.tick())["ledger_catch_up"].startswith("1 window ")


async def test_the_nightly_job_reads_everything_left(parts, schedule, service, fake_openai, tmp_path, ledger_settings, clock):
    runner = runner_for(schedule, ledger_settings, clock, grace=timedelta(hours=12))
    parts.ledger_window_chars = 60
    await service.memory.ingest([whatsapp(tmp_path, "Ana", [f"20/05/2024, 11:0{n} - Ana: line {n}" for n in range(7)])])
    # the nightly analysis runs first (a run with no tool call would leave its batch unread)
    fake_openai.call("add_open_question", {"question": "Who is Ana?"}).reply("Nothing new for the profile.")
    for _ in range(7):
        proposals(fake_openai)
    outcomes = await runner.tick()  # 12:00: the 03:00 slot is within the grace
    assert outcomes["nightly_analysis"] == "analysed"
    assert outcomes["ledger_extraction"].startswith("7 windows")  # all of it, not a few windows a tick
    assert "ledger_catch_up" not in outcomes and not await schedule.ledger_pending()


async def test_the_weekly_report_lists_promises_made_and_still_open(service, fake_openai, tmp_path, clock):
    await service.memory.ingest([whatsapp(tmp_path, "Ana", [
        "02/04/2024, 10:00 - Lena: I'll fix your bike",
        "16/05/2024, 10:00 - Lena: I'll send you the deck on Friday",
        "17/05/2024, 10:00 - Ana: I'll return your tent on Sunday"])])
    bike, deck = await locator(service, "fix your bike"), await locator(service, "send you the deck")
    tent = await locator(service, "return your tent")
    proposals(fake_openai, [item("commitment", "Fix Ana's bike", [(bike, "I'll fix your bike")], person="Ana"),
                            item("commitment", "Send Ana the deck", [(deck, "I'll send you the deck")], person="Ana",
                                 due="2024-05-17"),
                            item("owed", "Return the tent", [(tent, "I'll return your tent")], person="Ana")])
    await service.extract_ledger()
    fake_openai.call("search", {"query": "this week"}).reply("A quiet week of planning.")

    report = await service.report(days=7)

    text = report.render()
    made, still_open = text.split("Made in these days:")[1].split("Still open (3):")
    assert "You promised Ana: Send Ana the deck (due Fri 17 May 2024) · #2 [1]" in made
    assert "Ana promised you: Return the tent · #3 [2]" in made and "bike" not in made
    assert "You promised Ana: Fix Ana's bike · #1 [3]" in still_open
    assert f"[3] WhatsApp with Ana, 2024-04-02 · {(await service.ledger.item(1)).sources[0].locator}" in text
    assert [c.quote for c in report.citations] == ["I'll send you the deck", "I'll return your tent",
                                                   "I'll fix your bike"]
