"""What may leave the machine, per source or kind: the owner's disclosure policies."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store


@migration(171)
async def m171_disclosure_policies(conn: Store) -> None:
    """The owner's policies (core/privacy/disclosure.py). A source's row goes when the source is
    forgotten; a kind's stays for the sources of that kind still to come."""
    await run_statements(conn, [
        """CREATE TABLE source_policies (
            document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
            policy TEXT NOT NULL CHECK (policy IN ('allow', 'descriptors_only', 'deny')),
            set_at TEXT NOT NULL
        )""",
        """CREATE TABLE kind_policies (
            kind TEXT PRIMARY KEY,
            policy TEXT NOT NULL CHECK (policy IN ('allow', 'descriptors_only', 'deny')),
            set_at TEXT NOT NULL
        )""",
    ])
