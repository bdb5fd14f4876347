"""What agents saved: records, their versions (each a document of its own) and idempotency keys."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import aiosqlite

if TYPE_CHECKING:
    from storage.db import Store


@dataclass(frozen=True)
class SavedVersion:
    """One version of a saved record, with its record's section and kind."""

    document_id: int
    record_id: int
    version: int
    section: str
    kind: str
    content_hash: str
    client: str
    saved_at: str
    person: str | None
    url: str | None
    superseded_by: int | None  # the document of the version that replaced it
    superseded_generation: int | None
    text_length: int  # of its document: `doc{document_id}:0-{text_length}` is the whole version


_SELECT = """SELECT v.document_id, v.record_id, v.version, r.section, r.kind, v.content_hash, v.client,
                    v.saved_at, v.person, v.url, v.superseded_by, v.superseded_generation, d.text_length
             FROM saved_versions v JOIN saved_records r ON r.id = v.record_id
             JOIN documents d ON d.id = v.document_id"""


def _version(row: aiosqlite.Row) -> SavedVersion:
    return SavedVersion(*row)


async def versions_of_documents(conn: Store, document_ids: Sequence[int]) -> dict[int, SavedVersion]:
    """The saved version each document is, for those that are one (imported documents are not)."""
    out: dict[int, SavedVersion] = {}
    ids = list(dict.fromkeys(document_ids))
    for i in range(0, len(ids), 500):
        part = ids[i:i + 500]
        async with conn.execute(f"{_SELECT} WHERE v.document_id IN ({','.join('?' * len(part))})", part) as cur:
            for row in await cur.fetchall():
                out[row[0]] = _version(row)
    return out


async def current_version(conn: Store, record_id: int) -> SavedVersion | None:
    async with conn.execute(f"{_SELECT} WHERE v.record_id = ? AND v.superseded_by IS NULL"
                            " ORDER BY v.version DESC LIMIT 1", (record_id,)) as cur:
        row = await cur.fetchone()
    return _version(row) if row else None


async def version_replaced_by(conn: Store, document_id: int) -> SavedVersion | None:
    async with conn.execute(f"{_SELECT} WHERE v.superseded_by = ?", (document_id,)) as cur:
        row = await cur.fetchone()
    return _version(row) if row else None


async def insert_record(conn: Store, *, section: str, kind: str, client: str, at: str) -> int:
    cur = await conn.execute("INSERT INTO saved_records (section, kind, client, created_at) VALUES (?, ?, ?, ?)",
                             (section, kind, client, at))
    return cur.lastrowid


async def insert_version(conn: Store, *, document_id: int, record_id: int, version: int,
                         content_hash: str, client: str, at: str, person: str | None, url: str | None) -> None:
    await conn.execute(
        "INSERT INTO saved_versions (document_id, record_id, version, content_hash, client, saved_at, person, url)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (document_id, record_id, version, content_hash, client, at, person, url),
    )


async def supersede(conn: Store, document_id: int, *, by: int, generation: int) -> None:
    await conn.execute("UPDATE saved_versions SET superseded_by = ?, superseded_generation = ? WHERE document_id = ?",
                       (by, generation, document_id))


async def sections(conn: Store) -> list[str]:
    """Sections that hold at least one saved version."""
    async with conn.execute("SELECT DISTINCT r.section FROM saved_records r JOIN saved_versions v"
                            " ON v.record_id = r.id ORDER BY r.section") as cur:
        return [row[0] for row in await cur.fetchall()]


# ---------------------------------------------------------------- idempotency keys

@dataclass(frozen=True)
class IdempotentSave:
    request_digest: str
    document_id: int


async def idempotent_save(conn: Store, *, client: str, key_digest: str) -> IdempotentSave | None:
    async with conn.execute("SELECT request_digest, document_id FROM idempotency_keys"
                            " WHERE client = ? AND key_digest = ?", (client, key_digest)) as cur:
        row = await cur.fetchone()
    return IdempotentSave(row[0], row[1]) if row else None


async def remember_key(conn: Store, *, client: str, key_digest: str, request_digest: str,
                       document_id: int, at: str) -> None:
    await conn.execute(
        "INSERT INTO idempotency_keys (client, key_digest, request_digest, document_id, created_at)"
        " VALUES (?, ?, ?, ?, ?)", (client, key_digest, request_digest, document_id, at))


async def versions_beside(conn: Store, document_id: int) -> list[int]:
    """The documents of every other version of the saved record `document_id` is a version of
    (none for an imported document)."""
    async with conn.execute(
        "SELECT document_id FROM saved_versions WHERE document_id != ? AND record_id ="
        " (SELECT record_id FROM saved_versions WHERE document_id = ?) ORDER BY version", (document_id, document_id)) as cur:
        return [row[0] for row in await cur.fetchall()]


async def delete_records_without_versions(conn: Store) -> int:
    cursor = await conn.execute(
        "DELETE FROM saved_records WHERE NOT EXISTS (SELECT 1 FROM saved_versions v WHERE v.record_id = saved_records.id)")
    return cursor.rowcount


async def current_versions(conn: Store, *, client: str | None = None) -> list[SavedVersion]:
    """The current version of every saved record (of those `client` made), oldest record first."""
    where = " WHERE v.superseded_by IS NULL" + (" AND r.client = ?" if client is not None else "")
    async with conn.execute(f"{_SELECT}{where} ORDER BY v.record_id", (client,) if client is not None else ()) as cur:
        return [_version(row) for row in await cur.fetchall()]


async def record_maker(conn: Store, record_id: int) -> str | None:
    """The client that made a saved record, or None when there is no such record."""
    async with conn.execute("SELECT client FROM saved_records WHERE id = ?", (record_id,)) as cur:
        row = await cur.fetchone()
    return row[0] if row else None
