"""Timeline events: dated moments of the owner's life, each with its sources."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.db import Store


@dataclass(frozen=True)
class EventRow:
    id: int
    date: str
    title: str
    detail: str
    locators: tuple[str, ...]
    run_id: int | None
    created_at: str


@dataclass(frozen=True)
class SavedEvent:
    id: int
    created: bool  # False: an event of that date and title was there, and took the new sources


async def add_event(conn: Store, *, date: str, title: str, detail: str,
                    locators: list[str], run_id: int | None, at: str) -> SavedEvent:
    """An event with the same date and title merges its sources into the old one."""
    async with conn.execute(
        "SELECT id, locators FROM timeline_events WHERE date = ? AND lower(title) = lower(?)", (date, title)
    ) as cur:
        row = await cur.fetchone()
    if row:
        merged = list(dict.fromkeys(json.loads(row[1]) + locators))
        await conn.execute("UPDATE timeline_events SET locators = ? WHERE id = ?", (json.dumps(merged), row[0]))
        return SavedEvent(row[0], created=False)
    cur = await conn.execute(
        """INSERT INTO timeline_events (date, title, detail, locators, run_id, created_at)
           VALUES (?, ?, ?, ?, ?, ?)""",
        (date, title, detail, json.dumps(locators), run_id, at),
    )
    return SavedEvent(cur.lastrowid, created=True)


async def list_events(conn: Store) -> list[EventRow]:
    async with conn.execute(
        "SELECT id, date, title, detail, locators, run_id, created_at FROM timeline_events ORDER BY date, id"
    ) as cur:
        return [EventRow(r[0], r[1], r[2], r[3], tuple(json.loads(r[4] or "[]")), r[5], r[6])
                for r in await cur.fetchall()]
