"""Probes of a client limited to `notes`: a source it may not see, one that never existed and one
the owner forgot must read alike over REST and MCP (every operation, bound or not), and nothing it
is told (generation, counts, outcomes) may move when the owner imports, saves or forgets outside
its sections. What it may see still tells it when it went."""

from __future__ import annotations

import json
import re

from tests.core.helpers import whatsapp_export
from tests.server.conftest import Running, running_server

NOTE = {"text": "Ana prefers window seats", "kind": "preference", "section": "notes"}
MISSING = 999_999


def doc_id(locator: str) -> int:
    return int(locator[3:].split(":")[0])


def as_missing(text: str, number: int) -> str:
    """`text` with the number it names swapped for the missing one's (as a whole number only)."""
    return re.sub(rf"(?<!\d){number}(?!\d)", str(MISSING), text)


async def _private_save(server: Running, text: str, key: str) -> dict:
    async with server.http(await server.token(f"owner-{key}")) as owner:
        saved = await owner.post("/v1/save", json={**NOTE, "text": text, "section": "private"},
                                 headers={"Idempotency-Key": key})
        assert saved.status_code == 200, saved.text
        return saved.json()


def _probes(locator: str, record: int, generation: int) -> list[tuple[str, str, dict]]:
    """Every request that names a document or a record, as (method, path, body)."""
    number = doc_id(locator)
    return [
        ("POST", "/v1/read", {"locator": f"doc{number}"}),
        ("POST", "/v1/read", {"locator": f"doc{number}:0-10"}),
        ("POST", "/v1/read", {"locator": f"doc{number}:0-10", "window": 50}),
        ("POST", "/v1/read", {"locator": f"doc{number}", "generation": generation}),
        ("POST", "/v1/read", {"locator": f"doc{number}", "generation": 0}),
        ("POST", "/v1/read", {"locator": f"doc{number}", "expected_hash": "0" * 64}),
        ("POST", "/v1/save", {**NOTE, "replaces": f"doc{number}", "expected_hash": "0" * 64}),
        ("POST", "/v1/save", {**NOTE, "replaces": str(record), "expected_hash": "0" * 64}),
        ("DELETE", f"/v1/saves/{record}", {}),
    ]


async def _answers(http, locator: str, record: int, generation: int) -> list[tuple[int, str]]:
    out = []
    for i, (method, path, body) in enumerate(_probes(locator, record, generation)):
        headers = {"Idempotency-Key": f"probe-{i}"} if path == "/v1/save" else {}
        answer = await http.request(method, path, json=body or None, headers=headers)
        out.append((answer.status_code, answer.text))
    return out


async def _mcp_answers(mcp, locator: str, record: int, generation: int) -> list[str]:
    number = doc_id(locator)
    calls = [("read", {"locator": f"doc{number}"}), ("read", {"locator": f"doc{number}", "generation": generation}),
             ("read", {"locator": f"doc{number}", "expected_hash": "0" * 64}),
             ("save", {**NOTE, "replaces": f"doc{number}", "expected_hash": "0" * 64}),
             ("save", {**NOTE, "replaces": str(record), "expected_hash": "0" * 64}),
             ("delete", {"record": record})]
    out = []
    for tool, arguments in calls:
        answer = await mcp.call_tool(tool, arguments)
        assert answer.is_error, (tool, arguments)
        out.append(answer.content[0].text)
    return out


async def _view(http) -> dict:
    """Everything the reader is told about the store as a whole."""
    caps = (await http.get("/v1/capabilities")).json()
    views = {"capabilities": caps}
    for query in ("ferry", "zeppelin", "window seats"):
        for mode in ("keyword", "hybrid"):
            views[f"search {query} {mode}"] = (await http.post("/v1/search", json={"query": query, "mode": mode})).json()
    for person in ("Maya", "Mallory", "Nobody"):
        found = await http.post("/v1/search", json={"query": "ferry", "person": person, "mode": "keyword"})
        views[f"person {person}"] = found.status_code, as_person(found.text, person)
        listed = await http.post("/v1/list", json={"person": person})
        views[f"list person {person}"] = listed.status_code, as_person(listed.text, person)
    views["list"] = (await http.post("/v1/list", json={"status": "all"})).json()
    return views


def as_person(text: str, person: str) -> str:
    return text.replace(person, "PERSON")


async def test_hidden_missing_and_forgotten_read_alike_and_the_owners_changes_move_nothing(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with server.http(await server.token("owner-agent")) as owner:
            chat = (await owner.post("/v1/search", json={"query": "ferry Tavira"})).json()["results"][0]
            journal = (await owner.post("/v1/search", json={"query": "Piranesi train"})).json()["results"][0]
        hidden_save = await _private_save(server, "Ana's salary is private", "p1")
        doomed_save = await _private_save(server, "Ana's old address", "p2")
        await server.indexer_idle()
        reader = await server.token("reader", allow=["search", "read", "list", "save", "delete"], sections=["notes"])
        async with server.http(reader) as http:
            mine = (await http.post("/v1/save", json=NOTE, headers={"Idempotency-Key": "mine"})).json()
            await server.indexer_idle()
            before = await _view(http)
            generation = before["capabilities"]["index"]["generation"]

            missing = await _answers(http, f"doc{MISSING}", MISSING, generation)
            assert all(status == 404 for status, _ in missing[:-1] if status != 409), missing
            hidden_chat = await _answers(http, chat["locator"], hidden_save["record"], generation)

            # the owner forgets a chat and a private record, imports another chat, saves privately
            await server.service.memory.forget(doc_id(journal["locator"]))
            await server.service.memory.forget(doc_id(doomed_save["locator"]))
            folder = tmp_path / "more"
            folder.mkdir()
            whatsapp_export(folder / "WhatsApp Chat with Mallory.txt",
                            ["05/06/2024, 10:00 - Mallory: the zeppelin leaves at noon, by the ferry"])
            await server.service.memory.ingest([folder])
            await _private_save(server, "zeppelin tickets for two", "p3")
            await server.indexer_idle()

            after = await _view(http)
            assert after == before  # generation, counts, outcomes and listings alike
            forgotten = await _answers(http, journal["locator"], doomed_save["record"], generation)
            hidden_after = await _answers(http, chat["locator"], hidden_save["record"], generation)
            again = await _answers(http, f"doc{MISSING}", MISSING, generation)
            assert again == missing

            def swapped(answers, number, record):
                return [(status, as_missing(as_missing(text, number), record)) for status, text in answers]
            for name, answers, number, record in (
                    ("hidden", hidden_chat, doc_id(chat["locator"]), hidden_save["record"]),
                    ("hidden, after the owner's changes", hidden_after, doc_id(chat["locator"]), hidden_save["record"]),
                    ("forgotten", forgotten, doc_id(journal["locator"]), doomed_save["record"])):
                for probe, got, expected in zip(_probes(f"doc{number}", record, generation),
                                                swapped(answers, number, record), missing):
                    assert got == expected, (name, probe, got, expected)

        async with server.mcp(reader) as mcp:
            mcp_missing = await _mcp_answers(mcp, f"doc{MISSING}", MISSING, generation)
            for locator, record in ((chat["locator"], hidden_save["record"]),
                                    (journal["locator"], doomed_save["record"])):
                got = await _mcp_answers(mcp, locator, record, generation)
                assert [as_missing(as_missing(t, doc_id(locator)), record) for t in got] == mcp_missing

        # what the reader may see still moves its generation, and its own forgotten note says so
        async with server.http(await server.token("owner-notes")) as owner:
            await owner.post("/v1/save", json={**NOTE, "text": "Ana likes aisle seats on night trains"},
                             headers={"Idempotency-Key": "n"})
        async with server.http(reader) as http:
            moved = (await http.get("/v1/capabilities")).json()["index"]["generation"]
            assert moved > generation
            await server.service.memory.forget(doc_id(mine["locator"]))
            bound = await http.post("/v1/read", json={"locator": mine["locator"], "generation": moved})
            assert bound.status_code == 409 and "removed" in bound.json()["error"], bound.text
            removed = json.loads(bound.text)["details"]["removed_generation"]
            assert (await http.get("/v1/capabilities")).json()["index"]["generation"] == removed > moved
