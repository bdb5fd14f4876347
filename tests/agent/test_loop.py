"""The tool loop through the biographer's ask, against the scripted server: multi-step tool use, mistakes
fed back, and the step budget forcing a final answer."""

from __future__ import annotations

from core.biographer.runs import UNCHECKED
from core.service.admin import AdminFacet
from storage import runs as run_store
from tests.fakes.openai_server import FakeOpenAIServer


def tool_messages(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


async def locator_of(service: AdminFacet, query: str) -> str:
    hits = await service.memory.search(query, limit=1)
    return str(hits[0].locator)


async def test_search_read_then_cited_answer(seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    loc = await locator_of(seeded, "lease Porto")
    fake_openai.call("search", {"query": "moving to Porto", "person": "Ana"})
    fake_openai.call("read_source", {"locator": loc, "window": 0})
    fake_openai.reply(f'You signed the lease for a flat in Porto: "I signed the lease for the flat in Porto" [{loc}].')

    answer = await seeded.biographer.ask("When did I move to Porto?")

    assert answer.text == 'You signed the lease for a flat in Porto: "I signed the lease for the flat in Porto" [1].'
    [citation] = answer.citations
    assert str(citation.locator) == loc and citation.document == "WhatsApp with Maya"
    assert citation.when.date().isoformat() == "2024-03-12"
    assert citation.label().startswith("[1] WhatsApp with Maya, 2024-03-12")
    assert answer.removed == 0
    # the search result reached the model as delimited data, with the locator it may cite
    first_result = tool_messages(fake_openai.requests[1])[0]
    assert f'<source locator="{loc}" document="WhatsApp with Maya"' in first_result
    assert "signed the lease" in first_result
    assert len(fake_openai.requests) == 3
    run = await run_store.get_run(seeded.memory.conn, answer.run_id)
    assert (run.kind, run.status, run.steps, run.tool_errors) == ("chat", "done", 2, 0)
    assert run.prompt_tokens == sum(u["prompt_tokens"] for u in fake_openai.usage)


class Seen:
    """A watcher that writes down what it is shown, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def reply(self) -> None:
        self.events.append(("reply", ""))

    def text(self, piece: str) -> None:
        self.events.append(("text", piece))

    def step(self, name: str, arguments: str) -> None:
        self.events.append(("step", f"{name} {arguments}"))


async def test_a_watcher_sees_each_step_before_it_runs_and_the_reply_as_it_is_written(
        seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    loc = await locator_of(seeded, "lease Porto")
    fake_openai.call("search", {"query": "Porto"}, content="Let me look.")
    fake_openai.call("read_source", {"locator": loc})
    fake_openai.reply(f"You signed the lease in Porto [{loc}].")
    seen = Seen()

    answer = await seeded.biographer.ask("When did I move to Porto?", watcher=seen)

    assert seen.events == [
        ("reply", ""), ("text", "Let "), ("text", "me "), ("text", "look."), ("step", 'search {"query": "Porto"}'),
        ("reply", ""), ("step", f'read_source {{"locator": "{loc}"}}'),
        ("reply", ""), *[("text", w) for w in ("You ", "signed ", "the ", "lease ", "in ", "Porto ", f"[{loc}].")]]
    assert answer.text == "You signed the lease in Porto [1]."  # checked after: what the watcher saw was the draft
    assert all(r.get("stream") for r in fake_openai.requests)


async def test_malformed_and_unknown_calls_are_fed_back(seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.call("search", '{"query": "Porto"')  # broken JSON
    fake_openai.call("delete_everything", {})
    fake_openai.call("search", {"q": "Porto"})  # wrong argument name
    fake_openai.call("read_source", {"locator": 12})  # wrong type
    fake_openai.reply("I could not find it.")
    fake_openai.reply("I could not find it.")  # after the nudge to look first: no tool ran at all

    answer = await seeded.biographer.ask("Where do I live?")

    errors = [tool_messages(r)[-1] for r in fake_openai.requests[1:5]]
    assert errors[0].startswith("error: the arguments of search are not valid JSON")
    assert errors[1].startswith("error: unknown tool 'delete_everything'")
    assert "missing query" in errors[2] and "unknown argument q" in errors[2]
    assert "locator must be a string, not int" in errors[3]
    run = await run_store.get_run(seeded.memory.conn, answer.run_id)
    assert (run.steps, run.tool_errors) == (4, 4)
    assert answer.text == f"{UNCHECKED}\n\nI could not find it." and not answer.checked
