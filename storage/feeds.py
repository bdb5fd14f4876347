"""SQL for the feeds (mail accounts, watched paths), their cursors and the documents they brought."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import aiosqlite

    from storage.db import Store


@dataclass(frozen=True)
class FeedRow:
    id: int
    kind: str  # "mail" or "watch"
    name: str  # a mail account's name, or a watched path
    config: dict[str, Any]
    added_at: str
    last_run_at: str | None
    last_added: int
    last_error: str | None


def _row(row: aiosqlite.Row) -> FeedRow:
    return FeedRow(id=row["id"], kind=row["kind"], name=row["name"], config=json.loads(row["config"]),
                   added_at=row["added_at"], last_run_at=row["last_run_at"], last_added=row["last_added"],
                   last_error=row["last_error"])


async def add_feed(conn: Store, *, kind: str, name: str, config: dict[str, Any], added_at: str) -> int | None:
    """The new feed's id, or None when a feed of that name exists."""
    cursor = await conn.execute(
        "INSERT OR IGNORE INTO feeds (kind, name, config, added_at) VALUES (?, ?, ?, ?)",
        (kind, name, json.dumps(config, sort_keys=True), added_at))
    return cursor.lastrowid if cursor.rowcount else None


async def list_feeds(conn: Store, kind: str | None = None) -> list[FeedRow]:
    query, args = "SELECT * FROM feeds ORDER BY id", ()
    if kind is not None:
        query, args = "SELECT * FROM feeds WHERE kind = ? ORDER BY id", (kind,)
    async with conn.execute(query, args) as cur:
        return [_row(row) for row in await cur.fetchall()]


async def remove_feed(conn: Store, feed_id: int) -> bool:
    cursor = await conn.execute("DELETE FROM feeds WHERE id = ?", (feed_id,))
    return cursor.rowcount > 0


async def record_run(conn: Store, feed_id: int, *, at: str, added: int, error: str | None) -> None:
    await conn.execute("UPDATE feeds SET last_run_at = ?, last_added = ?, last_error = ? WHERE id = ?",
                       (at, added, error, feed_id))


async def cursors(conn: Store, feed_id: int) -> dict[str, dict[str, Any]]:
    async with conn.execute("SELECT key, state FROM feed_cursors WHERE feed_id = ?", (feed_id,)) as cur:
        return {row[0]: json.loads(row[1]) for row in await cur.fetchall()}


async def set_cursor(conn: Store, feed_id: int, key: str, state: dict[str, Any]) -> None:
    await conn.execute(
        "INSERT INTO feed_cursors (feed_id, key, state) VALUES (?, ?, ?)"
        " ON CONFLICT(feed_id, key) DO UPDATE SET state = excluded.state",
        (feed_id, key, json.dumps(state, sort_keys=True)))


async def link_documents(conn: Store, feed_id: int, document_ids: list[int]) -> None:
    await conn.executemany("INSERT OR IGNORE INTO feed_documents (document_id, feed_id) VALUES (?, ?)",
                           [(d, feed_id) for d in document_ids])


async def documents_since(conn: Store, after_id: int, *, under: str) -> list[int]:
    """Documents saved after `after_id` from a file at or under the path `under`."""
    async with conn.execute(
            "SELECT id FROM documents WHERE id > ? AND (source_path = ? OR source_path LIKE ? ESCAPE '\\')",
            (after_id, under, _like_prefix(under.rstrip("/") + "/"))) as cur:
        return [row[0] for row in await cur.fetchall()]


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


async def highest_document_id(conn: Store) -> int:
    async with conn.execute("SELECT COALESCE(MAX(id), 0) FROM documents") as cur:
        return (await cur.fetchone())[0]


async def feeds_of_documents(conn: Store, document_ids: list[int]) -> dict[int, FeedRow]:
    """The feed that brought each of these documents (those a feed brought)."""
    if not document_ids:
        return {}
    found: dict[int, FeedRow] = {}
    for i in range(0, len(document_ids), 500):
        batch = document_ids[i:i + 500]
        async with conn.execute(
                "SELECT fd.document_id AS document_id, f.* FROM feed_documents fd JOIN feeds f ON f.id = fd.feed_id"
                f" WHERE fd.document_id IN ({','.join('?' * len(batch))})", batch) as cur:
            for row in await cur.fetchall():
                found[row["document_id"]] = _row(row)
    return found
