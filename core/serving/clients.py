"""The memory server's clients: per-client bearer tokens, what each may do, and the checks at the
door (401: who are you; 403: you may not).

A token is `bio_<key id>_<secret>`. The key id (public) finds the client's row; only a SHA-256
digest of the secret is stored, and it is compared in constant time. Secrets are 256 random bits,
so a fast digest is enough (a slow password hash guards guessable secrets, which these are not)."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone

from core.serving.api_errors import NotAuthenticated, NotPermitted
from core.errors import UserFacingError
from core.serving.sections import check_section_name, is_imported_section
from storage import clients as client_store
from storage.db import Store

#: what a client may be allowed; `clients add --allow` takes a comma-separated subset
OPERATIONS = ("search", "read", "list", "save", "delete")  # delete: the client's own saves
#: what a page client may do, and all it may do: log in to the owner's local web page (`clients
#: add NAME --web`). Its token opens no API door, and an agent's token opens no page.
PAGE = "page"
_TOKEN = re.compile(r"^bio_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$")


@dataclass(frozen=True)
class Client:
    """A client as the server sees it once its token checked out."""

    id: int
    name: str
    operations: tuple[str, ...]
    sections: tuple[str, ...]  # empty: every section

    @property
    def is_page(self) -> bool:
        return PAGE in self.operations

    def require(self, operation: str) -> None:
        if operation not in self.operations:
            raise NotPermitted(f"client {self.name!r} may not {operation} (allowed: {', '.join(self.operations)})",
                               hint=f"the owner can issue a token that may: biographer clients add NAME --allow "
                                    f"{','.join(dict.fromkeys([*self.operations, operation]))}")

    def may_see(self, section: str) -> bool:
        return not self.sections or section in self.sections

    def require_section(self, section: str) -> None:
        if not self.may_see(section):
            raise NotPermitted(f"client {self.name!r} may not use section {section!r} "
                               f"(allowed: {', '.join(self.sections)})",
                               hint="ask the owner for a token with that section (clients add --sections)")

    def require_every_section(self, what: str) -> None:
        """bio.md, the timeline and the people are drawn from every section at once, so a client kept
        to some sections may not read them: decided by the token alone, never by what they hold."""
        if self.sections:
            raise NotPermitted(f"client {self.name!r} may not read {what}: it is drawn from every section, and "
                               f"this token sees only {', '.join(self.sections)}",
                               hint="search, read and list within your sections, or ask the owner for a token "
                                    "without --sections")


#: the owner themself, as the CLI and the logged-in page act: every operation, every section
OWNER = Client(id=0, name="owner", operations=OPERATIONS, sections=())


@dataclass(frozen=True)
class ClientInfo:
    """A client as `clients list` shows it: never its token."""

    name: str
    operations: tuple[str, ...]
    sections: tuple[str, ...]
    created_at: str
    revoked_at: str | None
    oauth_app: str | None = None  # granted on the consent page to this OAuth client_id (no token of its own)

    def to_json(self) -> dict:
        return {"name": self.name, "operations": list(self.operations), "sections": list(self.sections) or "all",
                "created_at": self.created_at, "revoked_at": self.revoked_at, "oauth_app": self.oauth_app}


@dataclass(frozen=True)
class IssuedToken:
    client: ClientInfo
    token: str  # shown once, never stored


def parse_operations(values: Iterable[str]) -> tuple[str, ...]:
    """`search,read` (or several values) as a checked tuple in the canonical order."""
    asked = {v.strip().lower() for value in values for v in value.split(",") if v.strip()}
    unknown = sorted(asked - set(OPERATIONS))
    if unknown:
        raise UserFacingError(f"unknown operation{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}", hint=f"use {','.join(OPERATIONS)}")
    if not asked:
        raise UserFacingError("a client needs at least one operation", hint=f"--allow {','.join(OPERATIONS)}")
    return tuple(op for op in OPERATIONS if op in asked)


def parse_sections(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(check_section_name(v) for value in values for v in value.split(",") if v.strip()))


def check_client_name(name: str) -> str:
    """A client's name as `clients list` shows it and `clients revoke` takes it, checked."""
    name = name.strip()
    if not _NAME.match(name):
        raise UserFacingError(f"not a client name: {name!r}",
                              hint="use up to 64 letters, digits, spaces, '.', '_' or '-', e.g. claude-desktop")
    return name


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _info(row: client_store.ClientRow) -> ClientInfo:
    return ClientInfo(name=row.name, operations=row.operations, sections=row.sections, created_at=row.created_at,
                      revoked_at=row.revoked_at, oauth_app=row.oauth_app)


_BEARER_HINT = "send `Authorization: Bearer TOKEN` with a token from `biographer clients add NAME`"


class ClientBook:
    def __init__(self, conn: Store) -> None:
        self.conn = conn

    async def add(self, name: str, *, operations: tuple[str, ...] = (), sections: tuple[str, ...] = (),
                  page: bool = False) -> IssuedToken:
        """A new client and its token; `page=True`: a login for the owner's web page, nothing else."""
        if page:
            operations, sections = (PAGE,), ()
        name = check_client_name(name)
        key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
        async with self.conn.transaction():
            if await client_store.live_client_named(self.conn, name):
                raise UserFacingError(f"a client named {name!r} exists already",
                                      hint=f"pick another name, or `biographer clients revoke {name}` first")
            row = await client_store.insert_client(self.conn, name=name, key_id=key_id, secret_digest=_digest(secret),
                                                   operations=operations, sections=sections, created_at=_now())
        return IssuedToken(client=_info(row), token=f"bio_{key_id}_{secret}")

    async def list(self, *, include_revoked: bool = False) -> list[ClientInfo]:
        return [_info(r) for r in await client_store.list_clients(self.conn, include_revoked=include_revoked)]

    async def revoke(self, name: str) -> None:
        async with self.conn.transaction():
            if not await client_store.revoke(self.conn, name.strip(), at=_now()):
                raise UserFacingError(f"no live client named {name!r}", hint="`biographer clients list` shows them")

    async def authenticate(self, authorization: str | None) -> Client:
        """The client an `Authorization` header value names, or NotAuthenticated saying why."""
        if not authorization:
            raise NotAuthenticated("no bearer token", hint=_BEARER_HINT, token_sent=False)
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise NotAuthenticated("the Authorization header is not `Bearer TOKEN`", hint=_BEARER_HINT)
        client = await self._verified(token)
        if client.is_page:
            raise NotPermitted(f"client {client.name!r} is a login for the local web page, not for the API",
                               hint="give each agent its own token: biographer clients add NAME --allow "
                                    + ",".join(OPERATIONS))
        return client

    async def authenticate_page(self, token: str) -> Client:
        """The page client a token pasted into the login form names, or NotAuthenticated saying why."""
        client = await self._verified(token)
        if not client.is_page:
            raise NotAuthenticated(f"client {client.name!r} is an agent's token, which cannot open the page",
                                   hint="make a login for the page: biographer clients add NAME --web")
        return client

    async def _verified(self, token: str) -> Client:
        match = _TOKEN.match(token.strip())
        if not match:
            raise NotAuthenticated("malformed token", hint="tokens look like bio_<12 hex>_<43 characters>; copy it whole")
        row = await client_store.client_by_key_id(self.conn, match.group(1))
        # compare even when no row was found, so timing does not tell a known key id from an unknown one
        expected = row.secret_digest if row else _digest("no such client")
        if not hmac.compare_digest(_digest(match.group(2)), expected) or row is None:
            raise NotAuthenticated("unknown token", hint="check it was copied whole, or ask the owner for a new one")
        if row.revoked_at is not None:
            raise NotAuthenticated(f"this token (client {row.name!r}) was revoked", hint="ask the owner for a new one")
        return Client(id=row.id, name=row.name, operations=row.operations, sections=row.sections)


def saves_allowed_in(section: str) -> None:
    """Agents save into sections of their own, never among the owner's imported sources."""
    if is_imported_section(section):
        raise NotPermitted(f"section {section!r} holds the owner's imported sources; agents cannot write there",
                           hint="save into a section of your own, e.g. notes")
