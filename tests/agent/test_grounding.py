"""Grounded whatever the model: a tool call is asked for first, tool-call markup written as text
runs as a call, an answer that rests on nothing is nudged once and then labelled, a reply cut at
the output limit is continued or marked, and a batch the model did not read stays queued."""

from __future__ import annotations

from dataclasses import replace

from core.agent.loop import CONTINUE, CUT_MARK, EMPTY_ANSWER, NUDGE
from core.agent.tool_markup import parse_text_calls
from core.biographer.runs import CUT_REPORT, NOT_READ, UNCHECKED
from core.config import Settings
from core.providers.openai_chat import OpenAIChat
from core.service.admin import AdminFacet
from storage import runs as run_store
from tests.agent.conftest import journal_document, maya_document
from tests.agent.test_loop import locator_of, tool_messages
from tests.fakes.openai_server import FakeOpenAIServer

TOOLS = ("search", "grep", "read_source")


def test_tool_markup_in_text_is_parsed_and_never_shown() -> None:
    qwen = '<tool_call>\n{"name": "search", "arguments": {"query": "Porto"}}\n</tool_call>'
    assert parse_text_calls(qwen, TOOLS)[0][0].arguments == '{"query": "Porto"}'
    fenced = '```json\n{"name": "grep", "parameters": {"pattern": "lease"}}\n```'
    [call], rest = parse_text_calls(fenced, TOOLS)
    assert (call.name, call.arguments, rest) == ("grep", '{"pattern": "lease"}', "")
    mistral = '[TOOL_CALLS] [{"name": "search", "arguments": {"query": "a"}}, {"name": "grep", "arguments": {}}]'
    assert [c.name for c in parse_text_calls(mistral, TOOLS)[0]] == ["search", "grep"]
    # empty markup is no call and no text; a JSON answer that names no tool is left alone
    assert parse_text_calls("<tools></tools>", TOOLS) == ([], "")
    assert parse_text_calls("<tool_call>", TOOLS) == ([], "")
    assert parse_text_calls('{"name": "Maya", "arguments": 1}', TOOLS)[0] == []
    # a call cut at the length limit (seen from a 1.5B model) runs with its complete arguments
    cut = '```json\n{"name": "search", "arguments": {"query": "sign lease", "limit": 1, "kinds": ["markdown", "tel'
    [call], rest = parse_text_calls(cut, TOOLS)
    assert (call.name, rest) == ("search", "")
    assert call.arguments == '{"query": "sign lease", "limit": 1, "kinds": ["markdown"]}'
    # and one inside prose, as the same model wrote them
    prose = ('To answer this, let me search: ```json {"name": "search", "arguments": {"query": "lease"}} ``` '
             "This search might reveal it.")
    [call], rest = parse_text_calls(prose, TOOLS)
    assert (call.name, rest) == ("search", "To answer this, let me search:  This search might reveal it.")
    assert parse_text_calls('Maya said {"name": "Porto"} was nice.', TOOLS)[0] == []
    # a tagged call with broken JSON is still a call: its error goes back to the model
    [broken], _ = parse_text_calls('<tool_call>{"name": "search", "arguments": {"query": "a"', TOOLS)
    assert broken.name == "search"


def test_arguments_that_repeat_the_call_envelope_are_unwrapped() -> None:
    """Qwen2.5-Coder-1.5B, in the ledger evaluation, sent a native call whose arguments were
    `{"function": "record_ledger", "arguments": {...}}`; it was refused as unexpected properties."""
    from core.agent.schemas import parse_arguments, tool_schemas
    from core.ledger.proposals import parse

    [search] = [s for s in tool_schemas(("search",)) if s["function"]["name"] == "search"]
    wrapped = '{"function": "search", "arguments": {"query": "Porto", "limit": 3}}'
    assert parse_arguments(search, wrapped) == {"query": "Porto", "limit": 3}
    as_text = '{"name": "search", "parameters": "{\\"query\\": \\"Porto\\"}"}'
    assert parse_arguments(search, as_text) == {"query": "Porto"}
    assert parse('{"function": "record_ledger", "arguments": {"items": [], "updates": []}}').items == ()


async def test_a_call_written_as_text_runs(seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    loc = await locator_of(seeded, "lease Porto")
    fake_openai.text_call("search", {"query": "lease Porto"}, prefix="Let me look.\n")
    fake_openai.text_call("read_source", {"locator": loc}, style="json")
    fake_openai.reply(f"You signed the lease in March 2024 [{loc}].")

    answer = await seeded.biographer.ask("When did I sign the lease?")

    assert answer.text == "You signed the lease in March 2024 [1]." and answer.checked
    assert "signed the lease" in tool_messages(fake_openai.requests[1])[0]
    # the call went back to the server as a native call, not as text
    assistant = fake_openai.requests[1]["messages"][-2]
    assert assistant["tool_calls"][0]["function"]["name"] == "search" and "<tool_call>" not in str(assistant)
    assert fake_openai.requests[0]["tool_choice"] == "required"
    assert fake_openai.requests[1]["tool_choice"] == "auto"


async def test_an_answer_that_rests_on_nothing_is_nudged_then_labelled(seeded: AdminFacet,
                                                                       fake_openai: FakeOpenAIServer) -> None:
    fake_openai.reply("<tools></tools>")  # observed from a 1.5B model: no call, no answer
    fake_openai.reply("You moved to Lisbon in 2019.")

    answer = await seeded.biographer.ask("Where do I live?")

    nudge = fake_openai.requests[1]
    assert nudge["messages"][-1] == {"role": "user", "content": NUDGE} and nudge["tool_choice"] == "required"
    assert answer.text == f"{UNCHECKED}\n\nYou moved to Lisbon in 2019." and not answer.checked
    assert "<tools>" not in answer.text
    run = await run_store.get_run(seeded.memory.conn, answer.run_id)
    assert run.note == "nudged: no tool call at first"
    # the label is what the chat tail carries on, too
    fake_openai.call("search", {"query": "x"}).reply("ok")
    await seeded.biographer.ask("and?")
    assert UNCHECKED in str(fake_openai.requests[2]["messages"])


async def test_the_nudge_is_enough_for_a_model_that_then_looks(seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    loc = await locator_of(seeded, "lease Porto")
    fake_openai.reply("You live in Porto.")
    fake_openai.call("search", {"query": "where I live"})
    fake_openai.reply(f"You live in Porto [{loc}].")
    answer = await seeded.biographer.ask("Where do I live?")
    assert answer.text == "You live in Porto [1]." and answer.checked


async def test_an_echo_of_the_nudge_is_no_answer(seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.reply("Kazan.")
    fake_openai.call("search", {"query": "Kazan"})
    fake_openai.reply(NUDGE)  # as Qwen2.5-Coder-1.5B answered
    answer = await seeded.biographer.ask("Where were we going?")
    assert answer.text == EMPTY_ANSWER


async def test_a_server_that_refuses_required_is_asked_with_auto(fake_openai: FakeOpenAIServer) -> None:
    with FakeOpenAIServer(reject_required=True) as server:
        client = OpenAIChat(base_url=server.base_url, api_key="k", models={"chat": "m"}, max_retries=0)
        tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
        server.call("search", {"query": "a"}).call("search", {"query": "b"})
        first = await client.complete([{"role": "user", "content": "hi"}], tools=tools, tool_choice="required")
        second = await client.complete([{"role": "user", "content": "hi"}], tools=tools, tool_choice="required")
        await client.close()
    assert [c.arguments for c in first.tool_calls + second.tool_calls] == ['{"query": "a"}', '{"query": "b"}']
    # refused once, then "auto" from then on: three requests, not four
    assert [r["tool_choice"] for r in server.requests] == ["required", "auto", "auto"]


async def test_a_reply_cut_at_the_limit_is_continued_once(seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    loc = await locator_of(seeded, "lease Porto")
    fake_openai.call("search", {"query": "lease"})
    fake_openai.reply("You signed the lease", finish_reason="length")
    fake_openai.reply(f" in March 2024 [{loc}].")
    answer = await seeded.biographer.ask("When did I sign the lease?")
    assert answer.text == "You signed the lease in March 2024 [1]."
    assert fake_openai.requests[-1]["messages"][-1] == {"role": "user", "content": CONTINUE}
    assert "tools" not in fake_openai.requests[-1]  # a continuation is text only

    fake_openai.call("search", {"query": "lease"})
    fake_openai.reply("It was", finish_reason="length").reply(" in", finish_reason="length")
    answer = await seeded.biographer.ask("When?")
    assert answer.text == ("It was in" + CUT_MARK).strip()
    run = await run_store.get_run(seeded.memory.conn, answer.run_id)
    assert run.status == "cut"


async def test_max_tokens_is_sent_and_a_real_cut_is_seen(service: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    await service.memory.save([journal_document("Walked by the river.", clock_day())])
    fake_openai.call("search", {"query": "walk"})
    fake_openai.reply("word " * 2000)  # far more than max_tokens: the server cuts it
    fake_openai.reply("more " * 2000)
    answer = await service.biographer.ask("Tell me everything")
    sent = fake_openai.requests[0]["max_tokens"]
    assert sent == service.biographer.config.window.max_output == 1500
    assert answer.text.endswith(CUT_MARK.strip())


def clock_day():
    from datetime import datetime

    return datetime(2024, 5, 30, 9, 0)


async def test_a_batch_the_model_did_not_read_stays_queued(service: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    await service.memory.save([maya_document()])
    fake_openai.reply("Summary: nothing to add.")  # no tool call
    fake_openai.reply("<tool_call>")  # nor after the nudge

    result = await service.biographer.analyze()

    assert result.batches == 0 and result.chunks_read == 0 and result.remaining_chunks > 0
    assert "did not read batch 1" in result.stopped and "supports tool calling" in result.stopped
    run = await run_store.get_run(service.memory.conn, result.run_ids[0])
    assert (run.status, run.note) == ("unread", NOT_READ)
    status = await service.biographer.analysis_status()
    assert status.pending == result.remaining_chunks and status.last_unread == run.started_at
    # a model that works reads it, and the status clears
    fake_openai.call("add_open_question", {"question": "Who is Maya?"}).reply("Added a question.")
    again = await service.biographer.analyze()
    assert again.batches == 1 and again.remaining_chunks == 0
    assert (await service.biographer.analysis_status()).last_unread is None


async def test_a_cut_analysis_run_does_not_mark_its_batch(service: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    await service.memory.save([maya_document()])
    fake_openai.call("add_open_question", {"question": "Who is Maya?"})
    fake_openai.reply("I added", finish_reason="length").reply(" a", finish_reason="length")
    result = await service.biographer.analyze()
    assert result.batches == 0 and result.remaining_chunks > 0


async def test_a_cut_report_says_so(service: AdminFacet, fake_openai: FakeOpenAIServer, clock) -> None:
    from datetime import timedelta

    await service.memory.save([journal_document("Long walk by the river with Maya.", clock.now - timedelta(days=2))])
    fake_openai.call("search", {"query": "week"})
    fake_openai.reply("## What happened\nA walk [doc1:0-33]", finish_reason="length")
    fake_openai.reply(" and", finish_reason="length")
    answer = await service.report(days=7)
    assert answer.text.startswith(CUT_REPORT)


async def test_a_text_call_of_a_tool_not_offered_is_answered_not_shown(seeded: AdminFacet,
                                                                      fake_openai: FakeOpenAIServer) -> None:
    seeded.biographer.config = replace(seeded.biographer.config, context_tokens=8192)  # chat: reading tools only
    fake_openai.call("search", {"query": "age"})
    fake_openai.reply('She is 87. {"name": "edit_profile", "arguments": {"old_text": "", "new_text": "87"}}')
    fake_openai.reply("I could not find her age.")
    answer = await seeded.biographer.ask("How old is Oma?")
    assert answer.text == "I could not find her age."
    assert "unknown tool 'edit_profile'; the tools are: grep, ledger_query, read_source, remember, search" in str(
        fake_openai.requests[-1])


def test_small_windows_give_chat_the_reading_tools_and_remember_only(settings: Settings) -> None:
    from bot.compose import agent_config

    local = settings.model_copy(update={"llm_base_url": "http://localhost:11434/v1"})
    assert agent_config(local).chat_tools == (*TOOLS, "ledger_query", "remember")
    assert "edit_profile" in agent_config(settings).chat_tools
