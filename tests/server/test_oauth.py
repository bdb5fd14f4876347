"""The OAuth authorization server over plain HTTP (httpx against the real server): its metadata,
registration, the consent page as a logged-in owner posts it, and each refusal of the token
endpoint. The whole flow with the SDK's OAuth client and Chromium is test_oauth_browser.py."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from bot.cli import main
from bot.server.oauth import OAuthSite
from core.errors import UserFacingError

from tests.server.conftest import Running, running_server
from tests.server.test_page import csrf_of, logged_in
from tests.server.test_rest import parse_www_authenticate

# RFC 7636 Appendix B: this verifier's S256 challenge is the one printed there
VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
REDIRECT = "http://127.0.0.1:9/callback"


class Clock:
    def __init__(self) -> None:
        self.offset = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(timezone.utc) + self.offset


@dataclass
class App:
    client_id: str
    http: httpx.AsyncClient  # the app's own HTTP client (no cookie)

    async def token(self, **form: str) -> httpx.Response:
        return await self.http.post("/token", data={"client_id": self.client_id, **form})

    async def exchange(self, code: str, *, verifier: str = VERIFIER, redirect_uri: str = REDIRECT) -> httpx.Response:
        return await self.token(grant_type="authorization_code", code=code, code_verifier=verifier,
                                redirect_uri=redirect_uri)


async def register(http: httpx.AsyncClient, **metadata) -> httpx.Response:
    return await http.post("/register", json={"client_name": "Claude", "redirect_uris": [REDIRECT], **metadata})


async def consent(server: Running, app: App, owner: httpx.AsyncClient, *, operations=("search", "read"),
                  sections: tuple[str, ...] = (), decision: str = "allow", name: str = "Claude",
                  scope: str | None = None) -> dict[str, str]:
    """/authorize, then the consent page as the logged-in owner answers it: the redirect's query."""
    asked = {"response_type": "code", "client_id": app.client_id, "redirect_uri": REDIRECT, "state": "s1",
             "code_challenge": CHALLENGE, "code_challenge_method": "S256", "resource": f"{server.url}/mcp",
             **({"scope": scope} if scope else {})}
    sent = await app.http.get("/authorize?" + urlencode(asked))
    assert sent.status_code == 302, sent.text
    page = await owner.get(sent.headers["location"].removeprefix(server.url))
    assert page.status_code == 200, page.text
    fields = {k: v[0] for k, v in parse_qs(urlsplit(sent.headers["location"]).query).items()}
    form = {**fields, "csrf": csrf_of(page.text), "decision": decision, "name": name, "operations": list(operations),
            "scope_sections": "some" if sections else "all", "sections": list(sections)}
    answer = await owner.post("/oauth/consent", data=form, headers={"Origin": server.url})
    assert answer.status_code == 303, answer.text
    location = urlsplit(answer.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT
    return {k: v[0] for k, v in parse_qs(location.query).items()}


async def new_app(server: Running, http: httpx.AsyncClient) -> App:
    registered = await register(http)
    assert registered.status_code == 201, registered.text
    return App(client_id=registered.json()["client_id"], http=http)


async def signed_in(server: Running, app: App, owner: httpx.AsyncClient, **choices) -> dict:
    answer = await consent(server, app, owner, **choices)
    tokens = await app.exchange(answer["code"])
    assert tokens.status_code == 200, tokens.text
    return tokens.json()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_metadata_tells_a_client_where_to_sign_in(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with httpx.AsyncClient(base_url=server.url) as http:
            mcp_401 = await http.post("/mcp", json={})
            rest_401 = await http.get("/v1/capabilities")
            documents = {door: (await http.get(f"/.well-known/oauth-protected-resource{door}")).json()
                         for door in ("", "/mcp", "/v1")}
            authorization = (await http.get("/.well-known/oauth-authorization-server")).json()
    base = server.url
    # RFC 9728 §5.1: the 401 names the metadata of the resource asked for (§3.1: well-known name, then the path)
    assert parse_www_authenticate(mcp_401.headers["www-authenticate"])["resource_metadata"] == \
        f"{base}/.well-known/oauth-protected-resource/mcp"
    assert parse_www_authenticate(rest_401.headers["www-authenticate"])["resource_metadata"] == \
        f"{base}/.well-known/oauth-protected-resource/v1"
    assert {door: d["resource"] for door, d in documents.items()} == {"": base, "/mcp": f"{base}/mcp",
                                                                      "/v1": f"{base}/v1"}
    assert all(d["authorization_servers"] == [base] for d in documents.values())
    # RFC 8414 §2, and what MCP's 2025-11-25 revision asks for: PKCE with S256 advertised
    assert authorization["issuer"] == base
    assert authorization["code_challenge_methods_supported"] == ["S256"]
    assert authorization["response_types_supported"] == ["code"]
    assert {k: authorization[k] for k in ("authorization_endpoint", "token_endpoint", "registration_endpoint",
                                          "revocation_endpoint")} == {
        "authorization_endpoint": f"{base}/authorize", "token_endpoint": f"{base}/token",
        "registration_endpoint": f"{base}/register", "revocation_endpoint": f"{base}/revoke"}
    assert set(authorization["grant_types_supported"]) == {"authorization_code", "refresh_token"}


async def test_registration_takes_public_clients_with_safe_return_addresses(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with httpx.AsyncClient(base_url=server.url) as http:
            ok = await register(http, token_endpoint_auth_method="client_secret_post")
            native = await register(http, redirect_uris=["cursor://anysphere.cursor/oauth/callback"])
            refusals = {
                "plain http elsewhere": await register(http, redirect_uris=["http://evil.example/cb"]),
                "a javascript: address": await register(http, redirect_uris=["javascript:alert(1)"]),
                "no redirect": await http.post("/register", json={"client_name": "x"}),
                "client credentials": await register(http, grant_types=["client_credentials"]),
                "unknown scope": await register(http, scope="search admin"),
            }
    assert ok.status_code == 201 and native.status_code == 201
    # RFC 7591 §3.2.1 lets the server substitute: a public client, so no secret was made or kept
    assert ok.json()["token_endpoint_auth_method"] == "none" and "client_secret" not in ok.json()
    assert {why: r.status_code for why, r in refusals.items()} == {why: 400 for why in refusals}
    assert refusals["plain http elsewhere"].json()["error"] == "invalid_redirect_uri"
    assert "use https" in refusals["plain http elsewhere"].json()["error_description"]
    assert refusals["client credentials"].json()["error"] == "invalid_client_metadata"


async def test_the_owner_consents_on_the_page_and_nowhere_else(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with httpx.AsyncClient(base_url=server.url) as http, logged_in(server) as owner:
            app = await new_app(server, http)
            asked = urlencode({"response_type": "code", "client_id": app.client_id, "redirect_uri": REDIRECT,
                               "code_challenge": CHALLENGE, "code_challenge_method": "S256"})
            consent_url = (await http.get(f"/authorize?{asked}")).headers["location"].removeprefix(server.url)
            # no session: the page asks the owner to log in first, then comes back
            assert (await http.get(consent_url)).headers["location"].startswith("/login?next=/oauth/consent")
            page = await owner.get(consent_url)
            assert "form-action 'self' http://127.0.0.1:9" in page.headers["content-security-policy"]
            forged = await owner.post("/oauth/consent", data={"client_id": app.client_id, "decision": "allow"},
                                      headers={"Origin": server.url})
            assert forged.status_code == 403  # no CSRF token: not the page's own form

            denied = await consent(server, app, owner, decision="deny")
            assert denied["error"] == "access_denied" and denied["state"] == "s1" and "code" not in denied
            answer = await consent(server, app, owner, operations=("search",), sections=("documents",),
                                   name="Claude web")
            assert answer["state"] == "s1" and answer["iss"] == server.url  # RFC 9207
            tokens = (await app.exchange(answer["code"])).json()
            assert tokens["token_type"] == "Bearer" and tokens["scope"] == "search"
            assert tokens["expires_in"] == 3600
            caps = (await http.get("/v1/capabilities", headers=bearer(tokens["access_token"]))).json()
            assert caps["operations"] == ["search"] and caps["sections"] == ["documents"]
            assert (await http.post("/v1/read", json={"locator": "doc1:0-10"},
                                    headers=bearer(tokens["access_token"]))).status_code == 403

            taken = await owner.get(consent_url)
            assert 'value="Claude"' in taken.text  # "Claude web" is taken; the page suggests another
            again = await owner.post("/oauth/consent", headers={"Origin": server.url}, data={
                **{k: v[0] for k, v in parse_qs(urlsplit(consent_url).query).items()},
                "csrf": csrf_of(taken.text), "decision": "allow", "name": "Claude web", "operations": "search"})
            assert again.status_code == 400 and "exists already" in again.text
        listed = {c.name: c for c in await server.service.clients.list()}
        assert listed["Claude web"].oauth_app == app.client_id


async def test_authorize_refuses_what_was_not_registered(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with httpx.AsyncClient(base_url=server.url) as http:
            app = await new_app(server, http)
            base = {"response_type": "code", "client_id": app.client_id, "redirect_uri": REDIRECT,
                    "code_challenge": CHALLENGE, "state": "s"}
            elsewhere = await http.get("/authorize?" + urlencode({**base, "redirect_uri": "http://127.0.0.1:9/x"}))
            plain = await http.get("/authorize?" + urlencode({**base, "code_challenge_method": "plain"}))
            other_server = await http.get("/authorize?" + urlencode({**base, "resource": "https://other.example/mcp"}))
            widened = await http.get("/authorize?" + urlencode({**base, "scope": "search admin"}))
    # an unregistered return address is never redirected to (RFC 6749 §4.1.2.1)
    assert elsewhere.status_code == 400 and "not registered" in elsewhere.json()["error_description"]
    assert plain.status_code in (302, 400) and "S256" in (plain.headers.get("location", "") + plain.text)
    assert parse_qs(urlsplit(other_server.headers["location"]).query)["error"] == ["invalid_target"]
    assert parse_qs(urlsplit(widened.headers["location"]).query)["error"] == ["invalid_scope"]


async def test_the_token_endpoint_refuses_each_wrong_proof(settings, tmp_path):
    clock = Clock()
    async with running_server(settings, tmp_path, seeded=False, clock=clock) as server:
        async with httpx.AsyncClient(base_url=server.url) as http, logged_in(server) as owner:
            app = await new_app(server, http)
            code = (await consent(server, app, owner))["code"]
            wrong_verifier = await app.exchange(code, verifier="x" * 43)
            wrong_redirect = await app.exchange(code, redirect_uri="http://127.0.0.1:9/other")
            other = await new_app(server, http)
            other_app = await other.exchange(code)
            assert [r.json()["error"] for r in (wrong_verifier, wrong_redirect, other_app)] == [
                "invalid_grant", "invalid_request", "invalid_grant"]
            assert "code_verifier" in wrong_verifier.json()["error_description"]

            first = await app.exchange(code)
            assert first.status_code == 200
            # a code shown twice: refused, and the grant it gave ends with it (RFC 6749 §4.1.2)
            replayed = await app.exchange(code)
            assert replayed.status_code == 400 and replayed.json()["error"] == "invalid_grant"
            ended = await http.get("/v1/capabilities", headers=bearer(first.json()["access_token"]))
            assert ended.status_code == 401 and "revoked" in ended.json()["error"]

            late = (await consent(server, app, owner, name="late"))["code"]
            clock.offset = timedelta(minutes=6)  # codes live five minutes
            assert (await app.exchange(late)).json()["error"] == "invalid_grant"


async def test_access_tokens_expire_within_the_hour(settings, tmp_path):
    clock = Clock()
    async with running_server(settings, tmp_path, seeded=False, clock=clock) as server:
        async with httpx.AsyncClient(base_url=server.url) as http, logged_in(server) as owner:
            tokens = await signed_in(server, await new_app(server, http), owner)
            assert (await http.get("/v1/capabilities", headers=bearer(tokens["access_token"]))).status_code == 200
            clock.offset = timedelta(minutes=61)
            expired = await http.get("/v1/capabilities", headers=bearer(tokens["access_token"]))
    assert expired.status_code == 401 and expired.json()["error"] == "the access token expired"
    challenge = parse_www_authenticate(expired.headers["www-authenticate"])
    assert challenge["error"] == "invalid_token" and "grant_type=refresh_token" in challenge["error_description"]


async def test_refresh_tokens_rotate_and_a_replayed_one_ends_the_grant(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with httpx.AsyncClient(base_url=server.url) as http, logged_in(server) as owner:
            app = await new_app(server, http)
            first = await signed_in(server, app, owner, operations=("search", "read"))
            widened = await app.token(grant_type="refresh_token", refresh_token=first["refresh_token"],
                                      scope="search read save")
            assert widened.status_code == 400 and widened.json()["error"] == "invalid_scope"

            narrowed = await app.token(grant_type="refresh_token", refresh_token=first["refresh_token"],
                                       scope="search")
            assert narrowed.status_code == 200, narrowed.text
            second = narrowed.json()
            assert second["scope"] == "search" and second["refresh_token"] != first["refresh_token"]
            caps = (await http.get("/v1/capabilities", headers=bearer(second["access_token"]))).json()
            assert caps["operations"] == ["search"]

            # the spent refresh token, shown again (a stolen copy): refused, and the whole family ends
            replayed = await app.token(grant_type="refresh_token", refresh_token=first["refresh_token"])
            assert replayed.status_code == 400 and replayed.json()["error"] == "invalid_grant"
            for token in (second["access_token"], first["access_token"]):
                assert (await http.get("/v1/capabilities", headers=bearer(token))).status_code == 401
            after = await app.token(grant_type="refresh_token", refresh_token=second["refresh_token"])
            assert after.json()["error"] == "invalid_grant"
        assert [c.name for c in await server.service.clients.list() if c.oauth_app] == []


async def test_clients_revoke_ends_an_oauth_grant_and_tokens_are_kept_as_digests(settings, tmp_path, capsys):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with httpx.AsyncClient(base_url=server.url) as http, logged_in(server) as owner:
            app = await new_app(server, http)
            answer = await consent(server, app, owner)
            tokens = (await app.exchange(answer["code"])).json()
            conn = server.service.memory.conn
            stored = []
            for table in ("oauth_tokens", "oauth_codes", "oauth_apps", "clients"):
                async with conn.execute(f"SELECT * FROM {table}") as cur:
                    stored += [str(v) for row in await cur.fetchall() for v in tuple(row)]
            secrets = (tokens["access_token"], tokens["refresh_token"], answer["code"])
            assert not [s for s in secrets if any(s in value for value in stored)]
            assert {hashlib.sha256(s.encode()).hexdigest() for s in secrets} <= set(stored)

            # the owner's own commands, as for any client
            data = ["--data-dir", str(settings.data_dir)]
            assert await asyncio.to_thread(main, ["clients", "list", *data]) == 0
            listed = capsys.readouterr().out
            assert f"client 'Claude' may search, read in every section, granted over OAuth to app {app.client_id}" \
                in listed
            assert await asyncio.to_thread(main, ["clients", "revoke", "Claude", *data]) == 0
            refused = await http.get("/v1/capabilities", headers=bearer(tokens["access_token"]))
            assert refused.status_code == 401 and "revoked" in refused.json()["error"]
            assert (await app.token(grant_type="refresh_token",
                                    refresh_token=tokens["refresh_token"])).json()["error"] == "invalid_grant"


def test_the_public_address_is_https_and_a_host_only():
    assert OAuthSite.at("https://memory.example.com/").base == "https://memory.example.com"
    assert OAuthSite.at("http://127.0.0.1:8765").resources >= {"http://127.0.0.1:8765/mcp", "http://127.0.0.1:8765/v1"}
    for wrong, why in (("http://memory.example.com", "needs https"), ("https://memory.example.com/sub", "not a server"),
                       ("memory.example.com", "not a server")):
        with pytest.raises(UserFacingError, match=why):
            OAuthSite.at(wrong)
