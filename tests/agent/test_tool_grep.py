"""The agent's grep tool goes through the same engine: a catastrophic pattern answers, an
unsupported one comes back as a tool error, and the turn goes on."""

from __future__ import annotations

from core.service.admin import AdminFacet
from tests.fakes.openai_server import FakeOpenAIServer


def tool_messages(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


async def test_regex_grep_from_the_model_cannot_hang_or_end_the_turn(
        seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    await seeded.memory.save([_note("a" * 40 + "!")])
    fake_openai.call("grep", {"pattern": "(a+)+$", "regex": True})
    fake_openai.call("grep", {"pattern": "(?<=lease )Porto", "regex": True})
    fake_openai.reply("Nothing there.")

    answer = await seeded.biographer.ask("Anything odd?")

    assert answer.text == "Nothing there."
    results = [tool_messages(r)[-1] for r in fake_openai.requests[1:3]]
    assert results[0].startswith("no matches of '(a+)+$'")
    assert results[1].startswith("error:") and "look-around" in results[1]


def _note(text: str):
    from tests.agent.conftest import journal_document
    from datetime import datetime

    return journal_document(text, datetime(2024, 3, 1, 9, 0), name="odd.md")
