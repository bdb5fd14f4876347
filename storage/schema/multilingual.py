"""The multilingual space beside the store's own vectors (storage/vectors/multilingual.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store


@migration(183)
async def m183_multilingual_vectors(conn: Store) -> None:
    """Vectors of the multilingual model for the chunks not told as English, in a store whose
    own model knows English only; empty until the indexer decides the store needs them. The
    partial index holds just those chunks (its predicate is storage.multilingual.COVERS["told"]),
    so counting and filling them never reads an English store's chunks."""
    await run_statements(conn, [
        """CREATE TABLE multilingual_vectors (
            chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
            vector BLOB NOT NULL
        )""",
        "CREATE INDEX chunks_not_english ON chunks (id) WHERE language NOT IN ('en', '')",
    ])


@migration(184)
async def m184_multilingual_log(conn: Store) -> None:
    """Every change to the multilingual space, in commit order, so a long-running search that
    keeps the space's vectors in memory (storage.multilingual.SpaceReader.keep) reads only what
    changed: a chunk id can come back with another text once the newest chunks were forgotten, so
    neither the ids nor their count tell. Writers prune it to its last LOG_KEEP rows; a reader
    that fell further behind reads the space again."""
    # insert, replace and delete (forgetting a source deletes its chunks, and their vectors here
    # by cascade) each log the chunk's id
    logged = [f"""CREATE TRIGGER multilingual_vectors_logged_{event.lower()} AFTER {event} ON multilingual_vectors
                  BEGIN INSERT INTO multilingual_log (chunk_id) VALUES ({row}.chunk_id); END"""
              for event, row in (("INSERT", "new"), ("UPDATE", "new"), ("DELETE", "old"))]
    await run_statements(conn, [
        "CREATE TABLE multilingual_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, chunk_id INTEGER NOT NULL)",
        *logged,
    ])


@migration(186)
async def m186_chunks_read_in_context(conn: Store) -> None:
    """A chunk too short to tell a language alone may take its context's (storage/language_context.py):
    `context_language`, NULL until the multilingual space's next fill reads it. The space covers
    such a chunk when that language is not English and the chunk is not mostly small talk (a
    window of lines its chat says again and again tells a question nothing, and those are most
    of the undetermined ones): the partial index follows the space's new predicate
    (storage.multilingual.COVERS["told"])."""
    await run_statements(conn, [
        "ALTER TABLE chunks ADD COLUMN context_language TEXT",
        "DROP INDEX chunks_not_english",
        """CREATE INDEX chunks_not_english ON chunks (id) WHERE (language NOT IN ('en', '') OR (language = ''
           AND context_language NOT IN ('en', '') AND small_talk < 0.5))""",
    ])


@migration(187)
async def m187_chunks_unread_language(conn: Store) -> None:
    """The chunks of undetermined language not read in their context yet, indexed (by document,
    as the reading goes): stats and doctor count them in a multilingual store, and the count and
    the reading's first step scanned every chunk row, text and all (a store of a million chunks:
    4 GB read for a count). Only such chunks are in it, a few per chat, and each leaves it when read."""
    await run_statements(conn, [
        "CREATE INDEX chunks_unread_language ON chunks (document_id) WHERE language = '' AND context_language IS NULL",
    ])
