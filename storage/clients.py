"""The memory server's clients: one row per bearer token, holding only a digest of its secret."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import aiosqlite

if TYPE_CHECKING:
    from storage.db import Store


@dataclass(frozen=True)
class ClientRow:
    id: int
    name: str
    key_id: str  # the public half of the token: finds the row, proves nothing
    secret_digest: str
    operations: tuple[str, ...]
    sections: tuple[str, ...]  # empty: every section
    created_at: str
    revoked_at: str | None
    oauth_app: str | None  # a grant made on the consent page to this OAuth client_id


def _row(row: aiosqlite.Row) -> ClientRow:
    return ClientRow(
        id=row["id"], name=row["name"], key_id=row["key_id"], secret_digest=row["secret_digest"],
        operations=tuple(json.loads(row["operations"])), sections=tuple(json.loads(row["sections"])),
        created_at=row["created_at"], revoked_at=row["revoked_at"], oauth_app=row["oauth_app"],
    )


async def live_client_named(conn: Store, name: str) -> ClientRow | None:
    async with conn.execute("SELECT * FROM clients WHERE name = ? AND revoked_at IS NULL", (name,)) as cur:
        row = await cur.fetchone()
    return _row(row) if row else None


async def insert_client(conn: Store, *, name: str, key_id: str, secret_digest: str,
                        operations: tuple[str, ...], sections: tuple[str, ...], created_at: str) -> ClientRow:
    await conn.execute(
        "INSERT INTO clients (name, key_id, secret_digest, operations, sections, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (name, key_id, secret_digest, json.dumps(list(operations)), json.dumps(list(sections)), created_at),
    )
    found = await live_client_named(conn, name)
    assert found is not None
    return found


async def client_by_key_id(conn: Store, key_id: str) -> ClientRow | None:
    async with conn.execute("SELECT * FROM clients WHERE key_id = ?", (key_id,)) as cur:
        row = await cur.fetchone()
    return _row(row) if row else None


async def list_clients(conn: Store, *, include_revoked: bool) -> list[ClientRow]:
    where = "" if include_revoked else "WHERE revoked_at IS NULL"
    async with conn.execute(f"SELECT * FROM clients {where} ORDER BY name, id") as cur:
        return [_row(r) for r in await cur.fetchall()]


async def revoke(conn: Store, name: str, *, at: str) -> bool:
    """Revoke the live client of that name; False when there is none."""
    cur = await conn.execute("UPDATE clients SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", (at, name))
    return cur.rowcount > 0
