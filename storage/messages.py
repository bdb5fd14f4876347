"""Messages: who said what, and when, kept exactly as the source had it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, TYPE_CHECKING


if TYPE_CHECKING:
    from storage.db import Store


class MessageRecord(NamedTuple):
    document_id: int
    platform: str
    conversation_key: str
    platform_id: str | None
    sender: str
    sender_id: str | None
    is_owner: bool
    time: str | None  # UTC ISO; None: the source gave no time (an undated e-mail)
    utc_offset_minutes: int | None  # the sender's wall-clock offset, when known
    kind: str
    reply_to: str | None
    forwarded_from: str | None
    text: str
    attachments: str  # JSON list
    dedup_key: str
    char_start: int
    char_end: int
    owner_by_format: bool = False  # the source itself said the owner wrote it (not an alias)


async def existing_keys(conn: Store, keys: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for i in range(0, len(keys), 500):
        part = list(keys[i:i + 500])
        async with conn.execute(
            f"SELECT dedup_key FROM messages WHERE dedup_key IN ({','.join('?' * len(part))})", part
        ) as cur:
            found.update(r[0] for r in await cur.fetchall())
    return found


async def insert_messages(conn: Store, rows: Sequence[MessageRecord]) -> None:
    await conn.executemany(
        """INSERT INTO messages (document_id, platform, conversation_key, platform_id, sender,
               sender_id, is_owner, time, utc_offset_minutes, kind, reply_to, forwarded_from, text,
               attachments, dedup_key, char_start, char_end, owner_by_format)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT(dedup_key) DO NOTHING""",
        rows,
    )


@dataclass(frozen=True)
class MessageAt:
    sender: str
    time: str | None  # UTC ISO; None for an undated message


async def message_at(conn: Store, document_id: int, position: int) -> MessageAt | None:
    """The message whose rendered line holds `position` of a document (None in prose)."""
    # the last message starting at or before the position, found by one index seek (a range
    # condition on both ends scanned every earlier message of the chat: 0.1 s per call at 300k)
    async with conn.execute(
        """SELECT sender, time, char_end FROM messages WHERE document_id = ? AND char_start <= ?
           ORDER BY char_start DESC LIMIT 1""",
        (document_id, position),
    ) as cur:
        row = await cur.fetchone()
    return MessageAt(sender=row[0], time=row[1]) if row and row[2] >= position else None


async def frequent_senders(conn: Store, *, limit: int, without_denied: bool = False) -> list[str]:
    """Sender names, most messages first; with `without_denied`, counting only messages of sources
    whose policy does not deny them (core/privacy/disclosure.py)."""
    from storage.disclosure import effective_policy_sql  # the policies' table: only this query reads it here

    denied = (f"AND m.document_id NOT IN (SELECT d.id FROM documents d WHERE {effective_policy_sql('d')} = 'deny')"
              if without_denied else "")
    async with conn.execute(
        f"""SELECT sender FROM messages m WHERE sender != '' {denied} GROUP BY sender
           ORDER BY COUNT(*) DESC LIMIT ?""", (limit,),
    ) as cur:
        return [row[0] for row in await cur.fetchall()]


async def count_messages(conn: Store) -> int:
    async with conn.execute("SELECT COUNT(*) FROM messages") as cur:
        return (await cur.fetchone())[0]
