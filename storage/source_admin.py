"""SQL for managing whole sources from a chat: delete one with everything derived from it, export all."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.db import Store



# rows deleted per statement: the bot shares one connection, so a chat's query waits for the
# statement running; small statements let it in between (bench/forget.py)
DELETE_BATCH = 500


async def delete_source(conn: Store, document_id: int) -> int:
    """Delete a document, its messages, chunks, keyword and vector entries; returns chunks removed.
    Call it inside a transaction: it runs as many small statements. The vector index follows by
    cascade, through storage/vectors/store.py's change log."""
    async with conn.execute("SELECT id FROM chunks WHERE document_id = ?", (document_id,)) as cur:
        chunk_ids = [row[0] for row in await cur.fetchall()]
    for i in range(0, len(chunk_ids), DELETE_BATCH):
        batch = chunk_ids[i:i + DELETE_BATCH]
        # cascades to speakers and float vectors; the FTS trigger drops the keyword entries
        await conn.execute(f"DELETE FROM chunks WHERE id IN ({','.join('?' * len(batch))})", batch)
    while True:
        cursor = await conn.execute(
            "DELETE FROM messages WHERE id IN (SELECT id FROM messages WHERE document_id = ? LIMIT ?)",
            (document_id, DELETE_BATCH))
        if cursor.rowcount < DELETE_BATCH:
            break
    await conn.execute("DELETE FROM documents WHERE id = ?", (document_id,))
    if chunk_ids:
        await _drop_deleted_words(conn)
        from storage.keyword import postings

        await postings.fold(conn)  # the parts that held these chunks are made again
        from storage.vectors import store as vector_store

        # likewise the vectors' parts: their bytes are all but the vectors themselves, which a
        # forget erases (not left for the next fold)
        await vector_store.fold_log(conn)
    return len(chunk_ids)


async def _drop_deleted_words(conn: Store) -> None:
    """FTS5 only marks a deleted row's words as deleted; they stay in the index's segments until
    those are merged. Merging them all now drops them, and `secure_delete` zeroes the old pages.
    (FTS5's own secure-delete option does it row by row: 100 s instead of 4 s for a 300k-message
    chat here, as every common word's long list is rewritten once per row.) Costs about 0.4 s per
    15 MB of keyword index, whatever the size of the source."""
    await conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")


async def iter_messages(conn: Store) -> AsyncIterator[dict]:
    """Every stored message in source order, as plain dicts."""
    async with conn.execute(
        "SELECT document_id, platform, conversation_key, platform_id, sender, sender_id, is_owner, time,"
        " kind, reply_to, forwarded_from, text FROM messages ORDER BY document_id, char_start"
    ) as cur:
        async for row in cur:
            yield dict(zip([d[0] for d in cur.description], row))


# tables whose rows cite sources by locator (a JSON list of "docN:a-b")
CITING_TABLES = ("timeline_events", "open_questions")


@dataclass(frozen=True)
class CitingRow:
    id: int  # in its table
    locators: list[str]


async def citing_rows(conn: Store, table: str) -> list[CitingRow]:
    if table not in CITING_TABLES:
        raise ValueError(table)
    async with conn.execute(f"SELECT id, locators FROM {table} WHERE locators != '[]'") as cur:
        return [CitingRow(row[0], json.loads(row[1])) for row in await cur.fetchall()]


async def set_locators(conn: Store, table: str, row_id: int, locators: list[str]) -> None:
    if table not in CITING_TABLES:
        raise ValueError(table)
    await conn.execute(f"UPDATE {table} SET locators = ? WHERE id = ?", (json.dumps(locators), row_id))


async def delete_timeline_events(conn: Store, ids: list[int]) -> None:
    await conn.executemany("DELETE FROM timeline_events WHERE id = ?", [(i,) for i in ids])


async def raw_copy_names(conn: Store) -> set[str]:
    """File names of the raw copies that sources refer to. Copies are named by content and shared;
    the stored path may be relative to wherever the import ran, so only the name is compared."""
    rows = await conn.execute_fetchall("SELECT DISTINCT raw_path FROM documents WHERE raw_path IS NOT NULL")
    return {Path(row[0]).name for row in rows}


async def raw_copy_referenced(conn: Store, name: str) -> bool:
    """Whether a source refers to the raw copy of this name (under any path)."""
    rows = await conn.execute_fetchall(
        "SELECT 1 FROM documents WHERE raw_path = ? OR raw_path LIKE ? ESCAPE '\\' LIMIT 1",
        (name, "%/" + name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")))
    return bool(rows)


async def delete_people_without_messages(conn: Store) -> int:
    """Delete people none of whose names sends a message any more (they were known only from
    sources now forgotten); returns how many."""
    cursor = await conn.execute(
        """DELETE FROM people WHERE NOT EXISTS (
               SELECT 1 FROM person_aliases a JOIN messages m ON m.sender = a.alias COLLATE NOCASE
               WHERE a.person_id = people.id)""")
    return cursor.rowcount
