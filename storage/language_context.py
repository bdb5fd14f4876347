"""Chunks too short to tell a language alone read in their context (storage/keyword/languages.py,
context_language): kept in `chunks.context_language` beside the chunk's own `language`, which the
keyword index and the language mix go on reading. Only the multilingual space reads it (its
"told" coverage, storage/multilingual.py), so it is filled when the space fills: a store without
the space (an English one) never reads a chunk for it. NULL: not read yet (every chunk of a store
from before migration 186, and each new one until the next fill); "" where the context says
nothing either."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.keyword.languages import UNKNOWN, context_language, document_language

if TYPE_CHECKING:
    from storage.db import Store

DOCUMENTS_BATCH = 20  # documents read in one transaction

# the chunks of undetermined language not read in context yet: the predicate of the partial
# index chunks_unread_language (migration 187), so counting and finding them reads no chunk row
_UNREAD = "language = '' AND context_language IS NULL"


async def unread(conn: Store) -> int:
    """How many chunks of undetermined language wait to be read in their context."""
    async with conn.execute(f"SELECT COUNT(*) FROM chunks WHERE {_UNREAD}") as cur:
        return (await cur.fetchone())[0]


async def _told_counts(conn: Store, document_id: int) -> dict[str, int]:
    async with conn.execute("SELECT language, COUNT(*) FROM chunks WHERE document_id = ? AND language != '' "
                            "GROUP BY language", (document_id,)) as cur:
        return {language: n for language, n in await cur.fetchall()}


async def read_in_context(conn: Store) -> int:
    """Every unread chunk of undetermined language given the language of its context (its own
    lean evidence, else its document's), a batch of documents a transaction; returns how many
    were given one (not UNKNOWN)."""
    given = 0
    while True:
        async with conn.execute(f"SELECT DISTINCT document_id FROM chunks WHERE {_UNREAD} LIMIT ?",
                                (DOCUMENTS_BATCH,)) as cur:
            documents = [r[0] for r in await cur.fetchall()]
        if not documents:
            return given
        async with conn.transaction():
            for document_id in documents:
                document = document_language(await _told_counts(conn, document_id))
                async with conn.execute(f"SELECT id, text FROM chunks WHERE document_id = ? AND {_UNREAD}",
                                        (document_id,)) as cur:
                    rows = await cur.fetchall()
                read = [(context_language(text, document), chunk_id) for chunk_id, text in rows]
                await conn.executemany("UPDATE chunks SET context_language = ? WHERE id = ?", read)
                given += sum(language != UNKNOWN for language, _ in read)
