"""SQL for managing whole sources from a chat: delete one with everything derived from it, export all."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiosqlite

from storage.vectors import VECTOR_TABLE


async def _has_table(conn: aiosqlite.Connection, name: str) -> bool:
    async with conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)) as cur:
        return await cur.fetchone() is not None


async def delete_source(conn: aiosqlite.Connection, document_id: int) -> int:
    """Delete a document, its messages, chunks, keyword and vector entries; returns chunks removed."""
    async with conn.execute("SELECT id FROM chunks WHERE document_id = ?", (document_id,)) as cur:
        chunk_ids = [row[0] for row in await cur.fetchall()]
    if chunk_ids and await _has_table(conn, VECTOR_TABLE):
        # the vec0 index is a virtual table: foreign keys do not cascade into it
        await conn.executemany(f"DELETE FROM {VECTOR_TABLE} WHERE rowid = ?", [(i,) for i in chunk_ids])
    await conn.execute("DELETE FROM documents WHERE id = ?", (document_id,))
    return len(chunk_ids)


async def iter_messages(conn: aiosqlite.Connection) -> AsyncIterator[dict]:
    """Every stored message in source order, as plain dicts."""
    async with conn.execute(
        "SELECT document_id, platform, conversation_key, platform_id, sender, sender_id, is_owner, time,"
        " kind, reply_to, forwarded_from, text FROM messages ORDER BY document_id, char_start"
    ) as cur:
        async for row in cur:
            yield dict(zip([d[0] for d in cur.description], row))
