"""The memory server over MCP: the SDK's own client over Streamable HTTP, against the real server,
giving the same answers as REST for the same requests."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.server.conftest import running_server


async def test_tools_are_listed_with_their_input_schemas(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with server.mcp(await server.token()) as mcp:
            tools = {t.name: t for t in (await mcp.list_tools()).tools}
    assert list(tools) == ["search", "read", "list", "save", "delete"]
    assert tools["search"].input_schema["required"] == ["query"]
    assert "idempotency_key" in tools["save"].input_schema["properties"]
    assert "nothing_matched" in tools["search"].description


async def test_mcp_and_rest_give_the_same_answers(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        token = await server.token()
        async with server.http(token) as http, server.mcp(token) as mcp:
            for tool, request in (("search", {"query": "knee physio", "limit": 3}),
                                  ("search", {"query": "umbrella", "kind": "whatsapp", "mode": "keyword"}),
                                  ("list", {"limit": 3}),
                                  ("list", {"person": "Maya", "since": "2024-03"}),
                                  ("read", {"locator": "doc1", "window": 0})):
                rest = (await http.post(f"/v1/{tool}", json=request)).json()
                result = await mcp.call_tool(tool, request)
                assert not result.is_error
                assert result.structured_content == rest
                assert json.loads(result.content[0].text) == rest


async def test_saves_over_mcp_are_idempotent_and_checked(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with server.mcp(await server.token()) as mcp:
            note = {"text": "Ana's bike is in the Porto garage", "idempotency_key": "uuid-1"}
            first = (await mcp.call_tool("save", note)).structured_content
            retry = (await mcp.call_tool("save", note)).structured_content
            assert retry["locator"] == first["locator"] and retry["replayed"] and not first["replayed"]
            keyless = {"text": "Call the garage on Monday", "kind": "decision"}
            one, two = [(await mcp.call_tool("save", keyless)).structured_content for _ in range(2)]
            assert one["record"] == two["record"]  # the same content without a key is still one record

            stale = await mcp.call_tool("save", {"text": "moved", "replaces": first["record"],
                                                 "expected_hash": "0" * 64, "idempotency_key": "uuid-2"})
            assert stale.is_error and stale.content[0].text.startswith("409: ")
            assert json.loads(stale.content[0].text[5:])["details"]["hash"] == first["hash"]
            fixed = await mcp.call_tool("save", {"text": "moved to Lisbon", "replaces": first["locator"],
                                                 "expected_hash": first["hash"], "idempotency_key": "uuid-3"})
            assert fixed.structured_content["version"] == 2
            read = (await mcp.call_tool("read", {"locator": fixed.structured_content["locator"]})).structured_content
            assert read["text"] == "moved to Lisbon"

            bad = await mcp.call_tool("search", {"query": ""})
            assert bad.is_error and bad.content[0].text.startswith("400: ")
            refusal = json.loads(bad.content[0].text[5:])
            assert refusal["error"].startswith("query: ") and "input schema of `search`" in refusal["hint"]


async def test_mcp_checks_tokens_and_permissions(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        reader = await server.token("reader", allow=["search"])
        async with server.mcp(reader) as mcp:
            refused = await mcp.call_tool("save", {"text": "x"})
            assert refused.is_error and refused.content[0].text.startswith("403: ")
            assert "may not save" in refused.content[0].text
        async with httpx.AsyncClient() as http:
            raw = await http.post(f"{server.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                  headers={"Accept": "application/json, text/event-stream"})
        assert raw.status_code == 401 and raw.json()["error"] == "no bearer token"
        await server.service.clients.revoke("reader")
        with pytest.raises(Exception):
            async with server.mcp(reader) as mcp:
                await mcp.list_tools()
        with pytest.raises(Exception):
            async with server.mcp("bio_0123456789ab_" + "x" * 43) as mcp:
                await mcp.list_tools()


async def test_a_hidden_source_reads_as_a_missing_one_over_mcp(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with server.mcp(await server.token()) as mcp:
            chat = (await mcp.call_tool("search", {"query": "ferry Tavira"})).structured_content["results"][0]
        number = chat["locator"][3:].split(":")[0]
        async with server.mcp(await server.token("reader", sections=["documents", "notes"])) as mcp:
            hidden = await mcp.call_tool("read", {"locator": chat["locator"]})
            missing = await mcp.call_tool("read", {"locator": "doc999"})
            rewrite = await mcp.call_tool("save", {"text": "x", "replaces": chat["locator"],
                                                   "expected_hash": "0" * 64})
        assert hidden.is_error and missing.is_error and rewrite.is_error
        assert missing.content[0].text.startswith("404: ")
        for answer in (hidden, rewrite):
            assert answer.content[0].text.replace(f"document {number} ", "document 999 ") == missing.content[0].text


async def test_a_get_stream_is_refused_at_once_not_held_open(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        token = await server.token()
        async with httpx.AsyncClient(timeout=10) as http:
            stream = await http.get(f"{server.url}/mcp", headers={"Authorization": f"Bearer {token}",
                                                                  "Accept": "text/event-stream"})
        assert stream.status_code == 405 and set(stream.json()) == {"error", "hint"}
        async with server.mcp(token) as mcp:  # the SDK's client goes on without the stream
            assert [t.name for t in (await mcp.list_tools()).tools][0] == "search"
