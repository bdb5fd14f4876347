"""Each chunk's share of small talk (core/memory/small_talk.py), kept for ranking."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store


@migration(180)
async def m180_chunks_small_talk(conn: Store) -> None:
    """The share of a chunk's text in lines its document says again and again. NULL until the
    indexer measures the chunk's document (`biographer reindex --pending` measures a store made
    before this migration without embedding anything again); search counts NULL as none. One
    partial index finds the documents still to measure without reading the chunks; the other
    holds the chunks with some small talk, which search looks up for hundreds of candidates a
    query without reading their rows (storage.chunks.small_talk_sync)."""
    await run_statements(conn, [
        "ALTER TABLE chunks ADD COLUMN small_talk REAL",
        "CREATE INDEX chunks_unmeasured ON chunks (document_id) WHERE small_talk IS NULL",
        "CREATE INDEX chunks_small_talk ON chunks (id, small_talk) WHERE small_talk > 0",
    ])


@migration(188)
async def m188_prose_small_talk_in_sentences(conn: Store) -> None:
    """Prose's small talk is counted in sentences since (core/memory/small_talk.py units_said): its
    chunks (those that are no conversation's, whose text does not open with a message's stamp)
    are measured again at the indexer's next run (`biographer reindex --pending` runs it without
    embedding). Until then search counts them as none, as it counted most of them before: a
    journal's lines are seldom said again whole."""
    await run_statements(conn, [
        "UPDATE chunks SET small_talk = NULL WHERE small_talk IS NOT NULL AND substr(text, 1, 1) <> '['",
    ])
