"""Documents: one row per imported file or message stream."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import PurePath
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import aiosqlite

from storage.meta import set_meta
from storage.schema.ids import HIGH_WATER

if TYPE_CHECKING:
    from storage.db import Store


@dataclass(frozen=True)
class DocumentRow:
    id: int
    kind: str
    name: str
    identity: str
    source_path: str | None
    imported_at: str
    time_start: str | None
    time_end: str | None
    participants: list[str]
    chunk_count: int
    text_length: int
    platform: str | None
    conversation_key: str | None
    note: str
    raw_path: str | None = None  # the kept copy of the imported file
    messages: int = 0  # the messages it holds (a chat's; 0 for a document)

    @property
    def file_name(self) -> str | None:
        """The name of the file it was imported from (two exports of one chat differ by it)."""
        return PurePath(self.source_path).name if self.source_path else None


def _row(row: aiosqlite.Row) -> DocumentRow:
    return DocumentRow(
        id=row["id"], kind=row["kind"], name=row["name"], identity=row["identity"],
        source_path=row["source_path"], imported_at=row["imported_at"],
        time_start=row["time_start"], time_end=row["time_end"],
        participants=json.loads(row["participants"]), chunk_count=row["chunk_count"],
        text_length=row["text_length"], platform=row["platform"],
        conversation_key=row["conversation_key"], note=row["note"], raw_path=row["raw_path"],
        messages=row["messages"],
    )


# every read of a document counts its messages too (messages_document indexes them by document)
_SELECT = "SELECT *, (SELECT COUNT(*) FROM messages m WHERE m.document_id = documents.id) AS messages FROM documents"


async def find_by_identity(conn: Store, identity: str) -> int | None:
    async with conn.execute("SELECT id FROM documents WHERE identity = ?", (identity,)) as cur:
        row = await cur.fetchone()
    return row[0] if row else None


async def find_by_identity_prefix(conn: Store, prefix: str) -> list[DocumentRow]:
    """Documents whose identity starts with `prefix` (every version of one journal entry)."""
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    async with conn.execute(f"{_SELECT} WHERE identity >= ? AND identity < ? ORDER BY id",
                            (prefix, upper)) as cur:
        return [_row(row) for row in await cur.fetchall()]


async def insert_document(
    conn: Store,
    *,
    kind: str,
    name: str,
    identity: str,
    source_path: str | None,
    content_hash: str | None,
    byte_size: int | None,
    raw_path: str | None,
    platform: str | None = None,
    conversation_key: str | None = None,
    is_group: bool = False,
    participants: list[str] | None = None,
    note: str = "",
) -> int:
    """Insert a document under an id never given before (see storage/schema/ids.py); call inside
    a transaction."""
    async with conn.execute(
            "SELECT MAX(COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0),"
            " COALESCE((SELECT MAX(id) FROM documents), 0)) + 1", (HIGH_WATER,)) as cur:
        (document_id,) = await cur.fetchone()
    await conn.execute(
        """INSERT INTO documents (id, kind, name, identity, source_path, content_hash, byte_size,
               imported_at, raw_path, platform, conversation_key, is_group, participants, note)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (document_id, kind, name, identity, source_path, content_hash, byte_size,
         datetime.now(timezone.utc).isoformat(timespec="seconds"), raw_path, platform,
         conversation_key, int(is_group), json.dumps(participants or []), note),
    )
    await set_meta(conn, HIGH_WATER, str(document_id))
    return document_id


async def finish_document(
    conn: Store,
    document_id: int,
    *,
    chunk_count: int,
    text_length: int,
    time_start: str | None,
    time_end: str | None,
    participants: list[str] | None = None,
) -> None:
    await conn.execute(
        """UPDATE documents SET chunk_count = ?, text_length = ?, time_start = ?, time_end = ?,
               participants = COALESCE(?, participants) WHERE id = ?""",
        (chunk_count, text_length, time_start, time_end,
         json.dumps(participants) if participants is not None else None, document_id),
    )


async def get_document(conn: Store, document_id: int) -> DocumentRow | None:
    async with conn.execute(f"{_SELECT} WHERE id = ?", (document_id,)) as cur:
        row = await cur.fetchone()
    return _row(row) if row else None


async def list_documents(conn: Store) -> list[DocumentRow]:
    async with conn.execute(f"{_SELECT} ORDER BY id") as cur:
        return [_row(r) for r in await cur.fetchall()]


async def kinds(conn: Store) -> list[str]:
    """The source kinds the store holds."""
    async with conn.execute("SELECT DISTINCT kind FROM documents ORDER BY kind") as cur:
        return [row[0] for row in await cur.fetchall()]


@dataclass(frozen=True)
class KindCount:
    kind: str
    documents: int
    chunks: int


async def count_by_kind(conn: Store) -> list[KindCount]:
    """Documents and passages per source kind."""
    async with conn.execute(
            "SELECT kind, COUNT(*), COALESCE(SUM(chunk_count), 0) FROM documents GROUP BY kind ORDER BY kind") as cur:
        return [KindCount(*row) for row in await cur.fetchall()]
