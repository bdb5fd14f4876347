"""Context discipline, asserted on what the server received: each turn carries the rules, the
current bio.md, a bounded text-only chat tail and the new message, never earlier tool traffic."""

from __future__ import annotations

import pytest

from core.config import Settings
from core.service.admin import AdminFacet
from tests.agent.test_loop import locator_of
from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
def agent_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"agent_chat_tail": 4})


async def test_turns_carry_profile_and_bounded_tail_only(seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    loc = await locator_of(seeded, "lease Porto")
    # turn 1 uses tools and edits the profile
    fake_openai.call("search", {"query": "Porto"})
    fake_openai.call("edit_profile", {"old_text": "", "new_text": f"- Lives in Porto [{loc}]", "section": "Identity"})
    fake_openai.reply(f"You live in Porto [{loc}].")
    await seeded.biographer.ask("Where do I live?", conversation="tg:1")
    # turns 2-4 each grep once, then answer
    for n in range(2, 5):
        fake_openai.call("grep", {"pattern": f"word{n}"}).reply(f"answer {n}")
        first_of_turn = len(fake_openai.requests)
        await seeded.biographer.ask(f"question {n}", conversation="tg:1")

    last = fake_openai.requests[first_of_turn]["messages"]
    roles = [m["role"] for m in last]
    assert roles == ["system", "system", "user", "assistant", "user", "assistant", "user"]
    assert "tool" not in roles and all("tool_calls" not in m for m in last)
    assert "<profile>" in last[1]["content"] and f"- Lives in Porto [{loc}]" in last[1]["content"]
    # the tail is the last 4 messages, as text, with the answer as the owner saw it
    assert [m["content"] for m in last[2:]] == ["question 2", "answer 2", "question 3", "answer 3", "question 4"][-5:]
    assert "signed the lease" not in str(last)  # no source text leaked from turn 1's tools
    # another conversation starts with no tail at all
    fake_openai.call("search", {"query": "hi"}).reply("hello")
    first_of_turn = len(fake_openai.requests)
    await seeded.biographer.ask("hi", conversation="discord:9")
    assert [m["role"] for m in fake_openai.requests[first_of_turn]["messages"]] == ["system", "system", "user"]


async def test_context_does_not_grow_with_the_corpus(service: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    from tests.agent.conftest import maya_document

    fake_openai.reply("nothing yet").reply("nothing yet")  # the second after the nudge to look first
    await service.biographer.ask("What do you know?", conversation="a")
    small = len(str(fake_openai.requests[0]["messages"]))
    for i in range(30):
        await service.memory.save([maya_document(key=f"copy{i}")])
    fake_openai.reply("nothing yet").reply("nothing yet")
    await service.biographer.ask("What do you know?", conversation="b")
    assert len(str(fake_openai.requests[2]["messages"])) == small


async def test_the_owners_words_become_a_source(seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.call("remember", {"text": "I adopted a cat called Miso"}).reply("Noted.")
    await seeded.biographer.ask("I adopted a cat called Miso last week", conversation="tg:1")
    [hit] = await seeded.memory.search("Miso cat", limit=1, mode="keyword")
    assert hit.kind == "biographer_chat" and hit.document == "Told to the biographer"
    assert "Ana: I adopted a cat called Miso" in hit.text
