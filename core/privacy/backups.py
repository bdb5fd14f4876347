"""Backups as the owner sees them: take one, restore one, list them. The files and SQLite's
backup API are storage/backup.py's; this is what the front ends and the scheduler call."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from storage import backup as backup_store
from storage.backup import KeyFor, Restored, Verified, no_keys

if TYPE_CHECKING:
    from storage.db import Store


async def take_backup(conn: Store, *, backup_dir: Path, raw_dir: Path, keep: int,
                      now: datetime | None = None) -> Path:
    """A backup of the live store with its raw copies, keeping the newest `keep`."""
    return await backup_store.backup_database(conn, backup_dir, raw_dir=raw_dir,
                                              stamp=now or datetime.now(), keep=keep)


def backup_names(backup_dir: Path) -> list[Path]:
    """Every complete backup, oldest first."""
    return [b.path for b in backup_store.list_backups(backup_dir)]


async def restore_backup(value: str, *, database: Path, raw_dir: Path, backup_dir: Path,
                         now: datetime | None = None, key_for: KeyFor = no_keys) -> Restored:
    """Replace the store with the backup named or found at `value`, keeping the store as it was
    as a backup of its own. Raises with a hint when `value` is no usable backup or another
    process has the store open. Call it with the store closed."""
    backup = backup_store.find_backup(value, backup_dir)
    return await asyncio.to_thread(backup_store.restore_database, backup, database, raw_dir=raw_dir,
                                   backup_dir=backup_dir, stamp=now or datetime.now(), key_for=key_for)


async def verify_backups(value: str | None, *, backup_dir: Path, key_for: KeyFor = no_keys) -> list[Verified]:
    """Check the backup named or found at `value` (all of them when None) against its manifest
    and its keyword index against its passages."""
    backups = [backup_store.find_backup(value, backup_dir)] if value else backup_store.list_backups(backup_dir)
    return [await asyncio.to_thread(backup_store.verify_backup, backup, key_for=key_for) for backup in backups]
