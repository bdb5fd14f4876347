"""Tables of the front ends and the scheduler: owner preferences, job runs, question prompts sent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store


@migration(30)
async def m030_frontends(conn: Store) -> None:
    await run_statements(
        conn,
        [
            # preferences changed from a chat (/settings, /pause); absent keys fall back to Settings
            "CREATE TABLE frontend_preferences (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            # the last schedule slot each job has settled (run or skipped), so a restart repeats nothing
            "CREATE TABLE job_runs (job TEXT PRIMARY KEY, last_slot TEXT NOT NULL, outcome TEXT NOT NULL)",
            # every question prompt sent, so a reply to it is taken as its answer
            """CREATE TABLE question_prompts (
                id INTEGER PRIMARY KEY,
                question_id TEXT NOT NULL,
                platform TEXT NOT NULL,
                chat_id TEXT NOT NULL,
                message_id TEXT NOT NULL,
                sent_at TEXT NOT NULL,
                UNIQUE (platform, chat_id, message_id)
            )""",
            "CREATE INDEX question_prompts_sent ON question_prompts(sent_at)",
        ],
    )
