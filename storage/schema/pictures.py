"""The index the pictures count from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration

if TYPE_CHECKING:
    from storage.db import Store


@migration(130)
async def m130_messages_activity_index(conn: Store) -> None:
    """Messages per person and per day (storage/activity.py) are counted from this index alone,
    never the table: over ten years of messages that is the difference between about 3 s and
    under 1 s for a picture (bench/pictures.py). It starts with sender COLLATE NOCASE, so it also
    serves every lookup messages_sender served; that index goes, and the store grows by the other
    four columns only (about 35 bytes a message)."""
    await conn.execute(
        "CREATE INDEX messages_activity ON messages(sender COLLATE NOCASE, is_owner, kind, platform, time)")
    await conn.execute("DROP INDEX IF EXISTS messages_sender")
