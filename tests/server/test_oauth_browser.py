"""A remote connector signing in as Claude.ai's does, end to end: the `mcp` SDK's own OAuth client
(`OAuthClientProvider`) discovers the server from its 401, registers, sends the owner's browser
(the real Chromium) to the consent page from another site, gets the code back at its redirect URI,
exchanges it with PKCE, calls a tool with the SDK's MCP client, refreshes, and revokes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Thread
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import httpx2
import pytest
from mcp import Client as McpClient
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from tests.server.conftest import running_server
from tests.server.test_oauth import Clock
from tests.server.test_page import page_token
from tests.server.test_page_browser import browser  # noqa: F401 (the module's Chromium)

pytestmark = pytest.mark.asyncio(loop_scope="module")


class Memory:
    """The SDK's TokenStorage, kept in memory as a connector keeps it in its own store."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


@contextmanager
def connector_site() -> Iterator[tuple[str, dict]]:
    """The app's own web site on `localhost` (another site than the server's 127.0.0.1, as
    claude.ai is): /start links to the authorization URL, /callback receives the answer."""
    received: dict = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            if parts.path == "/start":
                body = f'<a id="connect" href="{query["to"][0]}">Connect Biographer</a>'.encode()
            else:
                received.update({k: v[0] for k, v in query.items()})
                body = b"<p id='done'>You can close this window.</p>"
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://localhost:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


async def test_a_connector_signs_in_with_the_owners_consent_calls_refreshes_and_revokes(browser, settings, tmp_path):
    clock = Clock()
    async with running_server(settings, tmp_path, clock=clock) as server:
        owner_token = await page_token(server)
        await server.indexer_idle()
        context = await browser.new_context()
        page = await context.new_page()
        page.set_default_timeout(15_000)
        with connector_site() as (site, received):
            visited: list[str] = []
            page.on("framenavigated", lambda frame: visited.append(frame.url))

            async def consent_in_the_browser(authorization_url: str) -> None:
                # as from claude.ai: the owner clicks "Connect" on the app's own site
                await page.goto(f"{site}/start?" + urlencode({"to": authorization_url}))
                await page.click("#connect")
                await page.wait_for_url("**/login**")  # this browser has no session yet
                await page.fill("#token", owner_token)
                await page.click("button[type=submit]")
                await page.wait_for_url("**/oauth/consent**")
                assert "Claude" in await page.locator("h1").inner_text()
                # the SDK asks for every scope the metadata lists; the page ticks what was asked
                ticked = page.locator("input[name=operations]:checked")
                assert await ticked.evaluate_all("boxes => boxes.map(b => b.value)") == [
                    "search", "read", "list", "save", "delete"]
                for narrowed in ("list", "delete"):  # and the owner narrows it
                    await page.uncheck(f"input[name=operations][value={narrowed}]")
                await page.check("input[name=scope_sections][value=some]")
                for section in ("chats", "notes"):
                    await page.check(f"input[name=sections][value={section}]")
                await page.click("button[value=allow]")
                await page.locator("#done").wait_for()

            async def code_from_the_redirect() -> AuthorizationCodeResult:
                return AuthorizationCodeResult(code=received["code"], state=received.get("state"),
                                               iss=received.get("iss"))

            storage = Memory()
            provider = OAuthClientProvider(
                server_url=f"{server.url}/mcp",
                client_metadata=OAuthClientMetadata(client_name="Claude", redirect_uris=[f"{site}/callback"],
                                                    grant_types=["authorization_code", "refresh_token"],
                                                    response_types=["code"]),
                storage=storage, redirect_handler=consent_in_the_browser, callback_handler=code_from_the_redirect)
            http = httpx2.AsyncClient(auth=provider, timeout=30)
            async with McpClient(streamable_http_client(f"{server.url}/mcp", http_client=http)) as mcp:
                found = await mcp.call_tool("search", {"query": "ferry Tavira"})
                assert not found.is_error
                hits = found.structured_content["results"]
                assert hits and {h["section"] for h in hits} == {"chats"}  # only what the owner allowed
                listed = await mcp.call_tool("list", {})
                assert listed.is_error and "may not list" in listed.content[0].text

                # what the owner sees: a client like the others, with what they chose
                grant = next(c for c in await server.service.clients.list() if c.oauth_app)
                assert (grant.name, grant.operations, grant.sections) == ("Claude", ("search", "read", "save"),
                                                                          ("chats", "notes"))
                assert grant.oauth_app == storage.client.client_id
                assert storage.tokens.scope == "search read save"

                # an hour on, the access token has expired: the SDK refreshes before its next call
                first = storage.tokens
                clock.offset = timedelta(minutes=61)
                provider.context.token_expiry_time = time.time() - 1
                again = await mcp.call_tool("search", {"query": "ferry Tavira"})
                assert not again.is_error
                assert storage.tokens.access_token != first.access_token
                assert storage.tokens.refresh_token != first.refresh_token  # rotated

                # the app signs out: RFC 7009 revocation of its refresh token ends the grant
                async with httpx.AsyncClient(base_url=server.url) as plain:
                    revoked = await plain.post("/revoke", data={"token": storage.tokens.refresh_token,
                                                                "client_id": storage.client.client_id})
                    assert revoked.status_code == 200
                    refused = await plain.get("/v1/capabilities",
                                              headers={"Authorization": f"Bearer {storage.tokens.access_token}"})
                assert refused.status_code == 401 and "revoked" in refused.json()["error"]
                assert [c.name for c in await server.service.clients.list() if c.oauth_app] == []

            # connecting again, already logged in: the browser withholds the SameSite=Strict cookie
            # on a navigation from another site, and the consent page gets it back without a login
            async def consent_when_logged_in(authorization_url: str) -> None:
                visited.clear()
                await page.goto(f"{site}/start?" + urlencode({"to": authorization_url}))
                await page.click("#connect")
                await page.locator("button[value=allow]").click()
                await page.locator("#done").wait_for()
                assert not [url for url in visited if "/login" in url], visited

            received.clear()
            again = OAuthClientProvider(
                server_url=f"{server.url}/mcp", client_metadata=provider.context.client_metadata, storage=Memory(),
                redirect_handler=consent_when_logged_in, callback_handler=code_from_the_redirect)
            async with McpClient(streamable_http_client(f"{server.url}/mcp",
                                                        http_client=httpx2.AsyncClient(auth=again, timeout=30))) as mcp:
                assert not (await mcp.call_tool("search", {"query": "ferry Tavira"})).is_error
        await context.close()
