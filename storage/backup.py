"""A consistent copy of the live store through SQLite's online backup API, keeping the last N."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

import aiosqlite
import sqlean

from storage.db import write_lock
from storage.permissions import private_dir, private_file

PREFIX = "biographer-"
SUFFIX = ".sqlite3"


async def backup_database(conn: aiosqlite.Connection, directory: Path, *, stamp: datetime,
                          keep: int) -> Path:
    """Copy the store into `directory` (safe while it is in use) and delete all but the newest `keep`."""
    private_dir(directory)
    target = directory / f"{PREFIX}{stamp.strftime('%Y%m%d-%H%M%S')}{SUFFIX}"
    partial = private_file(target.with_suffix(".part"))
    destination = await asyncio.to_thread(sqlean.connect, str(partial), check_same_thread=False)
    try:
        # between transactions: the backup reads through this connection, which would otherwise
        # copy another task's uncommitted writes
        async with write_lock(conn):
            await conn.backup(destination)
    finally:
        await asyncio.to_thread(destination.close)
    partial.replace(target)
    await asyncio.to_thread(prune_backups, directory, keep=keep)
    return target


def prune_backups(directory: Path, *, keep: int) -> list[Path]:
    """Delete the oldest backups beyond `keep`; returns what was deleted."""
    backups = sorted(directory.glob(f"{PREFIX}*{SUFFIX}"))
    doomed = backups[:-keep] if keep > 0 else backups
    for path in doomed:
        path.unlink(missing_ok=True)
    return doomed
