"""The one check at the door, for REST and MCP alike: a bearer token that names a live client
(else 401), within that client's rate limit (else 429); and a size limit on every request body
(else 413). What a client may do once inside is checked by the core (403)."""

from __future__ import annotations

import time
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bot.server.errors import TooLarge, TooManyRequests, error_response
from bot.server.oauth import OAuthSite
from core.serving.clients import Client
from core.errors import UserFacingError
from core.service.serving import ServingFacet


class RateLimiter:
    """A token bucket per client: `per_minute` requests a minute, and as many at once."""

    def __init__(self, per_minute: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.capacity = float(per_minute)
        self.clock = clock
        self._buckets: dict[int, tuple[float, float]] = {}  # client id -> (tokens, at)

    def wait_needed(self, client_id: int) -> float:
        """Take one request's token; 0 when there was one, else the seconds until there is."""
        now = self.clock()
        tokens, at = self._buckets.get(client_id, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - at) * self.rate)
        if tokens < 1:
            self._buckets[client_id] = (tokens, now)
            return (1 - tokens) / self.rate
        self._buckets[client_id] = (tokens - 1, now)
        return 0.0


class Door:
    def __init__(self, service: ServingFacet, site: OAuthSite, *, rate_per_minute: int) -> None:
        self.service = service
        self.site = site
        self.limiter = RateLimiter(rate_per_minute)

    async def admit(self, authorization: str | None) -> Client:
        """A client token (`clients add`) or an OAuth access token of this server's."""
        client = await self.service.oauth.authenticate(authorization, resources=self.site.resources)
        wait = self.limiter.wait_needed(client.id)
        if wait:
            raise TooManyRequests(client.name, wait)
        return client


def authorization_of(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            return value.decode("latin-1")
    return None


class GuardedMcp:
    """The MCP app behind the door: the client found goes in the request's state for the tools."""

    def __init__(self, app: ASGIApp, door: Door) -> None:
        self.app = app
        self.door = door

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            try:
                client = await self.door.admit(authorization_of(scope))
            except UserFacingError as error:
                await error_response(error, resource_metadata=self.door.site.metadata_url(scope["path"]))(
                    scope, receive, send)
                return
            scope.setdefault("state", {})["client"] = client
        await self.app(scope, receive, send)



class BodyLimit:
    """Refuses bodies over `limit` bytes (or the limit of a path prefix in `larger`): by
    Content-Length before reading, else while reading."""

    def __init__(self, app: ASGIApp, *, limit: int, larger: dict[str, int] | None = None) -> None:
        self.app = app
        self.default = limit
        self.larger = larger or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = next((n for prefix, n in self.larger.items() if scope["path"].startswith(prefix)), self.default)
        declared = next((v for k, v in scope.get("headers", ()) if k == b"content-length"), None)
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await error_response(TooLarge(limit))(scope, receive, send)
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    # a UserFacingError, so whichever app is reading (the page's uploads, a REST
                    # body) answers it as a 413 in its own shape instead of a plain-text 500
                    raise TooLarge(limit)
            return message

        async def watching_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, watching_send)
        except TooLarge as error:
            if not started:
                await error_response(error)(scope, receive, send)
