"""SQL for the front ends' state: preferences, job runs, question prompts."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.db import Store



async def get_preferences(conn: Store) -> dict[str, str]:
    async with conn.execute("SELECT key, value FROM frontend_preferences") as cur:
        return {row[0]: row[1] for row in await cur.fetchall()}


async def set_preference(conn: Store, key: str, value: str) -> None:
    await conn.execute(
        "INSERT INTO frontend_preferences (key, value) VALUES (?, ?)"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


async def last_slot(conn: Store, job: str) -> str | None:
    async with conn.execute("SELECT last_slot FROM job_runs WHERE job = ?", (job,)) as cur:
        row = await cur.fetchone()
    return row[0] if row else None


async def settle_slot(conn: Store, job: str, slot: str, outcome: str) -> None:
    await conn.execute(
        "INSERT INTO job_runs (job, last_slot, outcome) VALUES (?, ?, ?)"
        " ON CONFLICT(job) DO UPDATE SET last_slot = excluded.last_slot, outcome = excluded.outcome",
        (job, slot, outcome),
    )


async def record_prompt(conn: Store, *, question_id: str, platform: str, chat_id: str,
                        message_id: str, sent_at: str) -> None:
    await conn.execute(
        "INSERT OR IGNORE INTO question_prompts (question_id, platform, chat_id, message_id, sent_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (question_id, platform, chat_id, message_id, sent_at),
    )


async def prompt_question(conn: Store, *, platform: str, chat_id: str,
                          message_id: str) -> str | None:
    async with conn.execute(
        "SELECT question_id FROM question_prompts WHERE platform = ? AND chat_id = ? AND message_id = ?",
        (platform, chat_id, message_id),
    ) as cur:
        row = await cur.fetchone()
    return row[0] if row else None


async def prompts_sent_since(conn: Store, since: str) -> int:
    """Distinct questions prompted since a UTC ISO instant (one question sent to two chats counts once)."""
    async with conn.execute(
        "SELECT COUNT(DISTINCT question_id || '@' || sent_at) FROM question_prompts WHERE sent_at >= ?",
        (since,),
    ) as cur:
        (count,) = await cur.fetchone()
    return int(count)
