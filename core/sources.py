"""Whole sources as the owner sees them from a chat: list, forget (with everything derived), export."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import aiosqlite

from core.errors import UserFacingError
from storage import documents as document_store
from storage import profile as profile_store
from storage import source_admin
from storage.db import transaction


#: one imported source as the owner sees it (numbered for /forget)
Source = document_store.DocumentRow


async def list_sources(conn: aiosqlite.Connection) -> list[Source]:
    return await document_store.list_documents(conn)


async def get_source(conn: aiosqlite.Connection, source_id: int) -> Source | None:
    return await document_store.get_document(conn, source_id)


async def find_sources_by_identity_prefix(conn: aiosqlite.Connection, prefix: str) -> list[Source]:
    return await document_store.find_by_identity_prefix(conn, prefix)


@dataclass(frozen=True)
class Forgotten:
    document: document_store.DocumentRow
    profile_lines: int  # bio.md lines removed because they rested on this source alone
    timeline_events: int  # events removed for the same reason


_CITATION = re.compile(r"\[(doc\d+:\d+-\d+)\]")


def without_source(text: str, document_id: int) -> tuple[str, int]:
    """`text` with every citation of the document gone: a line that cited only it goes whole
    (what it says came from there), other lines lose just those citations. Returns the text and
    the number of lines removed."""
    prefix = f"doc{document_id}:"
    kept: list[str] = []
    removed = 0
    for line in text.split("\n"):
        cited = _CITATION.findall(line)
        ours = [c for c in cited if c.startswith(prefix)]
        if not ours:
            kept.append(line)
        elif len(ours) == len(cited):
            removed += 1
        else:
            kept.append(re.sub(rf"\s*\[{re.escape(prefix)}\d+-\d+\]", "", line))
    return "\n".join(kept), removed


async def forget_source(conn: aiosqlite.Connection, document_id: int) -> Forgotten:
    """Delete one source and everything taken from it: its messages, chunks, vectors and raw
    copy, the timeline events and bio.md lines resting on it alone (in bio.md's history too), and
    its citations elsewhere. Raises with a hint when there is no such source."""
    document = await document_store.get_document(conn, document_id)
    if document is None:
        raise UserFacingError(f"there is no source #{document_id}", hint="/sources lists them with their numbers")
    prefix = f"doc{document_id}:"
    async with transaction(conn):
        await source_admin.delete_source(conn, document_id)
        emptied = []
        for table in source_admin.CITING_TABLES:
            for row_id, locators in await source_admin.citing_rows(conn, table):
                left = [loc for loc in locators if not loc.startswith(prefix)]
                if len(left) == len(locators):
                    continue
                if not left and table == "timeline_events":
                    emptied.append(row_id)
                else:
                    await source_admin.set_locators(conn, table, row_id, left)
        await source_admin.delete_timeline_events(conn, emptied)
        current = await profile_store.get_profile(conn)
        redacted_current, lines = without_source(current, document_id) if current else (None, 0)
        history = [
            replace(row, old_text=without_source(row.old_text, document_id)[0],
                    new_text=without_source(row.new_text, document_id)[0],
                    profile_before=without_source(row.profile_before, document_id)[0],
                    profile_after=without_source(row.profile_after, document_id)[0],
                    locators=[loc for loc in row.locators if not loc.startswith(prefix)])
            for row in await profile_store.all_history(conn)
        ]
        await profile_store.redact(conn, current=redacted_current, history=history)
        raw_in_use = bool(document.raw_path) and await source_admin.raw_copy_in_use(conn, document.raw_path)
    if document.raw_path and not raw_in_use:
        Path(document.raw_path).unlink(missing_ok=True)
    return Forgotten(document=document, profile_lines=lines, timeline_events=len(emptied))


async def export_sources(conn: aiosqlite.Connection, path: Path) -> Path:
    """Write every source and message as one JSON file at `path`."""
    sources = [asdict(d) for d in await document_store.list_documents(conn)]
    messages = [m async for m in source_admin.iter_messages(conn)]
    path.write_text(json.dumps({"sources": sources, "messages": messages}, ensure_ascii=False, indent=1),
                    encoding="utf-8")
    return path
