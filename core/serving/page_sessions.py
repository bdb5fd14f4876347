"""Login sessions of the owner's local web page.

A page client's token (`biographer clients add NAME --web`), pasted once into the login form, is
exchanged for a session: a random secret kept in an HTTP-only cookie. The store keeps only a
digest of the secret, so a copy of the database opens no browser session. A session ends at
logout, at its expiry, or when its client is revoked. Each session has its own CSRF token, derived
from its secret (nothing more to store), which every form post must carry."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.serving.api_errors import NotAuthenticated
from core.serving.clients import ClientBook
from core.times import Clock, parse_utc, utc_iso_precise
from storage import page_sessions as session_store
from storage.db import Store


@dataclass(frozen=True)
class PageSession:
    client: str  # the page client's name
    csrf: str  # the token every form post of this session carries
    expires_at: datetime


@dataclass(frozen=True)
class NewSession:
    secret: str  # the cookie's value: shown to the browser once, never stored
    session: PageSession


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def csrf_token(secret: str) -> str:
    """The session's CSRF token: tells nothing about the secret it is derived from."""
    return hmac.new(secret.encode("ascii"), b"biographer page csrf", hashlib.sha256).hexdigest()


_LOGIN_AGAIN = "log in again with your page token (a new one: biographer clients add NAME --web)"


class PageSessions:
    def __init__(self, conn: Store, clients: ClientBook, *, clock: Clock) -> None:
        self.conn = conn
        self.clients = clients
        self.clock = clock

    async def login(self, token: str, *, lifetime: timedelta) -> NewSession:
        """A new session for the page client the token names (NotAuthenticated saying why if none)."""
        client = await self.clients.authenticate_page(token)
        secret = secrets.token_urlsafe(32)
        now = self.clock()
        expires = now + lifetime
        async with self.conn.transaction():
            await session_store.delete_expired(self.conn, now=utc_iso_precise(now))
            await session_store.insert_session(self.conn, secret_digest=_digest(secret), client_id=client.id,
                                               created_at=utc_iso_precise(now), expires_at=utc_iso_precise(expires))
        return NewSession(secret=secret, session=PageSession(client=client.name, csrf=csrf_token(secret),
                                                             expires_at=expires))

    async def check(self, secret: str | None) -> PageSession:
        """The live session a cookie's secret names, or NotAuthenticated."""
        if not secret or len(secret) > 100:
            raise NotAuthenticated("not logged in", hint="log in with your page token")
        row = await session_store.live_session(self.conn, _digest(secret), now=utc_iso_precise(self.clock()))
        if row is None:
            raise NotAuthenticated("the session ended (logged out, expired, or its token was revoked)",
                                   hint=_LOGIN_AGAIN)
        return PageSession(client=row.client_name, csrf=csrf_token(secret),
                           expires_at=parse_utc(row.expires_at))

    async def logout(self, secret: str) -> None:
        async with self.conn.transaction():
            await session_store.delete_session(self.conn, _digest(secret))
