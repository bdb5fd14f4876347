"""SQL for the chats recorded live through a Telegram business connection."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from storage.db import Store


@dataclass(frozen=True)
class LiveConnection:
    connection_id: str
    user_id: str
    enabled: bool
    rights: dict[str, Any]


@dataclass(frozen=True)
class LiveChat:
    chat_id: str
    name: str
    state: str  # "recording" or "paused"
    messages: int  # stored messages


@dataclass(frozen=True)
class LiveMessage:
    chat_id: str
    message_id: str
    sender: str
    sender_id: str | None
    is_owner: bool
    time: str
    text: str
    kind: str
    reply_to: str | None
    forwarded_from: str | None


async def save_connection(conn: Store, connection: LiveConnection, *, at: str) -> None:
    await conn.execute(
        "INSERT INTO live_connections (connection_id, user_id, enabled, rights, updated_at) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT(connection_id) DO UPDATE SET user_id = excluded.user_id, enabled = excluded.enabled,"
        " rights = excluded.rights, updated_at = excluded.updated_at",
        (connection.connection_id, connection.user_id, int(connection.enabled),
         json.dumps(connection.rights, sort_keys=True), at))


async def get_connection(conn: Store, connection_id: str) -> LiveConnection | None:
    async with conn.execute("SELECT * FROM live_connections WHERE connection_id = ?", (connection_id,)) as cur:
        row = await cur.fetchone()
    return LiveConnection(row["connection_id"], row["user_id"], bool(row["enabled"]),
                          json.loads(row["rights"])) if row else None


async def chat_state(conn: Store, chat_id: str) -> str | None:
    async with conn.execute("SELECT state FROM live_chats WHERE chat_id = ?", (chat_id,)) as cur:
        row = await cur.fetchone()
    return row[0] if row else None


async def add_chat(conn: Store, *, chat_id: str, connection_id: str, name: str, at: str) -> None:
    await conn.execute(
        "INSERT INTO live_chats (chat_id, connection_id, name, state, updated_at) VALUES (?, ?, ?, 'recording', ?)"
        " ON CONFLICT(chat_id) DO UPDATE SET name = excluded.name, connection_id = excluded.connection_id",
        (chat_id, connection_id, name, at))


async def set_chat_state(conn: Store, chat_id: str, state: str, *, at: str) -> bool:
    cursor = await conn.execute("UPDATE live_chats SET state = ?, updated_at = ? WHERE chat_id = ?",
                                (state, at, chat_id))
    return cursor.rowcount > 0


async def forget_chat_messages(conn: Store, chat_id: str) -> None:
    """Every message kept of a chat, saved or not, with their earlier texts."""
    await conn.execute("DELETE FROM live_messages WHERE chat_id = ?", (chat_id,))


async def list_chats(conn: Store) -> list[LiveChat]:
    async with conn.execute(
            "SELECT c.chat_id, c.name, c.state, COUNT(m.message_id) FROM live_chats c"
            " LEFT JOIN live_messages m ON m.chat_id = c.chat_id GROUP BY c.chat_id ORDER BY c.rowid") as cur:
        return [LiveChat(row[0], row[1], row[2], row[3]) for row in await cur.fetchall()]


async def add_message(conn: Store, message: LiveMessage) -> bool:
    """False when it is stored already (Telegram sent the update twice)."""
    cursor = await conn.execute(
        "INSERT OR IGNORE INTO live_messages (chat_id, message_id, sender, sender_id, is_owner, time, text, kind,"
        " reply_to, forwarded_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (message.chat_id, message.message_id, message.sender, message.sender_id, int(message.is_owner),
         message.time, message.text, message.kind, message.reply_to, message.forwarded_from))
    return cursor.rowcount > 0


@dataclass(frozen=True)
class StoredMessage:
    document_id: int | None  # the document of its window; None while the window is open


async def message_document(conn: Store, chat_id: str, message_id: str) -> StoredMessage | None:
    """Where a stored message was saved; None when it is not stored."""
    async with conn.execute("SELECT document_id FROM live_messages WHERE chat_id = ? AND message_id = ?",
                            (chat_id, message_id)) as cur:
        row = await cur.fetchone()
    return StoredMessage(row[0]) if row else None


async def edit_message(conn: Store, chat_id: str, message_id: str, text: str, *, at: str) -> None:
    """The new text, the old one kept beside it."""
    await conn.execute(
        "INSERT INTO live_edits (chat_id, message_id, old_text, edited_at)"
        " SELECT chat_id, message_id, text, ? FROM live_messages WHERE chat_id = ? AND message_id = ?",
        (at, chat_id, message_id))
    await conn.execute("UPDATE live_messages SET text = ? WHERE chat_id = ? AND message_id = ?",
                       (text, chat_id, message_id))


async def delete_message(conn: Store, chat_id: str, message_id: str) -> None:
    """The message and its earlier texts."""
    await conn.execute("DELETE FROM live_messages WHERE chat_id = ? AND message_id = ?", (chat_id, message_id))


async def open_windows(conn: Store) -> list[str]:
    """Chats with messages not yet saved in a document."""
    async with conn.execute("SELECT DISTINCT chat_id FROM live_messages WHERE document_id IS NULL") as cur:
        return [row[0] for row in await cur.fetchall()]


async def open_window(conn: Store, chat_id: str) -> list[LiveMessage]:
    async with conn.execute(
            "SELECT chat_id, message_id, sender, sender_id, is_owner, time, text, kind, reply_to, forwarded_from"
            " FROM live_messages WHERE chat_id = ? AND document_id IS NULL ORDER BY time, CAST(message_id AS INTEGER)",
            (chat_id,)) as cur:
        return [LiveMessage(row[0], row[1], row[2], row[3], bool(row[4]), row[5], row[6], row[7], row[8], row[9])
                for row in await cur.fetchall()]


async def reopen(conn: Store, document_id: int) -> None:
    """Put a saved window's messages back in the open window (before its document is replaced)."""
    await conn.execute("UPDATE live_messages SET document_id = NULL WHERE document_id = ?", (document_id,))


async def close_window(conn: Store, chat_id: str, document_id: int, message_ids: list[str]) -> None:
    await conn.executemany("UPDATE live_messages SET document_id = ? WHERE chat_id = ? AND message_id = ?",
                           [(document_id, chat_id, m) for m in message_ids])


async def chat_documents(conn: Store, chat_id: str) -> list[int]:
    async with conn.execute("SELECT DISTINCT document_id FROM live_messages WHERE chat_id = ?"
                            " AND document_id IS NOT NULL", (chat_id,)) as cur:
        return [row[0] for row in await cur.fetchall()]


async def chat_name(conn: Store, chat_id: str) -> str | None:
    async with conn.execute("SELECT name FROM live_chats WHERE chat_id = ?", (chat_id,)) as cur:
        row = await cur.fetchone()
    return row[0] if row else None
