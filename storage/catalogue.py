"""What the store holds, in brief: the agent writes it into its tool schemas and empty results."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.db import Store



async def fingerprint(conn: Store) -> tuple[int, int]:
    """(documents, highest id): changes whenever a source is added or forgotten."""
    async with conn.execute("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM documents") as cur:
        count, highest = await cur.fetchone()
    return count, highest


async def kinds(conn: Store) -> list[str]:
    async with conn.execute("SELECT DISTINCT kind FROM documents ORDER BY kind") as cur:
        return [row[0] for row in await cur.fetchall()]


async def time_span(conn: Store) -> tuple[str | None, str | None]:
    """ISO times of the oldest and newest dated material."""
    async with conn.execute(
        "SELECT MIN(time_start), MAX(COALESCE(time_end, time_start)) FROM documents WHERE time_start IS NOT NULL"
    ) as cur:
        first, last = await cur.fetchone()
    return first, last
