"""Whole sources as the owner sees them from a chat: list, forget (with everything derived), export."""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from core.errors import UserFacingError
from core.files import write_private
from core.types import CITATION_PATTERN, LOCATOR_PATTERN
from storage import documents as document_store
from storage import source_admin
from storage.db import Store, database_errors, open_database


#: one imported source as the owner sees it (numbered for /forget)
Source = document_store.DocumentRow


async def list_sources(conn: Store) -> list[Source]:
    return await document_store.list_documents(conn)


async def get_source(conn: Store, source_id: int) -> Source | None:
    return await document_store.get_document(conn, source_id)


async def find_sources_by_identity_prefix(conn: Store, prefix: str) -> list[Source]:
    return await document_store.find_by_identity_prefix(conn, prefix)


@dataclass(frozen=True)
class Forgotten:
    document: document_store.DocumentRow
    profile_lines: int  # bio.md lines removed because they rested on this source alone
    timeline_events: int  # events removed for the same reason
    backups: int = 0  # backups it was removed from
    backup_errors: tuple[str, ...] = ()  # backups it could not be removed from, and why


_CITATION = re.compile(rf"(\s*)({CITATION_PATTERN})")  # with the space before it, which goes with it
_LOCATOR = re.compile(LOCATOR_PATTERN)
# a .part in raw/ younger than this may be a copy another process is writing now
RAW_PART_GRACE_SECONDS = 3600


def without_source(text: str, document_id: int) -> tuple[str, int]:
    """`text` with every citation of the document gone: a line that cited only it goes whole
    (what it says came from there), other lines lose just those citations (from a bracket of
    several, only its own). Returns the text and the number of lines removed."""
    prefix = f"doc{document_id}:"
    kept: list[str] = []
    removed = 0
    for line in text.split("\n"):
        cited = [loc for _, bracket in _CITATION.findall(line) for loc in _LOCATOR.findall(bracket)]
        ours = [loc for loc in cited if loc.startswith(prefix)]
        if not ours:
            kept.append(line)
        elif len(ours) == len(cited):
            removed += 1
        else:
            kept.append(_CITATION.sub(lambda m: _without(m, prefix), line))
    return "\n".join(kept), removed


def _without(citation: re.Match, prefix: str) -> str:
    """A citation less the locators of one document (gone with its space when none is left)."""
    space, bracket = citation.groups()
    left = [loc for loc in _LOCATOR.findall(bracket) if not loc.startswith(prefix)]
    return f"{space}[{', '.join(left)}]" if left else ""


async def forget_source(conn: Store, document_id: int, *, raw_dir: Path | None = None,
                        backup_dir: Path | None = None) -> Forgotten:
    """Delete one source and everything taken from it: its messages, chunks, vectors and raw
    copy, the timeline events and bio.md lines resting on it alone (in bio.md's history too),
    people known only from it, and its citations elsewhere; then empty the write-ahead log, so
    its words are in no byte of the store. With `raw_dir`, raw copies no source refers to are
    cleared too; with `backup_dir`, the source is removed from every backup as well. Raises with
    a hint when there is no such source."""
    document = await document_store.get_document(conn, document_id)
    if document is None:
        raise UserFacingError(f"there is no source #{document_id}", hint="/sources lists them with their numbers")
    async with conn.transaction():
        lines, events = await _forget_in(conn, document)
        in_use = await source_admin.raw_copy_names(conn)
    await conn.checkpoint()
    if document.raw_path and Path(document.raw_path).name not in in_use:
        kept = raw_dir / Path(document.raw_path).name if raw_dir else Path(document.raw_path)
        kept.unlink(missing_ok=True)
    if raw_dir:
        await clean_raw_copies(conn, raw_dir)
    backups, errors = await _forget_in_backups(backup_dir, document.identity, conn=conn) if backup_dir else (0, ())
    return Forgotten(document=document, profile_lines=lines, timeline_events=events, backups=backups,
                     backup_errors=errors)


async def _forget_in(conn: Store, document: document_store.DocumentRow) -> tuple[int, int]:
    """The deletions of a forget, inside the caller's transaction; returns (bio.md lines removed,
    timeline events removed)."""
    from storage import profile as profile_store  # bio.md and its history: only a forget rewrites them here

    prefix = f"doc{document.id}:"
    await source_admin.delete_source(conn, document.id)
    emptied = []
    for table in source_admin.CITING_TABLES:
        for row in await source_admin.citing_rows(conn, table):
            left = [loc for loc in row.locators if not loc.startswith(prefix)]
            if len(left) == len(row.locators):
                continue
            if not left and table == "timeline_events":
                emptied.append(row.id)
            else:
                await source_admin.set_locators(conn, table, row.id, left)
    await source_admin.delete_timeline_events(conn, emptied)
    current = await profile_store.get_profile(conn)
    redacted_current, lines = without_source(current, document.id) if current else (None, 0)
    history = [
        replace(row, old_text=without_source(row.old_text, document.id)[0],
                new_text=without_source(row.new_text, document.id)[0],
                profile_before=without_source(row.profile_before, document.id)[0],
                profile_after=without_source(row.profile_after, document.id)[0],
                locators=[loc for loc in row.locators if not loc.startswith(prefix)])
        for row in await profile_store.all_history(conn)
    ]
    await profile_store.redact(conn, current=redacted_current, history=history)
    await source_admin.delete_people_without_messages(conn)
    return lines, len(emptied)


async def _forget_in_backups(backup_dir: Path, identity: str, *, conn: Store) -> tuple[int, tuple[str, ...]]:
    """Remove the source (found by its identity: ids differ between stores) from every backup,
    with its raw copy there. Returns how many backups held it, and a line per backup that could
    not be rewritten. Backups are opened with the store's key (`conn`'s)."""
    from storage import backup as backup_store  # only a forget reads the backups (every open cleans raw/)

    changed, errors = 0, []
    unreadable = (*database_errors(), OSError)
    async with backup_store.backups_locked(backup_dir):
        for backup in backup_store.list_backups(backup_dir):
            try:
                was_sound = await asyncio.to_thread(backup_store.matches_manifest, backup)
                async with open_database(backup.database, key=conn.key) as db:
                    found = await document_store.find_by_identity(db, identity)
                    if found is None:
                        continue
                    document = await document_store.get_document(db, found)
                    async with db.transaction():
                        await _forget_in(db, document)
                        in_use = await source_admin.raw_copy_names(db)
                    await db.checkpoint()
            except unreadable as error:
                errors.append(f"{backup.path.name}: {error}")
                continue
            if backup.raw_dir and document.raw_path and Path(document.raw_path).name not in in_use:
                (backup.raw_dir / Path(document.raw_path).name).unlink(missing_ok=True)
            if was_sound:  # a backup that no longer matched stays one that says so
                await asyncio.to_thread(backup_store.refresh_manifest, backup, key=conn.key)
            changed += 1
    return changed, tuple(errors)


async def clean_raw_copies(conn: Store, raw_dir: Path) -> int:
    """Delete the raw copies no source refers to (a failed import of an older version, a copy
    killed half-way); returns how many. A copy is made only after its source is saved, so a
    complete file nobody refers to is an orphan; a fresh .part may still be being written."""
    if not raw_dir.is_dir():
        return 0
    in_use = await source_admin.raw_copy_names(conn)
    now, removed = time.time(), 0
    for path in raw_dir.iterdir():
        if not path.is_file() or path.name in in_use:
            continue
        if path.name.endswith(".part") and now - path.stat().st_mtime < RAW_PART_GRACE_SECONDS:
            continue
        path.unlink(missing_ok=True)
        removed += 1
    return removed


async def export_sources(conn: Store, path: Path) -> Path:
    """Write every source and message as one JSON file at `path`."""
    sources = [asdict(d) for d in await document_store.list_documents(conn)]
    messages = [m async for m in source_admin.iter_messages(conn)]
    write_private(path, json.dumps({"sources": sources, "messages": messages}, ensure_ascii=False, indent=1))
    return path
