"""Login sessions of the local web page: a digest of each cookie's secret, its client and expiry."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.db import Store



@dataclass(frozen=True)
class SessionRow:
    client_id: int
    client_name: str
    operations: tuple[str, ...]
    expires_at: str


async def insert_session(conn: Store, *, secret_digest: str, client_id: int, created_at: str,
                         expires_at: str) -> None:
    await conn.execute("INSERT INTO page_sessions (secret_digest, client_id, created_at, expires_at)"
                       " VALUES (?, ?, ?, ?)", (secret_digest, client_id, created_at, expires_at))


async def live_session(conn: Store, secret_digest: str, *, now: str) -> SessionRow | None:
    """The session with that digest, unexpired, whose client is not revoked."""
    async with conn.execute(
            "SELECT c.id, c.name, c.operations, s.expires_at FROM page_sessions s JOIN clients c ON c.id = s.client_id"
            " WHERE s.secret_digest = ? AND s.expires_at > ? AND c.revoked_at IS NULL", (secret_digest, now)) as cur:
        row = await cur.fetchone()
    return SessionRow(row[0], row[1], tuple(json.loads(row[2])), row[3]) if row else None


async def delete_session(conn: Store, secret_digest: str) -> None:
    await conn.execute("DELETE FROM page_sessions WHERE secret_digest = ?", (secret_digest,))


async def delete_expired(conn: Store, *, now: str) -> None:
    await conn.execute("DELETE FROM page_sessions WHERE expires_at <= ?", (now,))
