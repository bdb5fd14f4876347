"""Which apps may ask the owner for access, and where they may send the owner back: the checks on
a redirect URI, and Client ID Metadata Documents (MCP authorization, revision 2025-11-25;
draft-ietf-oauth-client-id-metadata-document), by which an app's client_id is an https URL
serving its metadata, fetched here instead of registered.

Fetching a URL that anyone may name is a request forgery risk, so a document is fetched only over
https, from a host that resolves to public addresses alone (a host named in
BIOGRAPHER_OAUTH_CLIENT_HOSTS may resolve to this machine or a private network: a local app, a
test), without redirects, within a few seconds and a few kilobytes. The address is checked when
the host is resolved; a name that resolves to another address a moment later (DNS rebinding)
could still slip through, which the https certificate check then has to stop."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

from pydantic import AnyUrl, ValidationError

from core.errors import UserFacingError

log = logging.getLogger(__name__)
_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
_NOT_A_RETURN = ("javascript", "data", "file", "about", "blob", "vbscript")
MAX_DOCUMENT_BYTES = 5 * 1024  # the draft's own suggestion for a metadata document's size
FETCH_SECONDS = 5.0


class DocumentRefused(UserFacingError):
    """A client metadata document that could not be fetched or is not acceptable."""


def redirect_uri_refusal(uri: AnyUrl) -> str | None:
    """Why a redirect URI may not be used, or None: https; http only back to this machine's
    loopback (a native app's listener, RFC 8252 §7.3); or an app's own scheme (RFC 8252 §7.1)."""
    scheme, host = uri.scheme.lower(), (uri.host or "").strip("[]").lower()
    if uri.fragment:
        return f"{uri} has a fragment (RFC 6749 §3.1.2 forbids one)"
    if scheme == "https":
        return None if host else f"{uri} names no host"
    if scheme == "http":
        return None if host in _LOOPBACK_NAMES or _is_loopback(host) else \
            f"{uri} is plain http to another machine: use https (http only to localhost)"
    if scheme in _NOT_A_RETURN:
        return f"{uri}: a {scheme}: address is no redirect target"
    return None  # a native app's private-use scheme, e.g. cursor://


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_document_id(client_id: str) -> bool:
    """A client_id that is a metadata document's address rather than one this server issued."""
    return client_id.startswith("https://")


def document_url_refusal(url: str) -> str | None:
    """What the draft (§3) forbids in a client_id URL, or None."""
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        return "a client_id URL is https with a host"
    if parts.path in ("", "/"):
        return "a client_id URL has a path"
    if parts.fragment or parts.username or parts.password:
        return "a client_id URL has no fragment and no user name or password"
    if any(segment in (".", "..") for segment in parts.path.split("/")):
        return "a client_id URL has no '.' or '..' path segments"
    return None


class ClientDocuments:
    """Fetches and checks client metadata documents; `private_hosts` may resolve to private addresses."""

    def __init__(self, *, private_hosts: Iterable[str] = ()) -> None:
        self.private_hosts = frozenset(h.strip().lower() for h in private_hosts if h.strip())

    async def fetch(self, url: str) -> dict:
        """The app's metadata as this server keeps a registered app's, or DocumentRefused saying why."""
        if (why := document_url_refusal(url)) is not None:
            raise DocumentRefused(f"client_id {url}: {why}", hint="the app's client_id must be its metadata's address")
        import httpx  # only a server fetching an app's metadata needs it: 55 ms of every CLI start

        host = (urlsplit(url).hostname or "").lower()
        await self._check_addresses(host, urlsplit(url).port or 443)
        try:
            async with httpx.AsyncClient(timeout=FETCH_SECONDS, follow_redirects=False) as http:
                async with http.stream("GET", url, headers={"Accept": "application/json"}) as answer:
                    if answer.status_code != 200:
                        raise DocumentRefused(f"client metadata at {url} answered HTTP {answer.status_code}",
                                              hint="the app's client_id must serve its metadata document")
                    body = b""
                    async for piece in answer.aiter_bytes():
                        body += piece
                        if len(body) > MAX_DOCUMENT_BYTES:
                            raise DocumentRefused(f"client metadata at {url} is over {MAX_DOCUMENT_BYTES} bytes",
                                                  hint="a metadata document is a few fields of JSON")
        except httpx.HTTPError as error:
            raise DocumentRefused(f"client metadata at {url} could not be fetched ({type(error).__name__})",
                                  hint="check the app's address is reachable from this server over https") from None
        return _checked(url, body)

    async def _check_addresses(self, host: str, port: int) -> None:
        if host in self.private_hosts:
            return
        try:
            found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror:
            raise DocumentRefused(f"client_id host {host} does not resolve", hint="check the app's address") from None
        for *_, address in found:
            ip = ipaddress.ip_address(address[0])
            if not ip.is_global:
                raise DocumentRefused(f"client_id host {host} resolves to a private address ({ip})",
                                      hint="to allow a local app, add its host to BIOGRAPHER_OAUTH_CLIENT_HOSTS")


def _checked(url: str, body: bytes) -> dict:
    try:
        document = json.loads(body)
    except ValueError:
        raise DocumentRefused(f"client metadata at {url} is not JSON", hint="the document is a JSON object") from None
    if not isinstance(document, dict):
        raise DocumentRefused(f"client metadata at {url} is not a JSON object", hint="the document is a JSON object")
    if document.get("client_id") != url:
        raise DocumentRefused(f"client metadata at {url} names another client_id", hint="its client_id must be its URL")
    method = document.get("token_endpoint_auth_method", "none")
    if method != "none":
        raise DocumentRefused(f"client metadata at {url} asks for {method!r}",
                              hint="this server takes public clients only (token_endpoint_auth_method none)")
    uris = document.get("redirect_uris")
    if not isinstance(uris, list) or not uris:
        raise DocumentRefused(f"client metadata at {url} has no redirect_uris", hint="list where to send the owner back")
    for uri in uris:
        try:
            why = redirect_uri_refusal(AnyUrl(str(uri)))
        except ValidationError:
            why = f"{uri!r} is not a URL"
        if why is not None:
            raise DocumentRefused(f"client metadata at {url}: {why}", hint="fix the app's redirect_uris")
    grants = document.get("grant_types", ["authorization_code"])
    if not isinstance(grants, list) or "authorization_code" not in grants:
        raise DocumentRefused(f"client metadata at {url} does not use authorization_code",
                              hint="this server grants authorization_code and refresh_token only")
    kept = {k: document[k] for k in ("client_name", "client_uri", "logo_uri") if isinstance(document.get(k), str)}
    return {**kept, "client_id": url, "redirect_uris": [str(u) for u in uris], "response_types": ["code"],
            "grant_types": ["authorization_code", "refresh_token"], "token_endpoint_auth_method": "none"}
