"""What may leave the machine, per source: every request the real `openai` clients send to the
fake OpenAI-compatible server (chat and embeddings) is recorded and searched for the text the
owner's policy keeps here."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.cli import main
from bot.compose import open_facets
from core.config import Settings
from core.privacy.disclosure import POLICIES, WITHHELD, Shown, descriptor, model_sees, provider_safe
from core.providers.openai_chat import OpenAIChat
from core.providers.openai_embedder import OpenAIEmbedder
from core.types import Conversation, Message, SourceDocument
from tests.fakes.openai_server import FakeOpenAIServer

LISBON = ZoneInfo("Europe/Lisbon")
DENIED = "My panic attacks came back, the doctor raised the clonazepam dose."
DESCRIBED = "Long walk through the medina in Marrakesh with Tomás."


def chat(name: str, key: str, lines: list[tuple[str, str, datetime]]) -> SourceDocument:
    return SourceDocument(
        kind="whatsapp", name=name, identity=f"test:{key}",
        conversation=Conversation(platform="whatsapp", key=key, name=name, participants=tuple({s for s, _, _ in lines})),
        messages=iter([Message(sender=s, text=t, time=when.replace(tzinfo=LISBON), is_owner=s == "Ana")
                       for s, t, when in lines]))


def sources() -> list[SourceDocument]:
    """A chat to allow, one to deny, a journal entry to describe only (fresh: messages are read once)."""
    return [
        chat("WhatsApp with Maya", "maya", [
        ("Maya", "Did you sign the lease for the flat in Porto?", datetime(2024, 3, 12, 9, 15)),
        ("Ana", "Yes! Send questions to ana.lima@example.org or call +351 912 345 678; the scan is at "
                "/home/ana/docs/lease.pdf and the listing at https://example.org/flat/12", datetime(2024, 3, 12, 9, 17)),
    ]),
        chat("WhatsApp with Dr Ribeiro", "ribeiro", [
        ("Ana", DENIED, datetime(2024, 3, 13, 18, 0)),
        ("Dr Ribeiro", "Take it in the evening and write to me on Friday.", datetime(2024, 3, 13, 18, 5)),
    ]),
        SourceDocument(kind="markdown", name="diary.md", identity="test:diary", text=DESCRIBED,
                   time_start=datetime(2024, 4, 2, 20, 0, tzinfo=LISBON)),
    ]


@pytest.mark.parametrize(("policy", "remote", "seen"), [
    # the three policies as the README's privacy section defines them, for a model elsewhere
    ("allow", True, Shown.TEXT),
    ("descriptors_only", True, Shown.DESCRIPTOR),
    ("deny", True, Shown.NOTHING),
    # a policy this version does not know, or none found, lets nothing leave
    ("secret", True, Shown.NOTHING),
    (None, True, Shown.NOTHING),
    # a model on this machine sees everything, whatever the policy
    ("allow", False, Shown.TEXT),
    ("descriptors_only", False, Shown.TEXT),
    ("deny", False, Shown.TEXT),
])
def test_what_a_policy_lets_a_model_see(policy, remote, seen):
    assert model_sees(policy, remote=remote) is seen


def test_every_policy_the_owner_can_set_has_its_own_answer_for_a_remote_model():
    assert {model_sees(policy, remote=True) for policy in POLICIES} == set(Shown)


def test_provider_safe_text_keeps_words_and_dates_but_not_addresses_numbers_or_paths():
    text = ("Mail ana.lima@example.org, call +351 912 345 678 or (555) 123-4567, open C:\\Users\\ana\\x.docx "
            "or ~/notes/today.md, read https://example.org/a?b=1 and www.example.com/x. Met on 2024-03-05 "
            "at 14:30, 12/03/2024, paid 1500 euros, and/or 3/4 of it.")
    safe = provider_safe(text)
    for gone in ("ana.lima", "912 345", "123-4567", "Users", "notes/today", "example.org/a", "www.example"):
        assert gone not in safe
    for kept in ("Mail", "2024-03-05", "14:30", "12/03/2024", "1500 euros", "and/or 3/4"):
        assert kept in safe
    assert descriptor("whatsapp", ("Maya", "+351 912 345 678"), "2024-03-12T09:15:00Z") == \
        "whatsapp · people: Maya, [phone] · 2024-03-12"


async def _service(settings: Settings, server: FakeOpenAIServer, *, remote: bool):
    embedder = OpenAIEmbedder(model="fake-embedding", base_url=server.base_url, api_key="k", remote=remote)
    llm = OpenAIChat(base_url=server.base_url, api_key="k", models={"chat": "fake-chat"}, timeout=10,
                     max_retries=0, remote=remote)
    return llm, _admin(settings, llm=llm, embedder=embedder)


@asynccontextmanager
async def _admin(settings: Settings, **models):
    """The CLI's facet, which sets policies and runs every kind of model call these tests check."""
    async with open_facets(settings, **models) as facets:
        yield facets.admin


def sent(server: FakeOpenAIServer) -> str:
    """Everything the clients sent, as one text."""
    return json.dumps([*server.requests, *server.embedding_requests], ensure_ascii=False)


def shown(server: FakeOpenAIServer) -> str:
    """What the models were shown, but the model's own words: its earlier replies in the
    conversation, and the queries it wrote that search embedded."""
    written = {json.loads(call["function"]["arguments"]).get("query") for r in server.requests
               for m in r["messages"] if m["role"] == "assistant" for call in m.get("tool_calls") or ()}
    inputs = [text for r in server.embedding_requests for text in r["input"] if text not in written]
    return json.dumps([[m for m in r["messages"] if m["role"] != "assistant"] for r in server.requests]
                      + [r.get("tools") for r in server.requests] + inputs, ensure_ascii=False)


@pytest.fixture
def server():
    with FakeOpenAIServer() as running:
        yield running


async def _seed(service) -> None:
    await service.memory.save(sources(), index=False)  # nothing embedded before the policies are set
    await service.set_policy("2", "deny")
    await service.set_policy("markdown", "descriptors_only")
    await service.memory.index_pending()


async def test_a_remote_embedder_gets_no_denied_text_only_descriptors_and_provider_safe_text(settings, server):
    llm, opened = await _service(settings, server, remote=True)
    async with opened as service:
        await _seed(service)
        inputs = [text for r in server.embedding_requests for text in r["input"]]
        everything = sent(server)
        assert "clonazepam" not in everything and "panic" not in everything
        assert "Marrakesh" not in everything and "medina" not in everything
        assert "markdown · 2024-04-02" in inputs  # the descriptor: kind and date (no people in a note)
        maya = next(t for t in inputs if "lease" in t)
        assert "[e-mail]" in maya and "[phone]" in maya and "[path]" in maya and "[link]" in maya
        for gone in ("ana.lima", "912 345", "/home/ana", "https://"):
            assert gone not in everything

        # found here, by keyword, and read here
        assert (await service.memory.search("clonazepam", mode="keyword"))[0].document == "WhatsApp with Dr Ribeiro"
        assert "clonazepam" in (await service.memory.read("doc2")).text
        # a query that matches the denied source here is not sent out; another one is
        before = len(server.embedding_requests)
        hits = await service.memory.search("clonazepam dose", mode="hybrid")
        assert len(server.embedding_requests) == before and hits[0].document == "WhatsApp with Dr Ribeiro"
        assert (await service.memory.search("clonazepam", mode="semantic"))
        assert len(server.embedding_requests) == before
        await service.memory.search("flat in Porto", mode="hybrid")
        assert server.embedding_requests[-1]["input"] == ["flat in Porto"]
    await llm.close()


async def test_a_remote_chat_model_is_told_only_that_something_was_withheld(settings, server):
    llm, opened = await _service(settings, server, remote=True)
    async with opened as service:
        await _seed(service)
        server.call("search", {"query": "clonazepam dose"})
        server.call("grep", {"pattern": "clonazepam"})
        server.call("read_source", {"locator": "doc2:0-60"})
        server.call("search", {"query": "Marrakesh medina"})
        server.reply("I cannot see that source: it is kept on your machine.")
        await service.biographer.ask("What did the doctor change?")
        results = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool"]
        assert all(WITHHELD in result for result in results[:3]), results
        assert "kind=\"markdown\"" in results[3] and WITHHELD in results[3]
        everything = shown(server)
        assert "panic" not in everything and "medina" not in everything and "Dr Ribeiro" not in everything

        # analysis reads what may leave and leaves the rest queued
        server.call("add_open_question", {"question": "How did the move to Porto go?", "locators": []})
        server.reply("done")
        await service.biographer.analyze(max_batches=1)
        # the ledger reads only conversations whose text may leave
        for _ in range(4):
            server.reply("no items")
        await service.extract_ledger(max_windows=2)
        everything = shown(server)
        assert "lease for the flat" in everything  # the allowed chat went out
        assert "panic" not in everything and "medina" not in everything
        assert (await service.biographer.analysis_status()).pending > 0  # the withheld ones wait
    await llm.close()


async def test_a_local_endpoint_is_always_allowed_everything(settings, server):
    llm, opened = await _service(settings, server, remote=False)
    async with opened as service:
        await _seed(service)
        inputs = " ".join(text for r in server.embedding_requests for text in r["input"])
        assert "clonazepam" in inputs and "Marrakesh" in inputs and "ana.lima@example.org" in inputs
        server.call("search", {"query": "clonazepam dose"})
        server.reply("The dose went up [doc2].")
        await service.biographer.ask("What did the doctor change?")
        assert "panic attacks" in sent(server)
    await llm.close()


async def _vectors_of(service, document_id: int) -> int:
    async with service.memory.conn.execute(
            "SELECT COUNT(*) FROM chunk_embeddings e JOIN chunks c ON c.id = e.chunk_id WHERE c.document_id = ?",
            (document_id,)) as cur:
        return (await cur.fetchone())[0]


async def test_a_policy_change_re_embeds_under_the_new_policy(settings, server):
    llm, opened = await _service(settings, server, remote=True)
    async with opened as service:
        await _seed(service)
        assert await _vectors_of(service, 2) == 0 and await _vectors_of(service, 1) == 1
        await service.set_policy("2", "allow")
        await service.memory.index_pending()
        assert "clonazepam" in sent(server) and await _vectors_of(service, 2) == 1
        await service.set_policy("1", "deny")  # its vector goes at once
        assert await _vectors_of(service, 1) == 0
        await service.clear_policy("markdown")  # back to allow: embedded from its text next time
        await service.memory.index_pending()
        assert "Marrakesh" in sent(server)
    await llm.close()


def test_policy_cli_sources_and_doctor(tmp_path: Path, capsys, monkeypatch):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "therapy.md").write_text("Session notes: the clonazepam dose went up.", encoding="utf-8")
    (notes / "trip.md").write_text("The ferry to Tavira left at nine.", encoding="utf-8")
    data = str(tmp_path / "store")
    assert main(["--data-dir", data, "ingest", str(notes), "--no-index"]) == 0
    capsys.readouterr()
    assert main(["--data-dir", data, "policy", "set", "1", "deny"]) == 0
    assert "source #1: deny" in capsys.readouterr().out
    assert main(["--data-dir", data, "policy", "set", "markdown", "descriptors_only"]) == 0
    assert main(["--data-dir", data, "policy", "list", "--json"]) == 0
    capsys.readouterr()
    assert main(["--data-dir", data, "sources", "--json"]) == 0
    assert [s["policy"] for s in json.loads(capsys.readouterr().out)] == ["deny", "descriptors_only"]
    assert main(["--data-dir", data, "policy", "set", "letters", "deny"]) == 2
    assert "neither a source number nor a kind" in capsys.readouterr().err
    assert main(["--data-dir", data, "doctor", "--json"]) == 0
    disclosure = json.loads(capsys.readouterr().out)["disclosure"]
    assert "1 deny" in disclosure and "1 descriptors_only" in disclosure and "nothing leaves" in disclosure
