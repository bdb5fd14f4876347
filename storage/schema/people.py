"""People: one row per person, with every name, number or handle they appear under."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration

if TYPE_CHECKING:
    from storage.db import Store


@migration(10)
async def m010_people(conn: Store) -> None:
    for statement in (
        """CREATE TABLE people (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE COLLATE NOCASE,
            created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))
        )""",
        # an alias belongs to exactly one person; merging moves aliases
        """CREATE TABLE person_aliases (
            alias TEXT PRIMARY KEY COLLATE NOCASE,
            person_id INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE
        ) WITHOUT ROWID""",
        "CREATE INDEX person_aliases_person ON person_aliases(person_id)",
    ):
        await conn.execute(statement)
