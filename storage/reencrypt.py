"""Turning a store's files from the clear into encrypted ones and back, or from one key to
another, each step safe to kill: every file is written beside the old one and renamed over it
when complete, and every step skips what a killed run already finished (a database that opens
with the new key, a file already sealed with it or already in the clear).

The database is copied through SQLCipher's `sqlcipher_export` (`ATTACH ... KEY`, then every table,
index, trigger and virtual table with its rows), from a connection that holds the store
exclusively, so no other process writes meanwhile.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import sqlean

from core.errors import UserFacingError
from storage import encryption
from storage.db import (connect, database_errors, has_old_vector_table, load_sqlite_vec, sqlcipher_module,
                        store_files)
from storage.encryption import StoreKey
from storage.keyword import terms as keyword_terms
from storage.permissions import private_file

_CONVERTING = ".converting"
_PLAIN_HEADER = b"SQLite format 3\x00"


def in_the_clear(database: Path) -> bool:
    with database.open("rb") as f:
        return f.read(len(_PLAIN_HEADER)) == _PLAIN_HEADER


def convert_database(database: Path, *, from_key: StoreKey | None, to_key: StoreKey | None) -> bool:
    """Rewrite the store at `database` under `to_key` (None: in the clear). False when a killed
    run had already finished it."""
    if not database.exists() or _opens_with(database, to_key):
        return False
    target = database.with_name(database.name + _CONVERTING)
    target.unlink(missing_ok=True)
    private_file(target)
    conn = _held(database, key=from_key)
    try:
        if has_old_vector_table(conn):
            load_sqlite_vec(conn)
        keyword_terms.register(conn)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("ATTACH DATABASE ? AS converted KEY ?",
                     (str(target), f"x'{to_key.database.hex()}'" if to_key else ""))
        conn.execute("SELECT sqlcipher_export('converted')")
        conn.execute("DETACH DATABASE converted")
        with target.open("rb+") as f:
            os.fsync(f.fileno())
        for path in store_files(database)[1:]:
            path.unlink(missing_ok=True)  # the old WAL would be replayed into the new file
        target.replace(database)
    finally:
        conn.close()
    return True


def refuse_if_in_use(database: Path, *, key: StoreKey | None) -> None:
    """Fail early, before anything is converted, while another process has the store open (a
    running bot would go on writing in the clear beside a half-converted store)."""
    _held(database, key=key).close()


def _held(database: Path, *, key: StoreKey | None) -> sqlean.Connection:
    """A sqlcipher3 connection (it alone has `sqlcipher_export`, in the clear too) holding the store
    for itself; refuses while another process has it open."""
    conn = sqlcipher_module().connect(str(database), isolation_level=None, timeout=0)
    try:
        conn.execute("PRAGMA cipher_log_level = NONE")
        if key is not None:
            conn.execute(f"PRAGMA key = {key.pragma_value()}")
        _hold(conn, database)
    except BaseException:
        conn.close()
        raise
    return conn


def _opens_with(database: Path, key: StoreKey | None) -> bool:
    if key is None:
        return in_the_clear(database)
    if in_the_clear(database):
        return False
    try:
        connect(database, key=key).close()
    except encryption.WrongStoreKey:
        return False
    return True


def _hold(conn: sqlean.Connection, database: Path) -> None:
    """Take the store for this connection alone; refuse while another process has it open."""
    module = sqlcipher_module()
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        conn.execute("COMMIT")
    except database_errors() as error:
        code = getattr(error, "sqlite_errorcode", None)
        if code in (module.SQLITE_BUSY, module.SQLITE_LOCKED):
            raise UserFacingError(f"the store at {database} is in use by another process",
                                  hint="stop `biographer run` (and any import) first, then try again") from None
        if code == module.SQLITE_NOTADB:
            raise encryption.WrongStoreKey(f"{database.name} cannot be opened with this key",
                                           hint="give the passphrase the store was encrypted with") from None
        raise


def convert_files(folder: Path, *, from_key: StoreKey | None, to_key: StoreKey | None,
                  pattern: str = "*") -> int:
    """Seal (or open, when `to_key` is None) every file in `folder` matching `pattern`; returns how
    many were rewritten. Files already in the wanted form are left as they are."""
    if not folder.is_dir():
        return 0
    return sum(convert_file(path, from_key=from_key, to_key=to_key) for path in sorted(folder.glob(pattern))
               if path.is_file() and not path.name.endswith(".part"))


def convert_file(path: Path, *, from_key: StoreKey | None, to_key: StoreKey | None) -> bool:
    """Seal `path`, open it, or seal it again under another key (a change of passphrase), in
    place; False when it is in the wanted form already."""
    if in_wanted_form(path, to_key):
        return False
    sealed = encryption.is_sealed(path)
    if to_key is not None and not sealed:
        encryption.seal_file(path, path, to_key.files)
    elif sealed and from_key is not None:
        if to_key is None:
            encryption.unseal_file(path, path, from_key.files)
        else:
            encryption.reseal_file(path, from_key.files, to_key.files)
    else:
        return False
    return True


def in_wanted_form(path: Path, to_key: StoreKey | None) -> bool:
    """In the clear when `to_key` is None, else sealed with it."""
    sealed = encryption.is_sealed(path)
    return not sealed if to_key is None else sealed and encryption.opens_with(path, to_key.files)


def convert_shared(folder: Path, shared: Path, *, from_key: StoreKey | None, to_key: StoreKey | None) -> None:
    """Convert a backup's kept copies (`folder`), which are hard links to the store's (`shared`):
    a copy the store already has converted is linked again from there, else it is converted here
    and the store's is linked to it, so the backups and the store go on sharing one file each."""
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.name.endswith(".part"):
            continue
        theirs = shared / path.name
        if theirs.is_file() and in_wanted_form(theirs, to_key):
            _link(theirs, path)
            continue
        convert_file(path, from_key=from_key, to_key=to_key)
        if theirs.is_file():
            _link(path, theirs)


def _link(source: Path, target: Path) -> None:
    """`target` replaced by a hard link to `source` (a copy where the file system has none)."""
    if target.exists() and os.path.samefile(source, target):
        return  # linked already (a rename of one link over another of the same file does nothing)
    partial = target.with_name(target.name + ".part")
    partial.unlink(missing_ok=True)
    try:
        os.link(source, partial)
    except OSError:
        shutil.copyfile(source, private_file(partial))
    partial.replace(target)
