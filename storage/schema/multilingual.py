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
