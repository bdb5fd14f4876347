"""Backups of the store and restores from them.

A backup is one folder, `DATA_DIR/backups/biographer-YYYYmmdd-HHMMSS/`, holding a consistent copy
of the store (SQLite's online backup API, safe while the store is in use) and `raw/`, the kept
copies of imported files its sources refer to (a photo waiting for a vision model lives only
there). Raw copies are named by content and never change, so they are hard links where the
file system allows: a backup costs the space of the database alone. A backup is built under a
`.part` name and renamed when complete; a killed one leaves a `.part` that the next backup
removes. Older versions wrote single `biographer-*.sqlite3` files: they are listed, pruned and
restorable too.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import sqlean

from core.errors import UserFacingError
from storage import backup_manifest as manifests
from storage import encryption
from storage.db import Store, connect, database_errors, store_files
from storage.encryption import StoreKey
from storage.keyword import terms as keyword_terms
from storage.permissions import private_dir, private_file

PREFIX = "biographer-"
KEPT_ASIDE = "before-restore"  # the label of the store kept aside by a restore
PART = ".part"
OLD_SUFFIX = ".sqlite3"  # single-file backups of older versions
DATABASE = "biographer.sqlite3"
RAW = "raw"
_LOCK = ".lock"

#: the key for the store or backup in a folder (its key file's salt, the owner's passphrase);
#: None where the folder holds no key file, i.e. nothing encrypted
KeyFor = Callable[[Path], StoreKey | None]


def no_keys(folder: Path) -> None:
    return None


@dataclass(frozen=True)
class Backup:
    path: Path  # the backup's folder, or an older version's single file

    @property
    def kept_aside(self) -> bool:
        """Whether this is the store as it was before a restore, copied byte for byte (it may be
        damaged, so it is never read through SQLite and has no manifest)."""
        return self.path.is_dir() and f"-{KEPT_ASIDE}" in self.path.name

    @property
    def database(self) -> Path:
        return self.path / DATABASE if self.path.is_dir() else self.path

    @property
    def raw_dir(self) -> Path | None:
        return self.path / RAW if self.path.is_dir() else None


class StoreInUse(UserFacingError):
    """Another process has the store open."""


def list_backups(directory: Path) -> list[Backup]:
    """Complete backups, oldest first (their names start with the time they were taken)."""
    if not directory.is_dir():
        return []
    found = [p for p in directory.iterdir() if p.name.startswith(PREFIX) and not p.name.endswith(PART)
             and (p.is_dir() and (p / DATABASE).exists() or p.name.endswith(OLD_SUFFIX))]
    return [Backup(p) for p in sorted(found, key=lambda p: p.name.removesuffix(OLD_SUFFIX))]


@asynccontextmanager
async def backups_locked(directory: Path) -> AsyncIterator[None]:
    """One writer of the backups folder at a time, across processes (the bot's nightly backup, a
    `biographer backup` or `forget` on the command line), so none removes another's `.part`."""
    private_dir(directory)
    fd = os.open(private_file(directory / _LOCK), os.O_RDWR)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                await asyncio.sleep(0.1)  # polled, so a cancelled wait leaves no thread holding it
        yield
    finally:
        os.close(fd)  # releases the lock


def remove_partial_backups(directory: Path) -> list[Path]:
    """Delete what killed backups left (call with the backups folder locked)."""
    partial = [p for p in directory.glob(f"{PREFIX}*{PART}")]
    for path in partial:
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink(missing_ok=True)
    return partial


def raw_names(db: sqlean.Connection) -> set[str]:
    """File names of the raw copies a store's sources refer to (paths may be relative to wherever
    the import ran, so only the content-derived name is trusted)."""
    rows = db.execute("SELECT DISTINCT raw_path FROM documents WHERE raw_path IS NOT NULL").fetchall()
    return {Path(row[0]).name for row in rows}


def link_or_copy(source: Path, target: Path) -> None:
    """A hard link where the file system allows (raw copies never change in place), else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, private_file(target))


def _copy_raw(names: set[str], source_dir: Path | None, target_dir: Path) -> list[str]:
    """Link the named raw copies from `source_dir` into `target_dir`; returns the names missing."""
    private_dir(target_dir)
    missing = []
    for name in sorted(names):
        source = source_dir / name if source_dir else None
        if source is None or not source.is_file():
            missing.append(name)
        elif not (target_dir / name).exists():
            link_or_copy(source, target_dir / name)
    return missing


def _new_folder(directory: Path, stamp: datetime, label: str) -> Path:
    name = f"{PREFIX}{stamp.strftime('%Y%m%d-%H%M%S')}{'-' + label if label else ''}"
    target, n = directory / name, 1
    while target.exists() or target.with_name(target.name + PART).exists():
        n += 1
        target = directory / f"{name}-{n}"
    return target


async def backup_database(conn: Store, directory: Path, *, raw_dir: Path,
                          stamp: datetime, keep: int) -> Path:
    """Back the store up into a new folder under `directory` (safe while it is in use), with the
    raw copies its sources refer to; delete all but the newest `keep`. Returns the folder."""
    async with backups_locked(directory):
        await asyncio.to_thread(remove_partial_backups, directory)
        target = _new_folder(directory, stamp, "")
        partial = private_dir(target.with_name(target.name + PART))
        database = private_file(partial / DATABASE)
        destination = await asyncio.to_thread(connect, database, key=conn.key, check_same_thread=False)
        try:
            # between transactions: the backup reads through this connection, which would
            # otherwise copy another task's uncommitted writes
            async with conn.write_lock:
                await conn.backup(destination)
            names = await asyncio.to_thread(raw_names, destination)
            content = await asyncio.to_thread(manifests.describe, destination)
        finally:
            await asyncio.to_thread(destination.close)
        await asyncio.to_thread(_copy_raw, names, raw_dir, partial / RAW)
        if conn.key is not None:  # the backup opens with the same passphrase, wherever it is copied
            shutil.copyfile(conn.path.parent / encryption.KEY_FILE, private_file(partial / encryption.KEY_FILE))
        await asyncio.to_thread(manifests.write_manifest, partial, database=database, raw_dir=partial / RAW,
                                content=content)
        partial.rename(target)
        await asyncio.to_thread(prune_backups, directory, keep=keep)
    return target


def prune_backups(directory: Path, *, keep: int) -> list[Path]:
    """Delete the oldest backups beyond `keep`; returns what was deleted."""
    backups = list_backups(directory)
    doomed = backups[:-keep] if keep > 0 else backups
    for backup in doomed:
        shutil.rmtree(backup.path) if backup.path.is_dir() else backup.path.unlink(missing_ok=True)
    return [b.path for b in doomed]


# ---------------------------------------------------------------- restore

@dataclass(frozen=True)
class Restored:
    backup: Path
    documents: int
    kept_aside: Path | None  # the store as it was before, itself a backup now
    raw_missing: list[str]  # raw copies the backup's sources name but it does not hold
    verified: bool  # checked against a manifest (False: an older version's backup, which has none)
    from_kept_aside: bool = False  # the backup was the store kept aside by an earlier restore


def find_backup(value: str, directory: Path) -> Backup:
    """A backup given by path, or by its name in the backups folder."""
    path = Path(value).expanduser()
    if not path.exists() and (directory / value).exists():
        path = directory / value
    if path.is_file() and path.name == DATABASE and path.parent.name.startswith(PREFIX):
        path = path.parent  # the database inside a backup folder: take the folder, raw/ included
    backup = Backup(path)
    if not backup.database.is_file():
        raise UserFacingError(f"no backup at {path}",
                              hint=f"give a folder from {directory} (`biographer backup --list`) or its path")
    return backup


@dataclass(frozen=True)
class Verified:
    backup: Backup
    problems: list[str]  # empty: the backup is what its manifest says
    has_manifest: bool  # False: taken by an older version; only the file and the index are checked


def verify_backup(backup: Backup, *, key_for: KeyFor = no_keys, check_index: bool = True) -> Verified:
    """Check a backup against its manifest (digests of its files, schema version, counts), its
    database's own structure, and (`check_index`) its keyword index against its passages' text.
    The digests need no key; what is inside an encrypted backup does."""
    manifest = manifests.read_manifest(backup.path) if backup.path.is_dir() else None
    problems = []
    if manifest is not None:
        problems += manifests.file_differences(manifest, database=backup.database,
                                               raw_dir=backup.raw_dir or backup.path)
    try:
        db = _read_only(backup.database, key=key_for(backup.path) if backup.path.is_dir() else None)
        try:
            structure = db.execute("PRAGMA quick_check").fetchall()
            if structure == [("ok",)]:
                if manifest is not None:
                    problems += manifests.content_differences(manifest, db)
                problems += _index_problems(db) if check_index else []
            else:
                problems.append(f"the database is damaged ({structure[0][0]})")
        finally:
            db.close()
    except database_errors() as error:
        problems.append(f"the database cannot be read ({error})")
    return Verified(backup=backup, problems=problems, has_manifest=manifest is not None)


def _index_problems(db: sqlean.Connection, *, writable: bool = False) -> list[str]:
    db.execute("PRAGMA temp_store=MEMORY")  # the rebuilt index holds the passages' words: never on disk
    keyword_terms.register(db)
    return manifests.index_differences(db, writable=writable)


class BackupDoesNotMatch(UserFacingError):
    """A backup that differs from its manifest, or whose keyword index and text disagree."""


def _refuse_unless_sound(verified: Verified) -> None:
    if verified.problems:
        raise BackupDoesNotMatch(f"{verified.backup.path} does not match what was backed up: "
                                 + "; ".join(verified.problems),
                                 hint="pick another one: `biographer backup --verify` checks them all")


def _check_restored(part: Path, manifest: dict | None, *, key: StoreKey | None) -> list[str]:
    """The store as restored (not in place yet) against the manifest, and its keyword index."""
    db = connect(part, key=key)
    try:
        problems = manifests.content_differences(manifest, db) if manifest is not None else []
        return problems + _index_problems(db, writable=True)
    finally:
        db.close()


def matches_manifest(backup: Backup) -> bool:
    """Whether the backup's files are byte for byte what its manifest says (False without one)."""
    manifest = manifests.read_manifest(backup.path) if backup.path.is_dir() else None
    return manifest is not None and not manifests.file_differences(
        manifest, database=backup.database, raw_dir=backup.path / RAW)


def refresh_manifest(backup: Backup, *, key: StoreKey | None) -> None:
    """Describe a backup again after it was changed on purpose (a source forgotten in it)."""
    if not backup.path.is_dir():
        return
    db = _read_only(backup.database, key=key)
    try:
        content = manifests.describe(db)
    finally:
        db.close()
    manifests.write_manifest(backup.path, database=backup.database, raw_dir=backup.path / RAW, content=content)


@contextmanager
def _store_to_yourself(database: Path, *, key: StoreKey | None) -> Iterator[None]:
    """Hold the store so that no other process can open it meanwhile; refuse when one has it open
    (a running bot, an import). A store too damaged to open cannot be in use and is taken as is."""
    if not database.exists():
        yield
        return
    try:
        db = connect(database, key=key, isolation_level=None, timeout=0)
    except encryption.WrongStoreKey:
        yield  # not openable with the store's key file: damaged, or swapped by hand; nothing runs on it
        return
    try:
        db.execute("PRAGMA locking_mode=EXCLUSIVE")
        try:
            db.execute("BEGIN EXCLUSIVE")
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            db.execute("COMMIT")
        except database_errors() as error:
            code = getattr(error, "sqlite_errorcode", None)
            if code in (sqlean.SQLITE_BUSY, sqlean.SQLITE_LOCKED):
                raise StoreInUse(f"the store at {database} is in use by another process",
                                 hint="stop `biographer run` (and any import) first, then restore") from None
            if code not in (sqlean.SQLITE_NOTADB, sqlean.SQLITE_CORRUPT):
                raise
            # not a database any more: nothing can be using it
        yield
    finally:
        db.close()


def restore_database(backup: Backup, database: Path, *, raw_dir: Path, backup_dir: Path,
                     stamp: datetime, key_for: KeyFor = no_keys) -> Restored:
    """Replace the store at `database` (and its raw copies) with `backup`'s. The store as it was,
    damaged or not, is first kept aside in `backup_dir` as a backup of its own. Refuses a backup
    that does not match its manifest, and a copy whose index or counts come out different."""
    verified = verify_backup(backup, key_for=key_for, check_index=False)  # checked on the restored copy below
    _refuse_unless_sound(verified)
    key = key_for(backup.path) if backup.path.is_dir() else None
    private_dir(database.parent)
    with _store_to_yourself(database, key=key_for(database.parent)):
        part = database.with_name(database.name + PART)
        part.unlink(missing_ok=True)  # from a restore killed half-way
        source = _read_only(backup.database, key=key)
        target = connect(private_file(part), key=key)
        try:
            source.backup(target)
            names = raw_names(target)
            documents = manifests.counts(target).sources
        finally:
            target.close()
            source.close()
        problems = _check_restored(part, manifests.read_manifest(backup.path) if verified.has_manifest else None,
                                   key=key)
        if problems:
            part.unlink()
            _refuse_unless_sound(Verified(backup=backup, problems=problems, has_manifest=verified.has_manifest))
        kept_aside = _keep_aside(database, raw_dir, backup_dir, stamp) if database.exists() else None
        missing = _copy_raw(names, backup.raw_dir, raw_dir)
        for stale in raw_dir.iterdir():
            if stale.is_file() and stale.name not in names:
                stale.unlink()  # the store that used them is kept aside, with its raw copies
        for path in store_files(database)[1:]:
            path.unlink(missing_ok=True)  # an old WAL beside the new store would be replayed into it
        _take_key_file(backup.path if key else None, database.parent)
        part.replace(database)
    return Restored(backup=backup.path, documents=documents, kept_aside=kept_aside, raw_missing=missing,
                    verified=verified.has_manifest, from_kept_aside=backup.kept_aside)


def _read_only(database: Path, *, key: StoreKey | None = None) -> sqlean.Connection:
    """A backup opened without writing anything beside it (no -wal or -shm files appear)."""
    return connect(f"{database.resolve().as_uri()}?mode=ro&immutable=1", key=key, uri=True)


def _take_key_file(source: Path | None, data_dir: Path) -> None:
    """The restored store's key file in place of the one there (none: the backup is in the clear)."""
    if source is None:
        (data_dir / encryption.KEY_FILE).unlink(missing_ok=True)
    else:
        shutil.copyfile(source / encryption.KEY_FILE, private_file(data_dir / "encryption.json.part"))
        (data_dir / "encryption.json.part").replace(data_dir / encryption.KEY_FILE)


def _keep_aside(database: Path, raw_dir: Path, backup_dir: Path, stamp: datetime) -> Path:
    """Copy the store's files byte for byte (it is held, so they are consistent; a damaged store
    cannot be read through SQLite) with its raw copies into a new backup folder."""
    with _locked_sync(backup_dir):
        target = _new_folder(backup_dir, stamp, KEPT_ASIDE)
        partial = private_dir(target.with_name(target.name + PART))
        for path in store_files(database):
            if path.exists() and not path.name.endswith("-shm"):
                shutil.copyfile(path, private_file(partial / path.name.replace(database.name, DATABASE)))
        if (database.parent / encryption.KEY_FILE).is_file():
            shutil.copyfile(database.parent / encryption.KEY_FILE, private_file(partial / encryption.KEY_FILE))
        present = {p.name for p in raw_dir.iterdir() if p.is_file()} if raw_dir.is_dir() else set()
        _copy_raw(present, raw_dir, partial / RAW)
        partial.rename(target)
    return target


@contextmanager
def _locked_sync(directory: Path) -> Iterator[None]:
    private_dir(directory)
    fd = os.open(private_file(directory / _LOCK), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
