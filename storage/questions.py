"""Open questions: the gaps in the profile the biographer wants the owner to fill."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import aiosqlite

if TYPE_CHECKING:
    from storage.db import Store

COLUMNS = ("id, text, why, priority, status, run_id, locators, created_at, asked_at, times_asked,"
           " answered_at, resolution")


@dataclass(frozen=True)
class QuestionRow:
    id: int
    text: str
    why: str
    priority: int
    status: str
    run_id: int | None
    locators: tuple[str, ...]
    created_at: str
    asked_at: str | None
    times_asked: int
    answered_at: str | None
    resolution: str


def _question(row: aiosqlite.Row) -> QuestionRow:
    return QuestionRow(*row[:6], tuple(json.loads(row[6] or "[]")), *row[7:])


async def add_question(conn: Store, *, text: str, why: str, priority: int,
                       run_id: int | None, locators: list[str], at: str) -> int:
    cur = await conn.execute(
        """INSERT INTO open_questions (text, why, priority, run_id, locators, created_at)
           VALUES (?, ?, ?, ?, ?, ?)""",
        (text, why, priority, run_id, json.dumps(locators), at),
    )
    return cur.lastrowid


async def find_open_by_text(conn: Store, text: str) -> int | None:
    async with conn.execute(
        "SELECT id FROM open_questions WHERE status IN ('open', 'asked') AND lower(text) = lower(?)",
        (text,),
    ) as cur:
        row = await cur.fetchone()
    return row[0] if row else None


async def list_questions(conn: Store, *, statuses: tuple[str, ...]) -> list[QuestionRow]:
    marks = ",".join("?" * len(statuses))
    async with conn.execute(
        f"SELECT {COLUMNS} FROM open_questions WHERE status IN ({marks})"
        " ORDER BY priority DESC, created_at, id", statuses,
    ) as cur:
        return [_question(r) for r in await cur.fetchall()]


async def get_question(conn: Store, question_id: int) -> QuestionRow | None:
    async with conn.execute(f"SELECT {COLUMNS} FROM open_questions WHERE id = ?", (question_id,)) as cur:
        row = await cur.fetchone()
    return _question(row) if row else None


async def next_question(conn: Store, *, asked_before: str) -> QuestionRow | None:
    """The most valuable unanswered question not asked since `asked_before`."""
    async with conn.execute(
        f"""SELECT {COLUMNS} FROM open_questions
            WHERE status IN ('open', 'asked') AND (asked_at IS NULL OR asked_at < ?)
            ORDER BY priority DESC, times_asked, created_at, id LIMIT 1""",
        (asked_before,),
    ) as cur:
        row = await cur.fetchone()
    return _question(row) if row else None


async def mark_asked(conn: Store, question_id: int, at: str) -> None:
    await conn.execute(
        """UPDATE open_questions SET asked_at = ?, times_asked = times_asked + 1,
               status = CASE WHEN status = 'open' THEN 'asked' ELSE status END WHERE id = ?""",
        (at, question_id),
    )


async def resolve(conn: Store, question_id: int, *, status: str, resolution: str,
                  at: str) -> bool:
    cur = await conn.execute(
        """UPDATE open_questions SET status = ?, resolution = ?, answered_at = ?
           WHERE id = ? AND status IN ('open', 'asked')""",
        (status, resolution, at, question_id),
    )
    return cur.rowcount > 0
