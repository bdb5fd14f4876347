"""The memory server over REST: the real server on a free port, driven with httpx."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from core.config import Settings
from core.serving.clients import OWNER
from core.serving.saves import SaveRequest
from tests.core.helpers import whatsapp_export
from tests.server.conftest import running_server

SAVE = {"text": "Ana prefers window seats on trains", "kind": "preference", "section": "notes"}


async def test_search_read_list_and_save_round_trip(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with server.http(await server.token()) as http:
            found = (await http.post("/v1/search", json={"query": "knee physio", "limit": 5})).json()
            assert found["outcome"] == "matched" and found["index"]["state"] == "ready"
            hit = next(h for h in found["results"] if h["source"] == "WhatsApp with Maya")
            assert set(hit["speakers"]) == {"Maya", "Ana"} and hit["section"] == "chats"

            read = await http.post("/v1/read", json={"locator": hit["locator"], "generation": hit["generation"],
                                                     "expected_hash": hit["source_hash"]})
            assert read.status_code == 200
            body = read.json()
            assert body["text"].strip() == hit["text"] and body["source"] == "WhatsApp with Maya"
            assert set(body["senders"]) == {"Maya", "Ana"} and body["time_end"].startswith("2024-03-14T08:20")

            saved = await http.post("/v1/save", json=SAVE, headers={"Idempotency-Key": "seat-1"})
            assert saved.status_code == 200, saved.text
            record = saved.json()
            assert record["status"] == "saved" and record["section"] == "notes" and record["version"] == 1
            again = (await http.post("/v1/read", json={"locator": record["locator"]})).json()
            assert again["text"] == SAVE["text"] and again["source_hash"] == record["hash"]
            assert again["section"] == "notes" and again["record"] == record["record"]

            listed = (await http.post("/v1/list", json={"section": "notes"})).json()
            assert [i["locator"] for i in listed["items"]] == [record["locator"]]
            assert listed["next_cursor"] is None


async def test_search_says_nothing_matched_index_building_or_unavailable(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with server.http(await server.token()) as http:
            nothing = (await http.post("/v1/search", json={"query": "zeppelin", "mode": "keyword"})).json()
            assert nothing["outcome"] == "nothing_matched" and nothing["results"] == []
            filtered = (await http.post("/v1/search", json={"query": "knee", "since": "2030"})).json()
            assert filtered["outcome"] == "nothing_matched"
            # hybrid search always has a nearest passage: the answer says no passage holds the words
            closest = (await http.post("/v1/search", json={"query": "zeppelin"})).json()
            assert closest["outcome"] == "matched" and closest["evidence"] == "meaning_only"
            assert "none contains the query's words" in closest["message"]
            worded = (await http.post("/v1/search", json={"query": "knee"})).json()
            assert worded["evidence"] == "words"

            server.embedder.gate.clear()  # indexing now waits: what is saved stays pending
            await http.post("/v1/save", json=SAVE, headers={"Idempotency-Key": "k"})
            building = (await http.post("/v1/search", json={"query": "zeppelin", "mode": "keyword"})).json()
            assert building["outcome"] == "index_building" and building["index"]["pending"] >= 1
            assert "still building" in building["message"]
            server.embedder.gate.set()
            await server.indexer_idle()

            from storage.meta import set_meta  # another model recorded: semantic search cannot run
            await set_meta(server.service.memory.conn, "embedding_model", "some-other-model")
            down = await http.post("/v1/search", json={"query": "knee"})
            assert down.status_code == 503
            assert down.json()["outcome"] == "unavailable" and "some-other-model" in down.json()["message"]
            keyword = await http.post("/v1/search", json={"query": "knee", "mode": "keyword"})
            assert keyword.json()["outcome"] == "matched"


async def test_a_retried_save_returns_the_first_record(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with server.http(await server.token()) as http:
            first, retry = await asyncio.gather(
                http.post("/v1/save", json=SAVE, headers={"Idempotency-Key": "abc"}),
                http.post("/v1/save", json=SAVE, headers={"Idempotency-Key": "abc"}))
            assert first.json()["locator"] == retry.json()["locator"]
            assert sorted([first.json()["replayed"], retry.json()["replayed"]]) == [False, True]
            later = await http.post("/v1/save", json=SAVE, headers={"Idempotency-Key": "abc"})
            assert later.json()["record"] == first.json()["record"] and later.json()["replayed"]

            other = await http.post("/v1/save", json={**SAVE, "text": "aisle"}, headers={"Idempotency-Key": "abc"})
            assert other.status_code == 409 and "different save" in other.json()["error"]
            keyless = await http.post("/v1/save", json=SAVE)
            assert keyless.status_code == 400 and "Idempotency-Key" in keyless.json()["error"]
            listed = (await http.post("/v1/list", json={"section": "notes"})).json()
            assert len(listed["items"]) == 1


async def test_a_correction_needs_the_current_hash_and_keeps_history(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with server.http(await server.token()) as http:
            v1 = (await http.post("/v1/save", json=SAVE, headers={"Idempotency-Key": "1"})).json()
            fix = {**SAVE, "text": "Ana prefers aisle seats on trains", "replaces": v1["record"]}
            stale = await http.post("/v1/save", json={**fix, "expected_hash": "0" * 64},
                                    headers={"Idempotency-Key": "2"})
            assert stale.status_code == 409
            assert stale.json()["details"] == {"record": v1["record"], "version": 1, "hash": v1["hash"],
                                               "locator": v1["locator"]}
            v2 = (await http.post("/v1/save", json={**fix, "expected_hash": v1["hash"]},
                                  headers={"Idempotency-Key": "3"})).json()
            assert v2["record"] == v1["record"] and v2["version"] == 2 and v2["replaced"] == v1["locator"]
            # a second agent still holding version 1 is refused, not allowed to overwrite version 2
            late = await http.post("/v1/save", json={**fix, "text": "no preference", "replaces": v1["locator"],
                                                     "expected_hash": v1["hash"]}, headers={"Idempotency-Key": "4"})
            assert late.status_code == 409 and late.json()["details"]["hash"] == v2["hash"]

            bound = await http.post("/v1/read", json={"locator": v1["locator"], "generation": v1["generation"]})
            assert bound.status_code == 409 and "corrected" in bound.json()["error"]
            assert bound.json()["details"]["current"] == v2["locator"]
            history = (await http.post("/v1/read", json={"locator": v1["locator"]})).json()
            assert "window seats" in history["text"] and history["superseded_by"] == v2["locator"]

            await server.indexer_idle()
            found = (await http.post("/v1/search", json={"query": "Ana prefers seats on trains"})).json()
            saved_hits = [h for h in found["results"] if h.get("record") == v1["record"]]
            assert [h["locator"] for h in saved_hits] == [v2["locator"]]
            old = (await http.post("/v1/list", json={"section": "notes", "status": "superseded"})).json()
            assert [i["locator"] for i in old["items"]] == [v1["locator"]]


async def test_a_save_is_readable_before_it_is_searchable(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with server.http(await server.token()) as http:
            server.embedder.gate.clear()
            saved = (await http.post("/v1/save", json={"kind": "recommendation", "text": "Read Piranesi",
                                                       "person": "Maya"}, headers={"Idempotency-Key": "p"})).json()
            assert saved["searchable"] is False
            read = (await http.post("/v1/read", json={"locator": saved["locator"]})).json()
            assert read["text"] == "Read Piranesi\nRecommended by: Maya"
            pending = (await http.post("/v1/list", json={"status": "pending"})).json()
            assert [i["locator"] for i in pending["items"]] == [saved["locator"]]
            assert pending["items"][0]["searchable"] is False

            server.embedder.gate.set()
            await server.indexer_idle()
            assert (await http.post("/v1/list", json={"status": "pending"})).json()["items"] == []
            caps = (await http.get("/v1/capabilities")).json()
            assert caps["index"]["pending"] == 0 and caps["index"]["state"] == "ready"
            semantic = (await http.post("/v1/search", json={"query": "Piranesi Maya", "mode": "semantic"})).json()
            assert semantic["results"][0]["locator"] == saved["locator"]


async def test_a_link_alone_says_the_page_was_not_read(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with server.http(await server.token()) as http:
            saved = (await http.post("/v1/save", json={"kind": "link", "url": "https://example.org/essay"},
                                     headers={"Idempotency-Key": "l"})).json()
            text = (await http.post("/v1/read", json={"locator": saved["locator"]})).json()["text"]
            assert text == "Link: https://example.org/essay (only the address was saved: the page was not fetched or read)"
            bad = await http.post("/v1/save", json={"kind": "link", "url": "file:///etc/passwd"},
                                  headers={"Idempotency-Key": "m"})
            assert bad.status_code == 400


async def test_pagination_returns_every_passage_exactly_once(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        folder = tmp_path / "more"
        folder.mkdir()
        for day in range(1, 13):
            (folder / f"2023-06-{day:02d} day.md").write_text(f"Day {day}: walked by the river.\n", encoding="utf-8")
        (folder / "undated notes.md").write_text("Things to remember, no date.\n", encoding="utf-8")
        await server.service.memory.ingest([folder])
        async with server.http(await server.token()) as http:
            everything = (await http.post("/v1/list", json={"limit": 500})).json()["items"]
            seen: list[str] = []
            cursor = None
            while True:
                page = (await http.post("/v1/list", json={"limit": 4, "cursor": cursor})).json()
                seen += [i["locator"] for i in page["items"]]
                if len(seen) == 8:  # something new arrives mid-listing: nothing shifts or repeats
                    await http.post("/v1/save", json=SAVE, headers={"Idempotency-Key": "mid"})
                cursor = page["next_cursor"]
                if cursor is None:
                    break
            expected = [i["locator"] for i in everything]
            assert len(seen) == len(set(seen)) and set(expected) <= set(seen)
            assert len(expected) == 17  # 12 days, 2 chat windows, 2 journal entries, 1 undated note
            times = [i["time"] for i in everything]
            assert times[-1] is None and times[:-1] == sorted(times[:-1])

            garbage = await http.post("/v1/list", json={"limit": 4, "cursor": "not-a-cursor"})
            assert garbage.status_code == 400 and "not a cursor" in garbage.json()["error"]
            first = (await http.post("/v1/list", json={"limit": 2})).json()
            wrong = await http.post("/v1/list", json={"limit": 2, "kind": "markdown", "cursor": first["next_cursor"]})
            assert wrong.status_code == 400 and "another listing" in wrong.json()["error"]


async def test_filters_narrow_list_and_search(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with server.http(await server.token()) as http:
            maya = (await http.post("/v1/list", json={"person": "Maya"})).json()["items"]
            assert maya and all("Maya" in i["speakers"] for i in maya)
            march = (await http.post("/v1/list", json={"since": "2024-03-10", "until": "2024-03"})).json()["items"]
            assert [i["time"][:10] for i in march] == ["2024-03-14"]
            journals = (await http.post("/v1/search", json={"query": "knee", "kind": "markdown"})).json()
            assert {h["kind"] for h in journals["results"]} == {"markdown"}


async def test_who_may_do_what(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        reader = await server.token("reader", allow=["search", "read"], sections=["documents", "notes"])
        async with server.http(None) as anonymous:
            missing = await anonymous.get("/v1/capabilities")
            assert missing.status_code == 401 and missing.json()["error"] == "no bearer token"
            assert missing.headers["www-authenticate"].startswith("Bearer")
            for header, why in (("Basic abc", "not `Bearer TOKEN`"), ("Bearer nope", "malformed token"),
                                ("Bearer bio_0123456789ab_" + "x" * 43, "unknown token")):
                refused = await anonymous.get("/v1/capabilities", headers={"Authorization": header})
                assert refused.status_code == 401 and why in refused.json()["error"]
                assert "\n" not in refused.json()["error"]
        async with server.http(reader) as http:
            caps = (await http.get("/v1/capabilities")).json()
            assert caps["operations"] == ["search", "read"] and caps["sections"] == ["documents", "notes"]
            assert caps["sections_held"] == ["documents"]
            assert (await http.post("/v1/list", json={})).status_code == 403
            save = await http.post("/v1/save", json=SAVE, headers={"Idempotency-Key": "x"})
            assert save.status_code == 403 and "may not save" in save.json()["error"]
            found = (await http.post("/v1/search", json={"query": "knee physio Maya"})).json()
            assert found["results"] and {h["section"] for h in found["results"]} == {"documents"}
            chats = await http.post("/v1/search", json={"query": "knee", "kind": "whatsapp"})
            assert chats.status_code == 403 and "section 'chats'" in chats.json()["error"]
        async with server.http(await server.token()) as http:
            chat = (await http.post("/v1/search", json={"query": "ferry Tavira"})).json()["results"][0]
        async with server.http(reader) as http:
            hidden = await http.post("/v1/read", json={"locator": chat["locator"]})
            assert hidden.status_code == 404 and "'chats'" not in hidden.text

        writer = await server.token("writer", allow=["save", "read"], sections=["notes", "chats"])
        async with server.http(writer) as http:
            into_chats = await http.post("/v1/save", json={**SAVE, "section": "chats"}, headers={"Idempotency-Key": "c"})
            assert into_chats.status_code == 403 and "imported sources" in into_chats.json()["error"]
            rewrite = await http.post("/v1/save", json={**SAVE, "replaces": chat["locator"], "expected_hash": "0" * 64},
                                      headers={"Idempotency-Key": "r"})
            assert rewrite.status_code == 403 and "never rewrite" in rewrite.json()["error"]

        await server.service.clients.revoke("reader")
        async with server.http(reader) as http:
            revoked = await http.get("/v1/capabilities")
            assert revoked.status_code == 401 and "revoked" in revoked.json()["error"]


def _as_missing(response, number: int, missing: int) -> dict:
    """A response's body with the id it names swapped for the missing one's: equal bodies then mean
    the client cannot tell the two apart."""
    return json.loads(response.text.replace(str(number), str(missing)))


async def test_what_a_client_may_not_see_does_not_exist(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with server.http(await server.token("owner-agent")) as owner:
            chat = (await owner.post("/v1/search", json={"query": "ferry Tavira"})).json()["results"][0]
            private = (await owner.post("/v1/save", json={**SAVE, "section": "private"},
                                        headers={"Idempotency-Key": "p"})).json()
        await server.indexer_idle()
        chat_id = int(chat["locator"][3:].split(":")[0])
        private_id = int(private["locator"][3:].split(":")[0])
        reader = await server.token("reader", sections=["documents", "notes"])
        async with server.http(reader) as http:
            missing = await http.post("/v1/read", json={"locator": "doc999"})
            assert missing.status_code == 404
            for number, locator in ((chat_id, chat["locator"]), (private_id, private["locator"])):
                hidden = await http.post("/v1/read", json={"locator": locator})
                assert hidden.status_code == 404 and _as_missing(hidden, number, 999) == missing.json()

            def correction(replaces) -> dict:
                return {**SAVE, "replaces": replaces, "expected_hash": "0" * 64}
            gone = await http.post("/v1/save", json=correction("doc999"), headers={"Idempotency-Key": "a"})
            for number, locator in ((chat_id, chat["locator"]), (private_id, private["locator"])):
                hidden = await http.post("/v1/save", json=correction(locator), headers={"Idempotency-Key": locator})
                assert hidden.status_code == gone.status_code == 404
                assert _as_missing(hidden, number, 999) == gone.json()
                assert "Maya" not in hidden.text and "private" not in hidden.text
            no_record = await http.post("/v1/save", json=correction(999), headers={"Idempotency-Key": "b"})
            hidden = await http.post("/v1/save", json=correction(private["record"]), headers={"Idempotency-Key": "c"})
            assert hidden.status_code == no_record.status_code == 404
            assert _as_missing(hidden, private["record"], 999) == no_record.json()

            # a kind filter is refused by the token alone: held or not, the answer is the same
            for path, extra in (("/v1/search", {"query": "ferry"}), ("/v1/list", {})):
                held = await http.post(path, json={**extra, "kind": "whatsapp"})
                absent = await http.post(path, json={**extra, "kind": "signal"})
                assert held.status_code == absent.status_code == 403
                assert held.json()["error"].replace("whatsapp", "signal") == absent.json()["error"]

            # counts are over what the reader may see: what the owner adds elsewhere moves none of them
            before = (await http.get("/v1/capabilities")).json()
            listed = (await http.post("/v1/list", json={"status": "all", "limit": 500})).json()["items"]
            assert before["index"]["passages"] == len(listed) > 0
            searched = (await http.post("/v1/search", json={"query": "zeppelin", "mode": "keyword"})).json()
            async with server.http(await server.token("owner-agent-2")) as owner:
                server.embedder.gate.clear()  # the owner's new chat stays pending: the reader is not told
                folder = tmp_path / "more"
                folder.mkdir()
                whatsapp_export(folder / "WhatsApp Chat with Mallory.txt",
                                ["05/06/2024, 10:00 - Mallory: the zeppelin leaves at noon"])
                await server.service.memory.ingest([folder], index=False)
                await owner.post("/v1/save", json={**SAVE, "text": "zeppelin", "section": "private"},
                                 headers={"Idempotency-Key": "q"})
            after = (await http.get("/v1/capabilities")).json()
            assert after["index"] == before["index"]  # the generation too: it moves only with what the reader sees
            assert after["sections_held"] == before["sections_held"] == ["documents"]
            again = (await http.post("/v1/search", json={"query": "zeppelin", "mode": "keyword"})).json()
            assert again["outcome"] == searched["outcome"] == "nothing_matched"
            assert again["index"] == searched["index"]
            server.embedder.gate.set()


async def test_a_forgotten_source_is_a_conflict_when_bound(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with server.http(await server.token()) as http:
            hit = (await http.post("/v1/search", json={"query": "ferry Tavira"})).json()["results"][0]
            await server.service.memory.forget(int(hit["locator"][3:].split(":")[0]))
            bound = await http.post("/v1/read", json={"locator": hit["locator"], "generation": hit["generation"]})
            assert bound.status_code == 409 and "removed" in bound.json()["error"]
            unbound = await http.post("/v1/read", json={"locator": hit["locator"]})
            assert unbound.status_code == 404 and "removed" in unbound.json()["error"]
            never = await http.post("/v1/read", json={"locator": "doc999"})
            assert never.status_code == 404 and "no document 999" in never.json()["error"]
            wrong_hash = await http.post("/v1/read", json={"locator": "doc1", "expected_hash": "f" * 64})
            assert wrong_hash.status_code == 409 and "content hash differs" in wrong_hash.json()["error"]


async def test_size_and_rate_limits(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", timezone="Europe/Lisbon", api_rate_per_minute=3,
                        api_max_body_bytes=2_000)
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with server.http(await server.token()) as http:
            big = await http.post("/v1/save", json={**SAVE, "text": "x" * 3_000}, headers={"Idempotency-Key": "b"})
            assert big.status_code == 413 and "over 2000 bytes" in big.json()["error"]
            statuses = [(await http.get("/v1/capabilities")).status_code for _ in range(4)]
            assert statuses == [200, 200, 200, 429]
            limited = await http.get("/v1/capabilities")
            assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
        async with server.http(await server.token("another")) as http:  # limits are per client
            assert (await http.get("/v1/capabilities")).status_code == 200


async def test_openapi_describes_the_contract(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with server.http(None) as http:
            schema = (await http.get("/openapi.json")).json()
    assert {"/v1/search", "/v1/read", "/v1/list", "/v1/save", "/v1/capabilities"} <= set(schema["paths"])
    save = schema["paths"]["/v1/save"]["post"]
    assert any(p["name"] == "Idempotency-Key" for p in save["parameters"])
    assert "409" in save["responses"]


async def test_tokens_never_reach_the_log(settings, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    async with running_server(settings, tmp_path) as server:
        token = await server.token()
        async with server.http(token) as http:
            await http.post("/v1/search", json={"query": "knee"})
            await http.post("/v1/save", json=SAVE, headers={"Idempotency-Key": "k"})
        async with server.http(token[:-1] + "A") as http:
            await http.get("/v1/capabilities")
    logged = "\n".join(r.getMessage() for r in caplog.records)
    leaked = [line for line in logged.splitlines() if token.split("_", 2)[2] in line or token[:-1] + "A" in line]
    assert logged and leaked == []


def _cursor(*parts) -> str:
    import base64
    return base64.urlsafe_b64encode(json.dumps(parts).replace("Infinity", "1e400").encode()).decode()


async def test_every_bad_input_is_a_4xx_with_one_shape(settings, tmp_path):
    edges = ("9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00", "0001-01-01T00:30:00+00:00")
    probes = [("GET", "/v1/nothing-here", None), ("PUT", "/v1/search", {"query": "x"}),
              ("POST", "/v1/search", "{not json"), ("POST", "/v1/list", [1, 2]),
              ("POST", "/v1/list", {"cursor": _cursor(1, "2024", float("inf"), "x")}),
              ("POST", "/v1/list", {"cursor": _cursor(1, "2024", 10**30, "x")}),
              ("POST", "/v1/list", {"cursor": "ünïcode"}),
              ("POST", "/v1/read", {"locator": "doc" + "9" * 50}),
              *[("POST", "/v1/search", {"query": "knee", "since": edge}) for edge in edges],
              *[("POST", "/v1/list", {"until": edge}) for edge in edges],
              *[("POST", "/v1/save", {**SAVE, "date": edge}) for edge in edges[:2]],
              *[("POST", "/v1/save", {**SAVE, "replaces": ident, "expected_hash": "0" * 64})
                for ident in ("9" * 40, 10**30, "²", "١٢", "doc١٢", "-3")]]
    async with running_server(settings, tmp_path) as server:
        async with server.http(await server.token()) as http:
            for number, (method, path, body) in enumerate(probes):
                sent = {"content": body} if isinstance(body, str) else {"json": body}
                answer = await http.request(method, path, headers={"Idempotency-Key": f"k{number}",
                                                                   "Content-Type": "application/json"}, **sent)
                assert 400 <= answer.status_code < 500, (method, path, body, answer.status_code, answer.text)
                assert set(answer.json()) == {"error", "hint"}, (path, body, answer.text)
                assert answer.json()["hint"], (path, body, answer.text)


async def test_forgetting_any_version_of_a_saved_record_forgets_them_all(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with server.http(await server.token()) as http:
            records = []
            for n, forget_version in enumerate((1, 2)):
                first = (await http.post("/v1/save", json={**SAVE, "text": f"Ana's locker code is 41{n}7"},
                                         headers={"Idempotency-Key": f"a{n}"})).json()
                second = (await http.post("/v1/save", json={**SAVE, "text": f"Ana's locker code is 58{n}2",
                                                            "replaces": first["record"], "expected_hash": first["hash"]},
                                          headers={"Idempotency-Key": f"b{n}"})).json()
                assert second["version"] == 2
                records.append((first, second))
                forgotten = first if forget_version == 1 else second
                await server.service.memory.forget(int(forgotten["locator"][3:].split(":")[0]))
                for version in (first, second):
                    read = await http.post("/v1/read", json={"locator": version["locator"]})
                    assert read.status_code == 404, (forget_version, read.text)
            listed = (await http.post("/v1/list", json={"section": "notes", "status": "all"})).json()
            assert listed["items"] == []
            found = (await http.post("/v1/search", json={"query": "locker code", "mode": "keyword"})).json()
            assert found["results"] == []
        store = (settings.data_dir / "biographer.sqlite3").read_bytes()
        assert b"locker code" not in store


async def test_a_save_that_fails_half_way_leaves_nothing(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        conn = server.service.memory.conn
        sources = len(await server.service.sources())
        # a fault at the last step of a save (as a kill between its writes would be): the version row
        await conn.execute("CREATE TEMP TRIGGER fail_version BEFORE INSERT ON saved_versions "
                           "BEGIN SELECT RAISE(ABORT, 'disk gone'); END")
        with pytest.raises(Exception, match="disk gone"):  # the store driver's own error (sqlite3 or sqlean)
            await server.serving.saves.save(OWNER, SaveRequest(text="Ana's spare key is under the mat"),
                                            idempotency_key="k")
        await conn.execute("DROP TRIGGER fail_version")
        assert len(await server.service.sources()) == sources  # no orphan passage
        async with server.http(await server.token()) as http:
            assert (await http.post("/v1/list", json={"status": "all"})).json()["items"] == []
            retried = await http.post("/v1/save", json={**SAVE, "text": "Ana's spare key is under the mat"},
                                      headers={"Idempotency-Key": "k"})
            assert retried.status_code == 200 and retried.json()["version"] == 1


async def test_an_agent_with_the_delete_scope_deletes_its_own_saves_only(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        mine, theirs = await server.token("mine"), await server.token("theirs")
        async with server.http(theirs) as http:
            other = (await http.post("/v1/save", json={**SAVE, "text": "Ana's gate code is 1234"},
                                     headers={"Idempotency-Key": "o"})).json()
        async with server.http(mine) as http:
            first = (await http.post("/v1/save", json=SAVE, headers={"Idempotency-Key": "m"})).json()
            second = (await http.post("/v1/save", json={**SAVE, "text": "Ana prefers aisle seats now",
                                                        "replaces": first["record"], "expected_hash": first["hash"]},
                                      headers={"Idempotency-Key": "n"})).json()
            missing = await http.delete("/v1/saves/999")
            refused = await http.delete(f"/v1/saves/{other['record']}")
            assert refused.status_code == missing.status_code == 404
            assert refused.json()["error"].replace(str(other["record"]), "999") == missing.json()["error"]
            deleted = await http.delete(f"/v1/saves/{first['record']}")
            assert deleted.status_code == 200 and deleted.json()["versions"] == 2
            for version in (first, second):
                assert (await http.post("/v1/read", json={"locator": version["locator"]})).status_code == 404
        assert [v.record_id for v in await server.service.save_shelf.list()] == [other["record"]]
        no_scope = await server.token("reader", allow=["search", "save"])
        async with server.http(no_scope) as http:
            assert (await http.delete(f"/v1/saves/{other['record']}")).status_code == 403
        async with server.mcp(theirs) as mcp:
            gone = await mcp.call_tool("delete", {"record": other["record"]})
            assert not gone.is_error and gone.structured_content["status"] == "deleted"
        assert await server.service.save_shelf.list() == []


async def test_openapi_declares_the_bearer_token_and_a_401_says_what_to_do(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with server.http(None) as http:
            schema = (await http.get("/openapi.json")).json()
            missing = await http.get("/v1/capabilities")
            wrong = await http.get("/v1/capabilities", headers={"Authorization": 'Bearer "quoted\\'})
    # what OpenAPI 3 says a bearer scheme is (the spec's Security Scheme Object), and every /v1 operation needs it
    assert schema["components"]["securitySchemes"]["bearer"]["type"] == "http"
    assert schema["components"]["securitySchemes"]["bearer"]["scheme"].lower() == "bearer"
    operations = [op for path, ops in schema["paths"].items() if path.startswith("/v1/") for op in ops.values()]
    assert len(operations) >= 6 and all(op["security"] == [{"bearer": []}] for op in operations)

    challenge = parse_www_authenticate(missing.headers["www-authenticate"])
    assert challenge["scheme"] == "bearer" and "error" not in challenge  # RFC 6750 §3.1: no credentials, no code
    assert "biographer clients add" in challenge["error_description"]
    refused = parse_www_authenticate(wrong.headers["www-authenticate"])
    assert refused["error"] == "invalid_token" and refused["error_description"].startswith("malformed token")


def parse_www_authenticate(value: str) -> dict[str, str]:
    """A challenge's parameters, read by the standard library's parser of HTTP lists with quoted
    strings (urllib.request, written for Digest's challenges, which share RFC 7235's auth-param grammar)."""
    from urllib.request import parse_http_list, parse_keqv_list

    scheme, _, rest = value.partition(" ")
    return {"scheme": scheme.lower(), **parse_keqv_list(parse_http_list(rest))}


async def test_a_filter_that_names_nothing_says_which_and_what_there_is(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        token = await server.token()
        async with server.http(token) as http, server.mcp(token) as mcp:
            kind = (await http.post("/v1/search", json={"query": "knee", "kind": "signal"})).json()
            assert kind["outcome"] == "nothing_matched"
            assert kind["message"].endswith("; no sources of kind 'signal' (kinds held: markdown, whatsapp)")
            person = (await http.post("/v1/search", json={"query": "knee", "person": "Zorro"})).json()
            assert "no one called 'Zorro' (people with the most messages: Maya)" in person["message"]
            section = (await http.post("/v1/list", json={"section": "reading"})).json()
            assert section["items"] == [] and section["message"] == (
                "section 'reading' holds nothing (sections that hold something: documents, chats)")
            assert (await mcp.call_tool("list", {"section": "reading"})).structured_content == section
            # each value names something: an empty answer has nothing more to say
            later = (await http.post("/v1/list", json={"person": "Maya", "since": "2030"})).json()
            assert later["items"] == [] and later["message"] is None
            assert "kinds held" not in (await http.post("/v1/search", json={"query": "zeppelin", "mode": "keyword"})
                                        ).json()["message"]
        async with server.http(await server.token("reader", sections=["documents"])) as http:
            person = (await http.post("/v1/search", json={"query": "knee", "person": "Zorro"})).json()
            assert person["outcome"] == "nothing_matched" and "Maya" not in person["message"]
            kind = (await http.post("/v1/list", json={"kind": "pdf"})).json()
            assert kind["message"] == "no sources of kind 'pdf' (kinds held: markdown)"
