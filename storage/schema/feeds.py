"""Sources that keep the store current: mail accounts read over IMAP and watched paths, with
where each read last stopped (see core/feeds/)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store


@migration(173)
async def m173_feeds(conn: Store) -> None:
    """A feed is a mail account or a watched path; its cursors say where each folder or file was
    last read (UIDVALIDITY and the last UID; a file's size and modification time); the documents
    it brought are linked to it, the link going with the document when the source is forgotten.
    No password is ever stored: a mail feed names the environment variable that holds it."""
    await run_statements(conn, [
        """CREATE TABLE feeds (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('mail', 'watch')),
            name TEXT NOT NULL UNIQUE,
            config TEXT NOT NULL,
            added_at TEXT NOT NULL,
            last_run_at TEXT,
            last_added INTEGER NOT NULL DEFAULT 0,
            last_error TEXT
        )""",
        """CREATE TABLE feed_cursors (
            feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            state TEXT NOT NULL,
            PRIMARY KEY (feed_id, key)
        )""",
        """CREATE TABLE feed_documents (
            document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
            feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE
        )""",
        "CREATE INDEX feed_documents_feed ON feed_documents (feed_id)",
    ])
