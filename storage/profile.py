"""bio.md and its history: every change keeps the whole text before and after it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import aiosqlite

if TYPE_CHECKING:
    from storage.db import Store


@dataclass(frozen=True)
class HistoryRow:
    id: int
    at: str
    kind: str  # "create", "edit", "correction", "consolidation", "undo"
    section: str | None
    old_text: str
    new_text: str
    profile_before: str
    profile_after: str
    run_id: int | None
    locators: list[str]
    undoes: int | None


def _history(row: aiosqlite.Row) -> HistoryRow:
    return HistoryRow(row["id"], row["at"], row["kind"], row["section"], row["old_text"],
                      row["new_text"], row["profile_before"], row["profile_after"], row["run_id"],
                      json.loads(row["locators"]), row["undoes"])


async def get_profile(conn: Store) -> str | None:
    async with conn.execute("SELECT text FROM profile WHERE id = 1") as cur:
        row = await cur.fetchone()
    return row[0] if row else None


async def write_profile(conn: Store, *, before: str, after: str, at: str, kind: str,
                        section: str | None, old_text: str, new_text: str, run_id: int | None,
                        locators: list[str], undoes: int | None = None) -> int:
    """Replace the profile and record the change; the caller holds the transaction."""
    await conn.execute(
        "INSERT INTO profile (id, text, updated_at) VALUES (1, ?, ?)"
        " ON CONFLICT(id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at",
        (after, at),
    )
    cur = await conn.execute(
        """INSERT INTO profile_history (at, kind, section, old_text, new_text, profile_before,
               profile_after, run_id, locators, undoes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (at, kind, section, old_text, new_text, before, after, run_id, json.dumps(locators), undoes),
    )
    return cur.lastrowid


async def list_history(conn: Store, *, limit: int) -> list[HistoryRow]:
    async with conn.execute("SELECT * FROM profile_history ORDER BY id DESC LIMIT ?", (limit,)) as cur:
        return [_history(r) for r in await cur.fetchall()]


async def get_history(conn: Store, edit_id: int) -> HistoryRow | None:
    async with conn.execute("SELECT * FROM profile_history WHERE id = ?", (edit_id,)) as cur:
        row = await cur.fetchone()
    return _history(row) if row else None


async def latest_history_id(conn: Store) -> int:
    async with conn.execute("SELECT COALESCE(MAX(id), 0) FROM profile_history") as cur:
        (value,) = await cur.fetchone()
    return value


async def profile_as_of(conn: Store, at: str) -> str | None:
    """The profile as it stood at `at` (UTC ISO), or None when it did not exist yet."""
    async with conn.execute(
        "SELECT profile_after FROM profile_history WHERE at <= ? ORDER BY id DESC LIMIT 1", (at,)
    ) as cur:
        row = await cur.fetchone()
    return row[0] if row else None


async def edits_since_last(conn: Store, kind: str) -> int:
    """Edits made after the latest change of `kind` (e.g. since the last consolidation)."""
    async with conn.execute(
        """SELECT COUNT(*) FROM profile_history WHERE kind IN ('edit', 'correction', 'undo')
           AND id > COALESCE((SELECT MAX(id) FROM profile_history WHERE kind = ?), 0)""",
        (kind,),
    ) as cur:
        (count,) = await cur.fetchone()
    return count


async def all_history(conn: Store) -> list[HistoryRow]:
    async with conn.execute("SELECT * FROM profile_history ORDER BY id") as cur:
        return [_history(r) for r in await cur.fetchall()]


async def redact(conn: Store, *, current: str | None, history: list[HistoryRow]) -> None:
    """Overwrite the profile and history rows with redacted text (forgetting a source): no new
    history row, since the point is that the forgotten words are nowhere any more."""
    if current is not None:
        await conn.execute("UPDATE profile SET text = ? WHERE id = 1", (current,))
    await conn.executemany(
        """UPDATE profile_history SET old_text = ?, new_text = ?, profile_before = ?, profile_after = ?,
               locators = ? WHERE id = ?""",
        [(r.old_text, r.new_text, r.profile_before, r.profile_after, json.dumps(r.locators), r.id)
         for r in history],
    )
