"""SQL for managing whole sources from a chat: delete one with everything derived from it, export all."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import aiosqlite


async def delete_source(conn: aiosqlite.Connection, document_id: int) -> int:
    """Delete a document, its messages, chunks, keyword and vector entries (by cascade: the
    vector index follows through storage/vectors.py's change log); returns chunks removed."""
    async with conn.execute("SELECT COUNT(*) FROM chunks WHERE document_id = ?", (document_id,)) as cur:
        (chunks,) = await cur.fetchone()
    await conn.execute("DELETE FROM documents WHERE id = ?", (document_id,))
    return chunks


async def iter_messages(conn: aiosqlite.Connection) -> AsyncIterator[dict]:
    """Every stored message in source order, as plain dicts."""
    async with conn.execute(
        "SELECT document_id, platform, conversation_key, platform_id, sender, sender_id, is_owner, time,"
        " kind, reply_to, forwarded_from, text FROM messages ORDER BY document_id, char_start"
    ) as cur:
        async for row in cur:
            yield dict(zip([d[0] for d in cur.description], row))


# tables whose rows cite sources by locator (a JSON list of "docN:a-b")
CITING_TABLES = ("timeline_events", "open_questions")


async def citing_rows(conn: aiosqlite.Connection, table: str) -> list[tuple[int, list[str]]]:
    if table not in CITING_TABLES:
        raise ValueError(table)
    async with conn.execute(f"SELECT id, locators FROM {table} WHERE locators != '[]'") as cur:
        return [(row[0], json.loads(row[1])) for row in await cur.fetchall()]


async def set_locators(conn: aiosqlite.Connection, table: str, row_id: int, locators: list[str]) -> None:
    if table not in CITING_TABLES:
        raise ValueError(table)
    await conn.execute(f"UPDATE {table} SET locators = ? WHERE id = ?", (json.dumps(locators), row_id))


async def delete_timeline_events(conn: aiosqlite.Connection, ids: list[int]) -> None:
    await conn.executemany("DELETE FROM timeline_events WHERE id = ?", [(i,) for i in ids])


async def raw_copy_in_use(conn: aiosqlite.Connection, raw_path: str) -> bool:
    """Whether another document still refers to this raw copy (copies are shared by content)."""
    async with conn.execute("SELECT 1 FROM documents WHERE raw_path = ? LIMIT 1", (raw_path,)) as cur:
        return await cur.fetchone() is not None
