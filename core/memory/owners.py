"""Owner flags that follow BIOGRAPHER_OWNER_ALIASES: an alias added after an import marks the
owner's stored messages as theirs (and one removed unmarks them), with no re-import."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from storage.meta import get_meta, set_meta

if TYPE_CHECKING:
    from core.importers.base import ImportContext
    from storage.db import Store

_APPLIED = "owner_aliases"  # the aliases the stored flags were last computed with


async def follow_owner_aliases(conn: Store, context: ImportContext, *,
                               force: bool = False) -> int | None:
    """Recompute the owner flags when the aliases differ from the last time (or `force`).
    Returns how many messages changed, or None when the aliases had not changed. A flag the
    source itself gave (iMessage's is_from_me, Telegram's own id) is kept whatever the aliases."""
    current = json.dumps(sorted(context.owner_aliases), ensure_ascii=False)
    if not force and await get_meta(conn, _APPLIED) == current:
        return None
    from storage import people as people_store  # every command asks; only a change of aliases reads them

    identities = await people_store.sender_identities(conn)
    owners = [identity for identity in identities if context.owns(identity.sender, identity.sender_id)]
    async with conn.transaction():
        changed = await people_store.set_owner_flags(conn, owners)
        await set_meta(conn, _APPLIED, current)
    return changed
