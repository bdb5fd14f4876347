"""Telegram chats recorded live through a business connection (core/chat/live.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store


@migration(174)
async def m174_live_chats(conn: Store) -> None:
    """The owner's business connections, the chats they bring (recording or paused), and each
    message as it arrived. A message belongs to a window of its chat; while the window is open its
    document is NULL; once saved, the message goes with its document (forget erases it, edits and
    all). Earlier texts of an edited message are kept beside it, and go with it."""
    await run_statements(conn, [
        """CREATE TABLE live_connections (
            connection_id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL,
            enabled INTEGER NOT NULL,
            rights TEXT NOT NULL DEFAULT '{}',
            updated_at TEXT NOT NULL
        )""",
        """CREATE TABLE live_chats (
            chat_id TEXT PRIMARY KEY,
            connection_id TEXT NOT NULL,
            name TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('recording', 'paused')),
            updated_at TEXT NOT NULL
        )""",
        """CREATE TABLE live_messages (
            chat_id TEXT NOT NULL,
            message_id TEXT NOT NULL,
            sender TEXT NOT NULL,
            sender_id TEXT,
            is_owner INTEGER NOT NULL,
            time TEXT NOT NULL,
            text TEXT NOT NULL,
            kind TEXT NOT NULL,
            reply_to TEXT,
            forwarded_from TEXT,
            document_id INTEGER REFERENCES documents(id) ON DELETE CASCADE,
            PRIMARY KEY (chat_id, message_id)
        )""",
        "CREATE INDEX live_messages_document ON live_messages (document_id)",
        """CREATE TABLE live_edits (
            chat_id TEXT NOT NULL,
            message_id TEXT NOT NULL,
            old_text TEXT NOT NULL,
            edited_at TEXT NOT NULL,
            FOREIGN KEY (chat_id, message_id) REFERENCES live_messages (chat_id, message_id)
                ON DELETE CASCADE ON UPDATE CASCADE
        )""",
        "CREATE INDEX live_edits_message ON live_edits (chat_id, message_id)",
    ])
