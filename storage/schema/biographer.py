"""The biographer's tables: its runs, bio.md and every edit of it, open questions, timeline events,
the chat with the owner and how far analysis has read each document."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store


@migration(20)
async def m020_biographer(conn: Store) -> None:
    await run_statements(
        conn,
        [
            # agent runs with their token usage, per role (chat, analysis, vision)
            """CREATE TABLE runs (
                id INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,
                role TEXT NOT NULL,
                model TEXT NOT NULL,
                started_at TEXT NOT NULL,
                finished_at TEXT,
                status TEXT NOT NULL DEFAULT 'running',
                steps INTEGER NOT NULL DEFAULT 0,
                tool_errors INTEGER NOT NULL DEFAULT 0,
                prompt_tokens INTEGER NOT NULL DEFAULT 0,
                completion_tokens INTEGER NOT NULL DEFAULT 0,
                note TEXT NOT NULL DEFAULT ''
            )""",
            "CREATE INDEX runs_started ON runs(started_at)",
            # the one current bio.md
            """CREATE TABLE profile (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                text TEXT NOT NULL,
                updated_at TEXT NOT NULL
            )""",
            # every change, with the whole text before and after so diff and undo never guess
            """CREATE TABLE profile_history (
                id INTEGER PRIMARY KEY,
                at TEXT NOT NULL,
                kind TEXT NOT NULL,
                section TEXT,
                old_text TEXT NOT NULL,
                new_text TEXT NOT NULL,
                profile_before TEXT NOT NULL,
                profile_after TEXT NOT NULL,
                run_id INTEGER REFERENCES runs(id),
                locators TEXT NOT NULL DEFAULT '[]',
                undoes INTEGER REFERENCES profile_history(id)
            )""",
            "CREATE INDEX profile_history_at ON profile_history(at)",
            """CREATE TABLE open_questions (
                id INTEGER PRIMARY KEY,
                text TEXT NOT NULL,
                why TEXT NOT NULL DEFAULT '',
                priority INTEGER NOT NULL DEFAULT 3,
                status TEXT NOT NULL DEFAULT 'open',
                run_id INTEGER REFERENCES runs(id),
                locators TEXT NOT NULL DEFAULT '[]',
                created_at TEXT NOT NULL,
                asked_at TEXT,
                times_asked INTEGER NOT NULL DEFAULT 0,
                answered_at TEXT,
                resolution TEXT NOT NULL DEFAULT ''
            )""",
            "CREATE INDEX open_questions_status ON open_questions(status, priority)",
            """CREATE TABLE timeline_events (
                id INTEGER PRIMARY KEY,
                date TEXT NOT NULL,
                title TEXT NOT NULL,
                detail TEXT NOT NULL DEFAULT '',
                locators TEXT NOT NULL DEFAULT '[]',
                run_id INTEGER REFERENCES runs(id),
                created_at TEXT NOT NULL,
                UNIQUE (date, title)
            )""",
            # the chat with the owner, text only: the tail of it goes into each turn's context
            """CREATE TABLE chat_turns (
                id INTEGER PRIMARY KEY,
                conversation TEXT NOT NULL,
                role TEXT NOT NULL,
                text TEXT NOT NULL,
                at TEXT NOT NULL
            )""",
            "CREATE INDEX chat_turns_conversation ON chat_turns(conversation, id)",
            # how far analysis has read each document (chars of its plain text)
            """CREATE TABLE analysis_progress (
                document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
                analyzed_to INTEGER NOT NULL,
                run_id INTEGER REFERENCES runs(id),
                updated_at TEXT NOT NULL
            )""",
        ],
    )
