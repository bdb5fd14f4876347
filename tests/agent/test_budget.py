"""A run whose step budget is spent still answers: once more, with tools off."""

from __future__ import annotations

import pytest

from core.agent.loop import BUDGET_SPENT
from core.config import Settings
from core.service.admin import AdminFacet
from storage import runs as run_store
from tests.agent.test_loop import tool_messages
from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
def agent_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"agent_chat_steps": 3})


async def test_budget_spent_forces_a_final_answer(seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.call("search", {"query": "Porto"})
    # the third call of this reply is over the budget of 3: it is answered, not run
    fake_openai.calls([("grep", {"pattern": "bakery"}), ("grep", {"pattern": "lease"}), ("grep", {"pattern": "flat"})])
    fake_openai.reply("Here is what I found so far.")

    answer = await seeded.biographer.ask("Tell me everything about Porto")

    final = fake_openai.requests[-1]
    assert "tools" not in final  # tools are off for the forced answer
    assert final["messages"][-1] == {"role": "user", "content": BUDGET_SPENT.format(budget=3)}
    assert tool_messages(final)[-1] == "error: not run: the step budget of this run is spent"
    assert answer.text == "Here is what I found so far."
    run = await run_store.get_run(seeded.memory.conn, answer.run_id)
    assert (run.status, run.steps) == ("forced", 3)
    assert fake_openai.unscripted == 0
