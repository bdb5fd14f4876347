"""The OAuth authorization server's rows: registered apps, consent codes and tokens, each code
and token by the SHA-256 digest of its secret (the secret itself is never stored)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import aiosqlite

if TYPE_CHECKING:
    from storage.db import Store


@dataclass(frozen=True)
class CodeRow:
    app: str
    name: str  # the client name the owner gave on the consent page
    operations: tuple[str, ...]
    sections: tuple[str, ...]
    code_challenge: str
    redirect_uri: str
    redirect_uri_explicit: bool
    resource: str | None
    expires_at: str
    used_by: int | None  # the grant (clients row) it was exchanged for


@dataclass(frozen=True)
class TokenRow:
    kind: str  # access | refresh
    client_id: int  # the grant
    client_name: str
    app: str
    operations: tuple[str, ...]
    sections: tuple[str, ...]
    resource: str | None
    expires_at: str
    used_at: str | None
    grant_revoked: bool


async def insert_app(conn: Store, *, client_id: str, metadata: dict, registered_at: str) -> None:
    await conn.execute("INSERT INTO oauth_apps (client_id, metadata, registered_at) VALUES (?, ?, ?)",
                       (client_id, json.dumps(metadata), registered_at))


async def save_app(conn: Store, *, client_id: str, metadata: dict, registered_at: str) -> None:
    """Keep an app's metadata as fetched now (a metadata document, fetched again when stale)."""
    await conn.execute("INSERT INTO oauth_apps (client_id, metadata, registered_at) VALUES (?, ?, ?)"
                       " ON CONFLICT (client_id) DO UPDATE SET metadata = excluded.metadata,"
                       " registered_at = excluded.registered_at", (client_id, json.dumps(metadata), registered_at))


async def app_metadata(conn: Store, client_id: str) -> tuple[dict, str] | None:
    """An app's metadata and when it was registered (or last fetched)."""
    async with conn.execute("SELECT metadata, registered_at FROM oauth_apps WHERE client_id = ?",
                            (client_id,)) as cur:
        row = await cur.fetchone()
    return (json.loads(row[0]), row[1]) if row else None


async def insert_code(conn: Store, *, digest: str, app: str, name: str, operations: tuple[str, ...],
                      sections: tuple[str, ...], code_challenge: str, redirect_uri: str, redirect_uri_explicit: bool,
                      resource: str | None, expires_at: str) -> None:
    await conn.execute(
        "INSERT INTO oauth_codes (code_digest, app, name, operations, sections, code_challenge, redirect_uri,"
        " redirect_uri_explicit, resource, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (digest, app, name, json.dumps(list(operations)), json.dumps(list(sections)), code_challenge, redirect_uri,
         int(redirect_uri_explicit), resource, expires_at))


def _code(row: aiosqlite.Row) -> CodeRow:
    return CodeRow(app=row["app"], name=row["name"], operations=tuple(json.loads(row["operations"])),
                   sections=tuple(json.loads(row["sections"])), code_challenge=row["code_challenge"],
                   redirect_uri=row["redirect_uri"], redirect_uri_explicit=bool(row["redirect_uri_explicit"]),
                   resource=row["resource"], expires_at=row["expires_at"], used_by=row["used_by"])


async def code_by_digest(conn: Store, digest: str) -> CodeRow | None:
    async with conn.execute("SELECT * FROM oauth_codes WHERE code_digest = ?", (digest,)) as cur:
        row = await cur.fetchone()
    return _code(row) if row else None


async def mark_code_used(conn: Store, digest: str, *, client_id: int) -> bool:
    """Record the grant a code was exchanged for; False when it had been used already."""
    cur = await conn.execute("UPDATE oauth_codes SET used_by = ? WHERE code_digest = ? AND used_by IS NULL",
                             (client_id, digest))
    return cur.rowcount > 0


async def delete_expired_codes(conn: Store, *, now: str) -> None:
    """Codes never exchanged, past their expiry (a used one stays, so that a replay is recognised
    while its grant lives)."""
    await conn.execute("DELETE FROM oauth_codes WHERE expires_at <= ? AND used_by IS NULL", (now,))


async def insert_grant(conn: Store, *, name: str, app: str, key_id: str, operations: tuple[str, ...],
                       sections: tuple[str, ...], created_at: str) -> int:
    """A client row for what the owner granted an app: no secret digest matches any token."""
    cur = await conn.execute(
        "INSERT INTO clients (name, key_id, secret_digest, operations, sections, created_at, oauth_app)"
        " VALUES (?, ?, '', ?, ?, ?, ?)",
        (name, key_id, json.dumps(list(operations)), json.dumps(list(sections)), created_at, app))
    assert cur.lastrowid is not None
    return cur.lastrowid


async def insert_token(conn: Store, *, digest: str, kind: str, client_id: int, operations: tuple[str, ...],
                       resource: str | None, expires_at: str) -> None:
    await conn.execute(
        "INSERT INTO oauth_tokens (digest, kind, client_id, operations, resource, expires_at)"
        " VALUES (?, ?, ?, ?, ?, ?)", (digest, kind, client_id, json.dumps(list(operations)), resource, expires_at))


async def token_by_digest(conn: Store, digest: str) -> TokenRow | None:
    async with conn.execute(
            "SELECT t.kind, t.client_id, c.name, c.oauth_app, t.operations, c.sections, t.resource, t.expires_at,"
            " t.used_at, c.revoked_at FROM oauth_tokens t JOIN clients c ON c.id = t.client_id"
            " WHERE t.digest = ?", (digest,)) as cur:
        row = await cur.fetchone()
    if row is None:
        return None
    return TokenRow(kind=row[0], client_id=row[1], client_name=row[2], app=row[3],
                    operations=tuple(json.loads(row[4])), sections=tuple(json.loads(row[5])), resource=row[6],
                    expires_at=row[7], used_at=row[8], grant_revoked=row[9] is not None)


async def mark_token_used(conn: Store, digest: str, *, at: str) -> bool:
    """Spend a refresh token; False when it was spent already (a replay)."""
    cur = await conn.execute("UPDATE oauth_tokens SET used_at = ? WHERE digest = ? AND used_at IS NULL", (at, digest))
    return cur.rowcount > 0


async def revoke_grant(conn: Store, client_id: int, *, at: str) -> None:
    """End a grant: its client row revoked, so every token of it fails (and says why until it expires)."""
    await conn.execute("UPDATE clients SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (at, client_id))


async def delete_expired_tokens(conn: Store, *, now: str) -> None:
    await conn.execute("DELETE FROM oauth_tokens WHERE expires_at <= ?", (now,))
