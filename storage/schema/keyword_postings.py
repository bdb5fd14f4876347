"""The keyword index's postings as arrays, beside FTS5 (storage/keyword/postings.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store


@migration(177)
async def m177_keyword_postings(conn: Store) -> None:
    """Postings per term and part of 16,384 chunk ids (chunk offsets as uint16, counts as the
    narrowest unsigned width), each part's chunk lengths in terms, and the log of chunk ids
    inserted or deleted since they were last folded in, filled by triggers; built from every
    chunk now (about 40 µs a chunk)."""
    await run_statements(conn, [
        """CREATE TABLE keyword_postings (
            term TEXT NOT NULL,
            part INTEGER NOT NULL,
            ids BLOB NOT NULL,
            tfs BLOB NOT NULL,
            PRIMARY KEY (term, part)
        ) WITHOUT ROWID""",
        "CREATE INDEX keyword_postings_part ON keyword_postings(part)",
        """CREATE TABLE keyword_lengths (
            part INTEGER PRIMARY KEY,
            version INTEGER NOT NULL,
            chunks INTEGER NOT NULL,
            terms INTEGER NOT NULL,
            ids BLOB NOT NULL,
            lengths BLOB NOT NULL
        )""",
        "CREATE TABLE keyword_log (chunk_id INTEGER NOT NULL)",
        """CREATE TRIGGER chunks_keyword_logged_insert AFTER INSERT ON chunks BEGIN
            INSERT INTO keyword_log (chunk_id) VALUES (new.id);
        END""",
        """CREATE TRIGGER chunks_keyword_logged_delete AFTER DELETE ON chunks BEGIN
            INSERT INTO keyword_log (chunk_id) VALUES (old.id);
        END""",
    ])
    from storage.keyword.postings import rebuild  # numpy: only when the migration runs

    await rebuild(conn)

