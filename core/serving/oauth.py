"""OAuth 2.1 grants for remote connectors (Claude.ai's and ChatGPT's MCP connectors): what the owner
grants an app on the consent page becomes a client like those of `clients add` (a row of the same
book, listed and revoked the same way), reached with short-lived access tokens and rotated
refresh tokens instead of one pasted token.

Every code and token is 256 random bits, stored as its SHA-256 digest only and found by it (a fast
digest suffices for unguessable secrets, as for the client tokens). A code is exchanged once: shown
again, it ends the grant it gave (RFC 6749 §4.1.2). A refresh token is used once and replaced:
shown again (stolen and replayed, or the app's own stale copy), it ends its whole grant, every
token of it, as OAuth 2.1 §4.3.1 advises for public clients. The HTTP protocol around this
(metadata, PKCE, the endpoints) is the `mcp` SDK's, wired in bot/server/oauth.py."""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.errors import UserFacingError
from core.serving.api_errors import NotAuthenticated
from core.serving.clients import OPERATIONS, Client, ClientBook, check_client_name
from core.serving.oauth_apps import ClientDocuments, DocumentRefused, is_document_id
from core.times import Clock, parse_utc, utc_iso_precise
from storage import clients as client_store
from storage import oauth as oauth_store
from storage.db import Store

ACCESS_PREFIX = "bioa_"  # told apart from client tokens (bio_<key id>_...) at the door
REFRESH_PREFIX = "bior_"
CODE_LIFETIME = timedelta(minutes=5)
ACCESS_LIFETIME = timedelta(hours=1)
REFRESH_LIFETIME = timedelta(days=30)
DOCUMENT_LIFETIME = timedelta(hours=1)  # how long a fetched client metadata document is trusted
log = logging.getLogger(__name__)
_NAME_CHARACTERS = re.compile(r"[^A-Za-z0-9 ._-]+")


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Consent:
    """What the owner chose on the consent page for one authorization request."""

    app: str  # the OAuth client_id
    name: str  # the client name it is listed under in `clients list`
    operations: tuple[str, ...]
    sections: tuple[str, ...]  # empty: every section
    code_challenge: str  # PKCE S256, checked at the token endpoint
    redirect_uri: str
    redirect_uri_explicit: bool
    resource: str | None


@dataclass(frozen=True)
class CodeGrant:
    """A code as the token endpoint sees it."""

    app: str
    operations: tuple[str, ...]
    code_challenge: str
    redirect_uri: str
    redirect_uri_explicit: bool
    resource: str | None
    expires_at: datetime


@dataclass(frozen=True)
class TokenGrant:
    """An access or refresh token that checked out: which grant, what it may do, until when."""

    client: Client
    app: str
    resource: str | None
    expires_at: datetime


@dataclass(frozen=True)
class IssuedTokens:
    access_token: str
    refresh_token: str
    expires_in: int  # seconds
    operations: tuple[str, ...]


def suggested_name(client_name: str | None, taken: set[str]) -> str:
    """A client name for `clients list` from the app's own name ("Claude" -> "Claude", then "Claude 2")."""
    base = _NAME_CHARACTERS.sub(" ", client_name or "").strip()[:50].strip() or "oauth-app"
    if not base[0].isalnum():
        base = "app " + base
    name, n = base, 1
    while name.lower() in {t.lower() for t in taken}:
        n += 1
        name = f"{base} {n}"
    return name


class OAuthBook:
    def __init__(self, conn: Store, clients: ClientBook, *, clock: Clock, documents: ClientDocuments) -> None:
        self.conn = conn
        self.clients = clients
        self.clock = clock
        self.documents = documents

    def _now(self) -> datetime:
        return self.clock()

    # ------------------------------------------------------------------ apps (RFC 7591 registrations)

    async def register_app(self, client_id: str, metadata: dict) -> None:
        async with self.conn.transaction():
            await oauth_store.insert_app(self.conn, client_id=client_id, metadata=metadata,
                                         registered_at=utc_iso_precise(self._now()))

    async def app(self, client_id: str) -> dict | None:
        """A registered app's metadata, or one whose client_id is its metadata document's URL
        (fetched, and again once DOCUMENT_LIFETIME old); None when there is none to be had."""
        kept = await oauth_store.app_metadata(self.conn, client_id)
        if not is_document_id(client_id):
            return kept[0] if kept else None
        now = self._now()
        fetched = parse_utc(kept[1]) if kept else None
        if kept and fetched is not None and now - fetched < DOCUMENT_LIFETIME:
            return kept[0]
        try:
            metadata = {**await self.documents.fetch(client_id), "scope": " ".join(OPERATIONS)}
        except DocumentRefused as error:
            log.info("OAuth client refused: %s (%s)", error.message, error.hint)
            return None
        async with self.conn.transaction():
            await oauth_store.save_app(self.conn, client_id=client_id, metadata=metadata,
                                       registered_at=utc_iso_precise(now))
        return metadata

    # ------------------------------------------------------------------ codes

    async def taken_names(self) -> set[str]:
        return {c.name for c in await self.clients.list()}

    async def give_code(self, consent: Consent) -> str:
        """A code for what the owner consented to, to be exchanged within CODE_LIFETIME."""
        if not consent.operations or set(consent.operations) - set(OPERATIONS):
            raise UserFacingError("choose at least one of " + ", ".join(OPERATIONS),
                                  hint="tick what the app may do, then allow")
        await self._check_name_free(consent.name)
        code = secrets.token_urlsafe(32)
        now = self._now()
        async with self.conn.transaction():
            await oauth_store.delete_expired_codes(self.conn, now=utc_iso_precise(now))
            await oauth_store.insert_code(
                self.conn, digest=_digest(code), app=consent.app, name=consent.name, operations=consent.operations,
                sections=consent.sections, code_challenge=consent.code_challenge, redirect_uri=consent.redirect_uri,
                redirect_uri_explicit=consent.redirect_uri_explicit, resource=consent.resource,
                expires_at=utc_iso_precise(now + CODE_LIFETIME))
        return code

    async def _check_name_free(self, name: str) -> None:
        check_client_name(name)
        if await client_store.live_client_named(self.conn, name):
            raise UserFacingError(f"a client named {name!r} exists already",
                                  hint=f"pick another name, or `biographer clients revoke {name}` first")

    async def code(self, app: str, code: str) -> CodeGrant | None:
        """The live code an app presents; None if unknown, expired or another app's. A code shown a
        second time ends the grant it gave."""
        row = await oauth_store.code_by_digest(self.conn, _digest(code))
        if row is None or row.app != app:
            return None
        if row.used_by is not None:
            async with self.conn.transaction():
                await oauth_store.revoke_grant(self.conn, row.used_by, at=utc_iso_precise(self._now()))
            return None
        expires = parse_utc(row.expires_at)
        if expires is None or expires <= self._now():
            return None
        return CodeGrant(app=row.app, operations=row.operations, code_challenge=row.code_challenge,
                         redirect_uri=row.redirect_uri, redirect_uri_explicit=row.redirect_uri_explicit,
                         resource=row.resource, expires_at=expires)

    async def exchange_code(self, app: str, code: str) -> IssuedTokens:
        """The grant a checked code names, made a client, and its first tokens."""
        digest = _digest(code)
        now = self._now()
        async with self.conn.transaction():
            row = await oauth_store.code_by_digest(self.conn, digest)
            if row is None or row.app != app or row.used_by is not None:
                raise NotAuthenticated("authorization code already used or unknown", hint="authorize again")
            if await client_store.live_client_named(self.conn, row.name):
                raise UserFacingError(f"a client named {row.name!r} exists already",
                                      hint="authorize again and pick another name on the consent page")
            client_id = await oauth_store.insert_grant(
                self.conn, name=row.name, app=app, key_id="oauth-" + secrets.token_hex(8),
                operations=row.operations, sections=row.sections, created_at=utc_iso_precise(now))
            await oauth_store.mark_code_used(self.conn, digest, client_id=client_id)
            return await self._issue(client_id, row.operations, row.resource, now)

    async def _issue(self, client_id: int, operations: tuple[str, ...], resource: str | None,
                     now: datetime) -> IssuedTokens:
        """A new access and refresh token of a grant (inside the caller's transaction)."""
        await oauth_store.delete_expired_tokens(self.conn, now=utc_iso_precise(now))
        access, refresh = ACCESS_PREFIX + secrets.token_urlsafe(32), REFRESH_PREFIX + secrets.token_urlsafe(32)
        for secret, kind, lifetime in ((access, "access", ACCESS_LIFETIME), (refresh, "refresh", REFRESH_LIFETIME)):
            await oauth_store.insert_token(self.conn, digest=_digest(secret), kind=kind, client_id=client_id,
                                           operations=operations, resource=resource,
                                           expires_at=utc_iso_precise(now + lifetime))
        return IssuedTokens(access_token=access, refresh_token=refresh,
                            expires_in=int(ACCESS_LIFETIME.total_seconds()), operations=operations)

    # ------------------------------------------------------------------ tokens

    async def _token(self, token: str, kind: str) -> TokenGrant | None:
        row = await oauth_store.token_by_digest(self.conn, _digest(token))
        if row is None or row.kind != kind or row.grant_revoked:
            return None
        if kind == "refresh" and row.used_at is not None:
            # a spent refresh token shown again: someone holds a copy; end the grant for both
            async with self.conn.transaction():
                await oauth_store.revoke_grant(self.conn, row.client_id, at=utc_iso_precise(self._now()))
            return None
        expires = parse_utc(row.expires_at)
        if expires is None or expires <= self._now():
            return None
        client = Client(id=row.client_id, name=row.client_name, operations=row.operations, sections=row.sections)
        return TokenGrant(client=client, app=row.app, resource=row.resource, expires_at=expires)

    async def refresh_token(self, token: str) -> TokenGrant | None:
        """The grant of a live, unspent refresh token; a spent one ends its grant (and is None)."""
        return await self._token(token, "refresh")

    async def access_token(self, token: str) -> TokenGrant | None:
        return await self._token(token, "access")

    async def rotate(self, token: str, operations: tuple[str, ...]) -> IssuedTokens:
        """Spend a refresh token for a new pair, with `operations` (at most what it had)."""
        now = self._now()
        async with self.conn.transaction():
            row = await oauth_store.token_by_digest(self.conn, _digest(token))
            if row is None or row.grant_revoked or not await oauth_store.mark_token_used(
                    self.conn, _digest(token), at=utc_iso_precise(now)):
                raise NotAuthenticated("refresh token already used or unknown", hint="authorize again")
            if set(operations) - set(row.operations):
                raise UserFacingError("a refresh cannot widen a grant", hint="authorize again for more")
            return await self._issue(row.client_id, operations, row.resource, now)

    async def revoke(self, token: str) -> None:
        """End the grant an access or refresh token belongs to (RFC 7009: both kinds go)."""
        row = await oauth_store.token_by_digest(self.conn, _digest(token))
        if row is not None:
            async with self.conn.transaction():
                await oauth_store.revoke_grant(self.conn, row.client_id, at=utc_iso_precise(self._now()))

    async def authenticate(self, authorization: str | None, *, resources: frozenset[str]) -> Client:
        """The client any bearer names: an OAuth access token here (issued for one of `resources`,
        RFC 8707), a client token by the ClientBook."""
        scheme, _, token = (authorization or "").strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token.startswith(ACCESS_PREFIX):
            return await self.clients.authenticate(authorization)
        row = await oauth_store.token_by_digest(self.conn, _digest(token))
        if row is None or row.kind != "access":
            raise NotAuthenticated("unknown access token", hint="sign in again from your app (its connector settings)")
        if row.grant_revoked:
            raise NotAuthenticated(f"this access (client {row.client_name!r}) was revoked",
                                   hint="connect the app again; the owner approves it on the page")
        if row.resource is not None and row.resource not in resources:
            raise NotAuthenticated(f"this access token was issued for {row.resource}, not for this server",
                                   hint="sign in to this server from your app")
        expires = parse_utc(row.expires_at)
        if expires is None or expires <= self._now():
            raise NotAuthenticated("the access token expired", hint="refresh it at the token endpoint "
                                                                   "(grant_type=refresh_token), or sign in again")
        return Client(id=row.client_id, name=row.client_name, operations=row.operations, sections=row.sections)

