"""Tables of the local web page: its login sessions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store


@migration(140)
async def m140_page_sessions(conn: Store) -> None:
    await run_statements(
        conn,
        [
            # one row per browser logged in to the page with a page client's token; only a digest
            # of the cookie's secret is kept, and a session ends with its client (revoked) or at expiry
            """CREATE TABLE page_sessions (
                secret_digest TEXT PRIMARY KEY,
                client_id INTEGER NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL
            )""",
            "CREATE INDEX page_sessions_expiry ON page_sessions(expires_at)",
            "CREATE INDEX page_sessions_client ON page_sessions(client_id)",  # a revoke deletes by it
        ],
    )
