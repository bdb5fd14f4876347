"""Apps whose client_id is the https address of their metadata (Client ID Metadata Documents, MCP
authorization 2025-11-25): the `mcp` SDK's OAuth client uses one as soon as the server says it takes
them, against a real https server on localhost (a certificate made here, trusted through
SSL_CERT_FILE as httpx reads it); and the documents and addresses the server refuses."""

from __future__ import annotations

import json
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread
from urllib.parse import parse_qs, urlsplit

import httpx
import httpx2
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from mcp import Client as McpClient
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from core.serving.oauth_apps import ClientDocuments, DocumentRefused
from tests.server.conftest import running_server
from tests.server.test_oauth import CHALLENGE, REDIRECT, csrf_of, logged_in
from tests.server.test_oauth_browser import Memory


def localhost_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost (cryptography's x509 builder), and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.now(timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(minutes=5))
                   .not_valid_after(now + timedelta(hours=1))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    cert_file, key_file = folder / "localhost.pem", folder / "localhost.key"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


@contextmanager
def app_site(folder: Path, documents: dict[str, bytes]) -> Iterator[str]:
    """An app's own https site on localhost serving `documents` by path; its base URL."""
    cert_file, key_file = localhost_certificate(folder)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = documents.get(urlsplit(self.path).path)
            self.send_response(200 if body is not None else 404)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(body or b"{}")

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"https://localhost:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def trusted(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "tls"
    folder.mkdir()
    monkeypatch.setenv("SSL_CERT_FILE", str(folder / "localhost.pem"))
    return folder


def document(client_id: str, **fields) -> bytes:
    return json.dumps({"client_id": client_id, "client_name": "Claude", "redirect_uris": [REDIRECT],
                       "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                       "token_endpoint_auth_method": "none", **fields}).encode()


async def test_the_sdk_signs_in_by_its_metadata_document(settings, tmp_path, trusted):
    settings.oauth_client_hosts = ["localhost"]
    documents: dict[str, bytes] = {}
    with app_site(trusted, documents) as site:
        client_id = f"{site}/oauth/client.json"
        documents["/oauth/client.json"] = document(client_id)
        async with running_server(settings, tmp_path) as server, logged_in(server) as owner:
            received: dict[str, str] = {}

            async def owner_consents(authorization_url: str) -> None:
                async with httpx.AsyncClient() as browser:
                    consent_url = (await browser.get(authorization_url)).headers["location"]
                page = await owner.get(consent_url.removeprefix(server.url))
                assert page.status_code == 200 and "Allow <em>Claude</em>" in page.text
                fields = {k: v[0] for k, v in parse_qs(urlsplit(consent_url).query).items()}
                answer = await owner.post("/oauth/consent", headers={"Origin": server.url}, data={
                    **fields, "csrf": csrf_of(page.text), "decision": "allow", "name": "Claude document",
                    "operations": ["search", "read"], "scope_sections": "all"})
                received.update({k: v[0] for k, v in parse_qs(urlsplit(answer.headers["location"]).query).items()})

            async def code() -> AuthorizationCodeResult:
                return AuthorizationCodeResult(code=received["code"], state=received["state"], iss=received["iss"])

            storage = Memory()
            provider = OAuthClientProvider(
                server_url=f"{server.url}/mcp", storage=storage, client_metadata_url=client_id,
                client_metadata=OAuthClientMetadata(client_name="Claude", redirect_uris=[REDIRECT]),
                redirect_handler=owner_consents, callback_handler=code)
            http = httpx2.AsyncClient(auth=provider, timeout=30)
            async with McpClient(streamable_http_client(f"{server.url}/mcp", http_client=http)) as mcp:
                assert (await mcp.call_tool("search", {"query": "ferry Tavira"})).structured_content["results"]
            assert storage.client.client_id == client_id  # no registration: the URL is its id
            granted = {c.name: c for c in await server.service.clients.list()}["Claude document"]
            assert granted.oauth_app == client_id and granted.operations == ("search", "read")


async def test_documents_the_server_refuses(tmp_path, trusted):
    documents: dict[str, bytes] = {}
    with app_site(trusted, documents) as site:
        good = f"{site}/good.json"
        documents.update({
            "/good.json": document(good),
            "/other-id.json": document(f"{site}/someone-else.json"),
            "/secret.json": document(f"{site}/secret.json", token_endpoint_auth_method="client_secret_basic"),
            "/plain-http-return.json": document(f"{site}/plain-http-return.json",
                                                redirect_uris=["http://evil.example/cb"]),
            "/big.json": b"{" + b" " * 6000 + b"}",
            "/not-json.json": b"<html>",
        })
        local = ClientDocuments(private_hosts=["localhost"])
        assert (await local.fetch(good))["redirect_uris"] == [REDIRECT]
        reasons = {}
        for path in ("/other-id.json", "/secret.json", "/plain-http-return.json", "/big.json", "/not-json.json",
                     "/missing.json"):
            with pytest.raises(DocumentRefused) as refused:
                await local.fetch(site + path)
            reasons[path] = refused.value.message
        for url in (good, f"{site}/", f"{site}/a/../good.json", "http://localhost/good.json"):
            with pytest.raises(DocumentRefused) as refused:
                # the default: only public addresses, https, a path without dot segments
                await ClientDocuments().fetch(url)
            reasons[url] = refused.value.message
    assert "names another client_id" in reasons["/other-id.json"]
    assert "client_secret_basic" in reasons["/secret.json"]
    assert "plain http" in reasons["/plain-http-return.json"]
    assert "over 5120 bytes" in reasons["/big.json"]
    assert "not JSON" in reasons["/not-json.json"]
    assert "HTTP 404" in reasons["/missing.json"]
    assert "private address (127.0.0.1)" in reasons[good] or "private address (::1)" in reasons[good]
    assert "has a path" in reasons[f"{site}/"]
    assert "'..'" in reasons[f"{site}/a/../good.json"]
    assert "https" in reasons["http://localhost/good.json"]


async def test_authorize_names_no_app_for_a_refused_document(settings, tmp_path, trusted):
    documents: dict[str, bytes] = {}
    with app_site(trusted, documents) as site:
        client_id = f"{site}/client.json"
        documents["/client.json"] = document(client_id)
        # no BIOGRAPHER_OAUTH_CLIENT_HOSTS: a document on this machine is not fetched
        async with running_server(settings, tmp_path, seeded=False) as server:
            async with httpx.AsyncClient(base_url=server.url) as http:
                refused = await http.get("/authorize", params={
                    "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT,
                    "code_challenge": CHALLENGE, "code_challenge_method": "S256"})
    assert refused.status_code == 400 and "not found" in refused.json()["error_description"]
