"""Indexes on the child side of foreign keys, so that deleting a parent row (forgetting a source)
seeks its children instead of scanning their tables."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store


@migration(60)
async def m060_index_foreign_keys(conn: Store) -> None:
    """An index on the child side of every foreign key. Without one, each row deleted from the
    parent scans the whole child table: forgetting a source of N chunks scanned chunk_speakers
    N times (20k messages took 15 s, 300k over 25 minutes, with the bot frozen meanwhile)."""
    await run_statements(
        conn,
        [
            "CREATE INDEX IF NOT EXISTS chunk_speakers_chunk ON chunk_speakers(chunk_id)",
            "CREATE INDEX IF NOT EXISTS profile_history_run ON profile_history(run_id)",
            "CREATE INDEX IF NOT EXISTS profile_history_undoes ON profile_history(undoes)",
            "CREATE INDEX IF NOT EXISTS open_questions_run ON open_questions(run_id)",
            "CREATE INDEX IF NOT EXISTS timeline_events_run ON timeline_events(run_id)",
            "CREATE INDEX IF NOT EXISTS analysis_progress_run ON analysis_progress(run_id)",
        ],
    )


@migration(160)
async def m160_index_idempotency_documents(conn: Store) -> None:
    """The memory server's idempotency keys point at documents: forgetting one looks them up.
    (It follows migration 111, which creates the table.)"""
    await conn.execute("CREATE INDEX IF NOT EXISTS idempotency_keys_document ON idempotency_keys(document_id)")
