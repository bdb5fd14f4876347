"""Key/value facts about the store: embedding model and dimension."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.db import Store



async def get_meta(conn: Store, key: str) -> str | None:
    async with conn.execute("SELECT value FROM meta WHERE key = ?", (key,)) as cur:
        row = await cur.fetchone()
    return row[0] if row else None


async def set_meta(conn: Store, key: str, value: str) -> None:
    await conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


async def delete_meta(conn: Store, key: str) -> None:
    await conn.execute("DELETE FROM meta WHERE key = ?", (key,))
