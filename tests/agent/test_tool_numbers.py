"""A bad number the model sends to a tool comes back to it as a tool error; the turn goes on."""

from __future__ import annotations

from core.service.admin import AdminFacet
from tests.fakes.openai_server import FakeOpenAIServer

HUGE = "99999999999999999999999"


def tool_messages(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


async def test_an_oversized_locator_and_page_are_tool_errors_not_the_end_of_the_turn(
        seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.call("read_source", {"locator": f"doc1:{HUGE}-{HUGE}"})
    fake_openai.call("grep", {"pattern": "Porto", "page": 10**30})
    fake_openai.reply("I could not read that.")
    fake_openai.reply("I could not read that.")  # after the nudge: no tool call ran, so it is labelled

    answer = await seeded.biographer.ask("What does doc1 say?")

    assert answer.text.endswith("I could not read that.") and not answer.checked
    errors = [tool_messages(r)[-1] for r in fake_openai.requests[1:3]]
    assert errors[0].startswith("error:") and "too large" in errors[0]
    assert errors[1].startswith("error:") and "page" in errors[1]
