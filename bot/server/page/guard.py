"""The page's door. Unlike a bearer token, a cookie is sent by the browser on its own, so the page
checks what the API need not:

- the Host header, against DNS rebinding (a site whose name is made to point at 127.0.0.1 would
  otherwise be "same origin" with the page): only localhost names and those configured are served;
- the session cookie (HTTP-only, Secure, SameSite=Strict), on every page and post: without it a
  page redirects to /login and anything else is a 401;
- on every post, that it came from the page itself: the session's CSRF token, and the Origin
  (SameSite alone lets another port of localhost, a "same site", post with the cookie);
- and headers that keep the page to itself: a Content-Security-Policy allowing nothing but this
  server (no inline script, nothing fetched from elsewhere), no framing, no referrer to other sites, no caching."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from fastapi import Request
from starlette.datastructures import MutableHeaders
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from core.serving.page_sessions import PageSession

COOKIE = "biographer_session"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})

SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",  # (no-referrer would make Chromium send `Origin: null` on posts)
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


@dataclass(frozen=True)
class PageConfig:
    hosts: frozenset[str]  # host names served (lower case, no port)
    session_lifetime: timedelta
    max_upload_bytes: int

    @classmethod
    def for_server(cls, *, bind_host: str, extra_hosts: list[str], session_hours: float,
                   max_upload_mb: int) -> PageConfig:
        hosts = set(LOCAL_HOSTS) | {h.strip().lower().strip("[]") for h in extra_hosts if h.strip()}
        if bind_host not in ("", "0.0.0.0", "::"):
            hosts.add(bind_host.lower().strip("[]"))
        return cls(hosts=frozenset(hosts), session_lifetime=timedelta(hours=session_hours),
                   max_upload_bytes=max_upload_mb * 1024 * 1024)


def host_name(netloc: str) -> str:
    """`Example.org:8765` -> `example.org`; `[::1]:8765` -> `::1`."""
    try:
        return (urlsplit(f"//{netloc.strip()}").hostname or "").lower()
    except ValueError:  # a malformed port or bracket
        return ""


class LoginRequired(Exception):
    """No live session: a page redirects to /login, anything else is a 401."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class CrossSiteRefused(Exception):
    """A post that did not come from the page itself (403)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PageGuard:
    """ASGI middleware of the page: the Host check before anything, the security headers on
    everything sent."""

    def __init__(self, app: ASGIApp, *, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"host"), "")
        if host_name(host) not in self.hosts:
            refusal = PlainTextResponse(
                f"This page answers only to {', '.join(sorted(self.hosts))}, not to the name {host!r}.\n"
                "To reach it by another name (a reverse proxy, Tailscale), add that name to BIOGRAPHER_PAGE_HOSTS.\n",
                status_code=421, headers=SECURITY_HEADERS)
            await refusal(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    # a page that brings its own policy keeps it: the OAuth consent page's form
                    # may also go back to the app (bot/server/page/consent.py), nothing else may
                    if name != "content-security-policy" or name not in headers:
                        headers[name] = value
                if "cache-control" not in headers:
                    headers["cache-control"] = "no-store"  # pages hold the owner's life
            await send(message)

        await self.app(scope, receive, with_headers)


async def current_session(request: Request) -> PageSession:
    """The session the cookie names (a FastAPI dependency of every page and post)."""
    from core.serving.api_errors import NotAuthenticated

    try:
        return await request.app.state.service.page_sessions.check(request.cookies.get(COOKIE))
    except NotAuthenticated as error:
        raise LoginRequired(error.message) from None


def check_same_origin(request: Request) -> None:
    """A post must come from a page of this server: Origin (when the browser sends it, as all
    current ones do on posts) names this host and port, and Fetch Metadata does not say otherwise."""
    origin = request.headers.get("origin")
    if origin is not None:
        if origin == "null" or urlsplit(origin).netloc.lower() != request.headers.get("host", "").lower():
            raise CrossSiteRefused(f"this request came from another site ({origin})")
    if request.headers.get("sec-fetch-site") in ("cross-site", "same-site"):
        raise CrossSiteRefused("this request came from another site")


async def check_post(request: Request, session: PageSession) -> None:
    """The session's CSRF token (a form field, or a header for the page's script) and the origin."""
    check_same_origin(request)
    sent = request.headers.get(CSRF_HEADER)
    if sent is None and request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        sent = (await request.form()).get(CSRF_FIELD)
    if not isinstance(sent, str) or not hmac.compare_digest(sent.encode(), session.csrf.encode()):
        raise CrossSiteRefused("this form did not come from your page (its CSRF token is missing or wrong)")


async def posted_by_page(request: Request) -> PageSession:
    """Dependency of every post: a live session, and proof that the page itself sent it."""
    session = await current_session(request)
    await check_post(request, session)
    return session


def set_session_cookie(response, secret: str, lifetime: timedelta) -> None:
    # Secure: browsers keep it over plain HTTP only on localhost (a secure context) and never
    # send it over plain HTTP elsewhere; SameSite=Strict: no other site's link or form carries it
    response.set_cookie(COOKIE, secret, max_age=int(lifetime.total_seconds()), path="/", secure=True,
                        httponly=True, samesite="strict")


def clear_session_cookie(response) -> None:
    response.delete_cookie(COOKIE, path="/", secure=True, httponly=True, samesite="strict")
