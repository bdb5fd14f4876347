"""Whole sources as the owner sees them from a chat: list, forget (with everything derived), export."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import aiosqlite

from core.errors import UserFacingError
from storage import documents as document_store
from storage import source_admin
from storage.db import transaction


async def list_sources(conn: aiosqlite.Connection) -> list[document_store.DocumentRow]:
    return await document_store.list_documents(conn)


async def forget_source(conn: aiosqlite.Connection, document_id: int) -> document_store.DocumentRow:
    """Delete one source and what was derived from it; raises with a hint when there is no such source."""
    document = await document_store.get_document(conn, document_id)
    if document is None:
        raise UserFacingError(f"there is no source #{document_id}", hint="/sources lists them with their numbers")
    async with transaction(conn):
        await source_admin.delete_source(conn, document_id)
    return document


async def export_sources(conn: aiosqlite.Connection, path: Path) -> Path:
    """Write every source and message as one JSON file at `path`."""
    sources = [asdict(d) for d in await document_store.list_documents(conn)]
    messages = [m async for m in source_admin.iter_messages(conn)]
    path.write_text(json.dumps({"sources": sources, "messages": messages}, ensure_ascii=False, indent=1),
                    encoding="utf-8")
    return path
