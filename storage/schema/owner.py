"""Owner flags that follow the owner's aliases: which flags the source itself gave."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration

if TYPE_CHECKING:
    from storage.db import Store


@migration(40)
async def m040_owner_by_format(conn: Store) -> None:
    # 1 when the format itself said the owner wrote it (iMessage is_from_me, Telegram's own id,
    # Gmail's Sent label): such flags stay whatever the aliases say. Flags stored before this
    # migration cannot be told apart, so they are kept as if the format gave them.
    await conn.execute("ALTER TABLE messages ADD COLUMN owner_by_format INTEGER NOT NULL DEFAULT 0")
    await conn.execute("UPDATE messages SET owner_by_format = is_owner")
