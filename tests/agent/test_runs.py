"""Analysis of new material, answers to open questions, reports, usage and the daily token cap."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from core.biographer.runs import TokenCapReached
from core.config import Settings
from core.service.admin import AdminFacet
from core.types import SearchFilters
from storage import runs as run_store
from tests.agent.conftest import journal_document, maya_document
from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
def agent_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"analysis_batch_chars": 400})


async def test_analysis_reads_new_material_oldest_first_in_batches(service: AdminFacet,
                                                                   fake_openai: FakeOpenAIServer) -> None:
    await service.memory.save([maya_document()])  # March 2024, about 300 characters
    await service.memory.save([journal_document("Started pottery classes on Tuesdays. " * 8, datetime(2023, 1, 5))])
    fake_openai.call("add_timeline_event", {"date": "2023-01", "title": "Started pottery", "locators": ["doc2:0-100"]})
    fake_openai.reply("Added the pottery classes.")
    fake_openai.call("add_open_question", {"question": "What took you to Porto?", "priority": 4,
                                           "why": "the move has no reason yet"})
    fake_openai.reply("Asked about Porto.")
    seen = []

    result = await service.biographer.analyze(progress=lambda stage, done, total: seen.append((done, total)))

    assert (result.batches, result.documents, result.remaining_chunks) == (2, 2, 0)
    assert (result.events_added, result.questions_added) == (1, 1)
    first, second = (r["messages"][-1]["content"] for r in fake_openai.requests if r["messages"][2]["role"] == "user"
                     and r["messages"][-1]["role"] == "user")
    assert "pottery" in first and "2023-01-05" in first  # the older journal first
    assert "signed the lease" in second and '<source locator="doc1:' in second
    assert fake_openai.requests[0]["model"] == "fake-analysis"
    assert seen[-1] == (2, 2)
    assert [e.title for e in await service.biographer.timeline()] == ["Started pottery"]
    assert "- 2023-01 — Started pottery [doc2:0-100]" in await service.biographer.bio()
    # nothing new: nothing sent
    before = len(fake_openai.requests)
    assert (await service.biographer.analyze()).batches == 0 and len(fake_openai.requests) == before


async def test_answered_question_is_folded_in_and_closed(service: AdminFacet, fake_openai: FakeOpenAIServer,
                                                         clock) -> None:
    await service.memory.save([maya_document()])
    fake_openai.call("add_open_question", {"question": "What took you to Porto?", "priority": 5})
    fake_openai.call("add_open_question", {"question": "Do you still paint?", "priority": 2})
    fake_openai.reply("done")
    await service.biographer.analyze()
    porto, paint = await service.biographer.open_questions()
    assert (porto.text, paint.text) == ("What took you to Porto?", "Do you still paint?")

    assert (await service.biographer.next_question()).id == porto.id
    await service.biographer.mark_asked(porto.id, clock.now)
    assert (await service.biographer.next_question()).id == paint.id  # porto was just asked
    await service.biographer.mark_asked(paint.id, clock.now)
    assert await service.biographer.next_question() is None
    clock.advance(days=8)
    assert (await service.biographer.next_question()).id == porto.id  # asked again after a week

    fake_openai.call("edit_profile", {"old_text": "", "new_text": "- Moved to Porto for a bakery job [doc2:0-53]",
                                      "section": "Identity"})
    fake_openai.reply("Thank you! I added why you moved to Porto.")
    answer = await service.biographer.answer_question(porto.id, "I moved for the job at the bakery, and for the sea.")

    assert answer.text == "Thank you! I added why you moved to Porto."
    request = fake_openai.requests[-2]["messages"][-1]["content"]
    assert "Open question #1: What took you to Porto?" in request
    assert '<source locator="doc2:0-' in request and "Ana: I moved for the job" in request
    assert "- Moved to Porto for a bakery job [doc2:0-53]" in await service.biographer.bio()
    assert [q.id for q in await service.biographer.open_questions()] == [paint.id]  # closed even without resolve
    assert (await service.biographer.analyze()).batches == 0  # the answer was folded in already


async def test_report_is_cited_and_stored(service: AdminFacet, fake_openai: FakeOpenAIServer, clock) -> None:
    await service.memory.save([journal_document("Long walk by the river with Maya.", clock.now - timedelta(days=2))])
    fake_openai.call("search", {"query": "week", "since": "2024-05-25"})
    fake_openai.reply("## What happened\nA walk with Maya [doc1:0-33].")
    answer = await service.report(days=7)
    assert answer.text == "## What happened\nA walk with Maya [1]."
    assert "doc1 journal.md (markdown)" in fake_openai.requests[0]["messages"][-1]["content"]
    [stored] = await service.memory.search("walk Maya", mode="keyword",
                                           filters=SearchFilters(kinds=("biographer_report",)))
    assert stored.document.startswith("Pattern report 2024-05-25")
    assert "Sources:\n[1] journal.md, 2024-05-30" in stored.text


async def test_usage_is_recorded_and_the_cap_stops_analysis_only(service: AdminFacet, fake_openai: FakeOpenAIServer,
                                                                 clock) -> None:
    fake_openai.call("search", {"query": "hi"})
    fake_openai.reply("hello")
    await service.biographer.ask("hi")
    usage = await service.usage()
    [(day, roles)] = usage.items()
    assert day == "2024-06-01" and roles["chat"]["runs"] == 1
    assert roles["chat"]["prompt_tokens"] == sum(u["prompt_tokens"] for u in fake_openai.usage)

    service.biographer.config = replace(service.biographer.config, daily_token_cap=10)
    await service.memory.save([maya_document()])
    result = await service.biographer.analyze()
    assert result.batches == 0 and "token cap" in result.stopped and result.remaining_chunks > 0
    with pytest.raises(TokenCapReached):
        await service.report()
    fake_openai.call("search", {"query": "now"}).reply("still answering")
    assert (await service.biographer.ask("and now?")).text == "still answering"  # the owner's questions still run
    clock.advance(days=1)
    fake_openai.call("search", {"query": "Porto"}).reply("read it")
    assert (await service.biographer.analyze()).batches == 1
    runs = await run_store.usage_by_day(service.memory.conn, days=5)
    assert {r.role for r in runs} == {"chat", "analysis"}
