"""The sign-bit index of the vectors (storage/vectors/store.py), and the generation each vector belongs to."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store


@migration(70)
async def m070_vector_parts(conn: Store) -> None:
    """Sign bits in parts plus a change log (storage/vectors/store.py), vectors tagged by generation;
    the sqlite-vec bit table they replace is dropped (its top-k step was the slow part of search)."""
    await run_statements(conn, [
        "ALTER TABLE chunk_embeddings ADD COLUMN generation INTEGER NOT NULL DEFAULT 0",
        # every change to a vector, in commit order; AUTOINCREMENT: a position is never reused
        "CREATE TABLE vector_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, chunk_id INTEGER NOT NULL)",
        """CREATE TRIGGER chunk_embeddings_logged_insert AFTER INSERT ON chunk_embeddings BEGIN
            INSERT INTO vector_log (chunk_id) VALUES (new.chunk_id);
        END""",
        """CREATE TRIGGER chunk_embeddings_logged_update AFTER UPDATE ON chunk_embeddings BEGIN
            INSERT INTO vector_log (chunk_id) VALUES (new.chunk_id);
        END""",
        # forgetting a source deletes its chunks, and their vectors by cascade: logged here too
        """CREATE TRIGGER chunk_embeddings_logged_delete AFTER DELETE ON chunk_embeddings BEGIN
            INSERT INTO vector_log (chunk_id) VALUES (old.chunk_id);
        END""",
        # sign bits of the current generation's vectors, a part per 4096 chunk ids (id >> 12), as
        # of the log position in meta 'vector_parts_seq'; ids: sorted int64, bits: (words, ids) uint64
        """CREATE TABLE vector_parts (
            part INTEGER PRIMARY KEY,
            version INTEGER NOT NULL,
            ids BLOB NOT NULL,
            bits BLOB NOT NULL
        )""",
        "DROP TABLE IF EXISTS chunk_vectors",
    ])
    from storage.vectors.store import rebuild_parts  # numpy: only when the migration runs

    await rebuild_parts(conn, codes=False)  # their table comes with migration 182


@migration(182)
async def m182_vector_codes(conn: Store) -> None:
    """The vectors at a byte per dimension, in parts beside the sign bits' (storage/vectors/codes.py),
    so that a filtered search in a process that does not keep the vectors bounds each chunk's
    cosine from its bytes and reads the float vectors of only the few that can reach the top.
    Built from the float vectors with the sign-bit parts (the log folded in on the way)."""
    await run_statements(conn, [
        # ids: sorted int64; codes: (ids, dim) int8; terms: (3, ids) float32 (scale, length, error)
        """CREATE TABLE vector_codes (
            part INTEGER PRIMARY KEY,
            version INTEGER NOT NULL,
            ids BLOB NOT NULL,
            codes BLOB NOT NULL,
            terms BLOB NOT NULL
        )""",
    ])
    from storage.vectors.store import rebuild_parts  # numpy: only when the migration runs

    await rebuild_parts(conn)
