"""Document ids are never reused: a locator (doc12:100-900) kept in bio.md's history or a saved
answer must never point at another source's text after source 12 is forgotten. SQLite hands out
max(id)+1, which reuses the id of a forgotten newest source, so the highest id ever given is kept
in `meta` and new documents get the next one (storage/documents.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration

if TYPE_CHECKING:
    from storage.db import Store

HIGH_WATER = "documents_high_water"


@migration(100)
async def m100_document_high_water(conn: Store) -> None:
    await conn.execute("INSERT OR REPLACE INTO meta (key, value) SELECT ?, COALESCE(MAX(id), 0) FROM documents",
                       (HIGH_WATER,))
