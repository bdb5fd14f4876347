"""Odd input everywhere the memory server and the page take any: every answer is below 500, and
every refusal over REST is `{"error", "hint"}` and over MCP a tool error with its status and hint
in the text. (A number in a page's address beyond SQLite's integers was a 500.)"""

from __future__ import annotations

import json

from mcp.shared.exceptions import MCPError

from tests.server.conftest import running_server
from tests.server.test_page import csrf_of, logged_in

ODD_STRINGS = ["", "\x00", "😀" * 30, "1e400", "-1", "9" * 40, "doc1:5-2", "doc1:0-99999999999999999999999",
               "doc٣", "../../etc/passwd", "%00", "doc99999999999999999999", " doc1 ", "doc0"]
DATES = ["9999-12-31T23:59:59+14:00", "0001-01-01T00:00:00-12:00", "0001-01-01", "10000-01-01", "2024-02-30",
         "1e400", "٢٠٢٤", "2024-06-01T00:00:00+23:59", "9999-12-31T23:59:59.999999-14:00"]


async def test_odd_input_over_rest_and_the_page_is_a_4xx_in_one_shape(settings, tmp_path):
    bad = []
    settings = settings.model_copy(update={"api_rate_per_minute": 1_000_000})
    async with running_server(settings, tmp_path) as server:
        token = await server.token("prober", allow=["search", "read", "list", "save", "delete"])
        async with server.http(token) as http:
            async def check(method, path, **kw):
                r = await http.request(method, path, **kw)
                ok = r.status_code < 500
                try:
                    body = r.json()
                    shape = r.status_code < 400 or set(body) >= {"error", "hint"}
                except (ValueError, TypeError):
                    shape = r.status_code < 400
                if r.status_code == 429:
                    raise AssertionError("rate limited")
                if not ok or not shape:
                    bad.append((method, path, json.dumps(kw.get("json"), ensure_ascii=True)[:120] if kw.get("json") is not None else kw.get("content", b"")[:60], r.status_code, r.text[:200]))
            for s in ODD_STRINGS:
                await check("POST", "/v1/read", json={"locator": s})
                await check("POST", "/v1/read", json={"locator": s, "window": 5000})
                await check("POST", "/v1/search", json={"query": s or "x", "person": s})
                await check("POST", "/v1/search", json={"query": s or "x", "kind": s})
                await check("POST", "/v1/list", json={"cursor": s})
                await check("POST", "/v1/list", json={"section": s})
                await check("POST", "/v1/save", json={"text": "x" + s, "replaces": s, "expected_hash": "0" * 64},
                            headers={"Idempotency-Key": "k" + s.encode("utf-8").hex()[:50]})
                await check("POST", "/v1/save", json={"text": "x", "section": s})
                await check("DELETE", "/v1/saves/" + s.replace("\x00", "%00").replace("/", "%2F"))
            for d in DATES:
                for field in ("since", "until"):
                    await check("POST", "/v1/search", json={"query": "ferry", field: d})
                    await check("POST", "/v1/list", json={field: d})
                await check("POST", "/v1/save", json={"text": "d", "date": d}, headers={"Idempotency-Key": "d" + d.encode().hex()[:40]})
            for body in (b"", b"null", b"[]", b"1", b"{", b'{"query": 1}', b'{"query": ["a"]}', b'{"query": "a", "limit": 1e400}',
                         b'{"query": "a", "limit": 99999999999999999999999}', b'{"query":"a","extra":1}', b"\xff\xfe",
                         b'{"locator": "doc1", "generation": 99999999999999999999999}', b'{"locator": "doc1", "generation": -1}',
                         b'{"locator": "doc1", "window": 1e400}', b'{"text": "x", "replaces": 1e400}',
                         b'{"text": "x", "replaces": 99999999999999999999999}', b'{"text": "x", "replaces": -5}',
                         b'{"text": "x", "replaces": true}', b'{"text": "x", "replaces": 1.5}'):
                for path in ("/v1/search", "/v1/read", "/v1/list", "/v1/save"):
                    await check("POST", path, content=body, headers={"content-type": "application/json", "Idempotency-Key": "b" + body.hex()[:40]})
            await check("POST", "/v1/search", content=b'{"query":"a"}', headers={"content-type": "text/plain"})
            await check("GET", "/v1/nothing")
            await check("PUT", "/v1/search", json={})
            await check("GET", "/v1/saves/1")
            await check("POST", "/v1/save", json={"text": "x"}, headers={"Idempotency-Key": ("é" * 300).encode("utf-8")})
        async with logged_in(server) as page:
            csrf = {"X-CSRF-Token": csrf_of((await page.get("/imports")).text)}
            async def pcheck(method, path, **kw):
                r = await page.request(method, path, **kw)
                if r.status_code >= 500:
                    bad.append(("PAGE", method, path, r.status_code, r.text[:200]))
            for s in ODD_STRINGS:
                q = s.replace("%", "%25").replace("/", "%2F").replace("\x00", "%00") if s else "x"
                await pcheck("GET", f"/passage/{q}")
                await pcheck("GET", f"/people/{q}")
                await pcheck("GET", "/search", params={"q": s, "person": s, "kind": s})
                await pcheck("GET", "/search", params={"person": s})
                await pcheck("GET", "/search", params={"cursor": s, "since": "2020"})
                await pcheck("GET", "/saves", params={"client": s})
                await pcheck("POST", f"/saves/{q}/delete", headers=csrf)
                await pcheck("GET", "/bio/history", params={"since": s})
                await pcheck("POST", f"/bio/undo/{q}", headers=csrf)
                await pcheck("POST", f"/questions/{q}/answer", headers=csrf, data={"answer": "x"})
                await pcheck("GET", f"/imports/{q}")
                await pcheck("POST", f"/imports/{q}/start", headers=csrf)
                await pcheck("POST", f"/imports/{q}/files", params={"name": s}, headers=csrf, content=b"x")
            for d in DATES:
                await pcheck("GET", "/search", params={"since": d})
                await pcheck("GET", "/search", params={"until": d, "q": "ferry"})
                await pcheck("GET", "/bio/history", params={"since": d})
            for y in ("0", "-1", "10000", "1e400", "99999999999999999999"):
                await pcheck("GET", "/timeline", params={"year": y})
                await pcheck("GET", "/timeline", params={"year": "2024", "month": y})
                await pcheck("GET", "/search", params={"q": "x", "limit": y})
                await pcheck("GET", f"/passage/doc1", params={"window": y})
            job = (await page.post("/imports", headers=csrf)).json()
            for name in ("", ".", "..", "a/", "\x00", "é" * 200, "😀" * 100 + ".txt", "CON", " ", ".hidden", "a\\b", "a" * 300):
                await pcheck("POST", f"/imports/{job['id']}/files", params={"name": name}, headers=csrf, content=b"x")
    assert bad == [], "\n".join(map(str, bad))


async def test_odd_input_over_mcp_is_a_tool_error_with_its_hint(settings, tmp_path):
    bad = []
    settings = settings.model_copy(update={"api_rate_per_minute": 1_000_000})
    async with running_server(settings, tmp_path) as server:
        token = await server.token("prober", allow=["search", "read", "list", "save", "delete"])
        async with server.mcp(token) as mcp:
            async def call(tool, args):
                try:
                    r = await mcp.call_tool(tool, args)
                except MCPError as error:  # a protocol error, not the tool's refusal
                    bad.append((tool, args, "raised", repr(error)[:200]))
                    return
                if r.is_error:  # "404: {"error": ..., "hint": ...}"
                    status, _, body = (r.content[0].text if r.content else "").partition(": ")
                    if not (status.isdigit() and 400 <= int(status) < 500 and set(json.loads(body)) == {"error", "hint"}):
                        bad.append((tool, json.dumps(args, ensure_ascii=True)[:100], r.content[0].text[:200]))
            for s in ODD_STRINGS:
                await call("read", {"locator": s})
                await call("search", {"query": s or "x", "person": s})
                await call("search", {"query": "x", "kind": s})
                await call("list", {"cursor": s})
                await call("save", {"text": "x" + s, "replaces": s, "expected_hash": "0" * 64})
                await call("delete", {"record": s})
            for d in DATES:
                await call("search", {"query": "ferry", "since": d})
                await call("list", {"until": d})
            for args in ({"record": 10**30}, {"record": -1}, {"record": 1e400}, {}):
                await call("delete", args)
            for args in ({"locator": "doc1", "generation": 10**30}, {"locator": "doc1", "window": 10**9}, {}, {"locator": 5}):
                await call("read", args)
            await call("search", {"query": "x", "limit": 10**30})
            await call("nosuchtool", {})
    assert bad == [], "\n".join(map(str, bad))
