"""Other programs' SQLite databases (iMessage's chat.db, WhatsApp's ChatStorage.sqlite), opened
read-only so that nothing of theirs is ever changed."""

from __future__ import annotations

from pathlib import Path

import sqlean

SQLITE_MAGIC = b"SQLite format 3\x00"


def read_only_uri(path: Path, *, immutable: bool = False) -> str:
    """The database as a read-only URI. A file URI made from the path itself, as `file:{path}`
    would be, breaks on a folder named with `#` or `?`."""
    return path.resolve().as_uri() + "?mode=ro" + ("&immutable=1" if immutable else "")


#: SQLite's result codes for a database another connection holds (sqlite3.h)
_SQLITE_BUSY, _SQLITE_LOCKED = 5, 6


def is_locked(error: sqlean.Error) -> bool:
    """Whether the database is held by another program (Messages, WhatsApp), told by SQLite's
    error code, not by the words of its message."""
    return getattr(error, "sqlite_errorcode", None) in (_SQLITE_BUSY, _SQLITE_LOCKED)


def open_read_only(path: Path, *, immutable: bool = False) -> tuple[sqlean.Connection, set[str]]:
    """A read-only connection and the database's tables, read at once so that a locked or
    unreadable file fails here; the connection is closed again when it does.

    The ingest reads documents and message batches in worker threads (asyncio.to_thread), one
    step at a time, so successive steps may run on different threads: SQLite in multi-thread mode
    allows that for a connection used by one thread at a time, which Python's default check
    refuses, hence check_same_thread=False. A database its app holds is reported after a second,
    not after SQLite's default five: the answer (quit the app, or import a copy) is the same."""
    conn = sqlean.connect(read_only_uri(path, immutable=immutable), uri=True, timeout=1.0,
                          check_same_thread=False)
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except BaseException:
        conn.close()
        raise
    return conn, tables


def table_names(path: Path) -> set[str] | None:
    """The tables of a SQLite file, or None when it cannot be read as one (for a sniff)."""
    try:
        conn, tables = open_read_only(path)
    except sqlean.DatabaseError:
        return None
    conn.close()
    return tables


def snapshot(path: Path, target: Path) -> None:
    """A consistent copy of a database another program is writing (its -wal included), made with
    SQLite's online backup from a read-only connection: the program is never blocked for long,
    and the copy holds every committed message even when the main file itself has not changed."""
    source = sqlean.connect(read_only_uri(path), uri=True)
    try:
        copy = sqlean.connect(str(target))
        try:
            source.backup(copy)
        finally:
            copy.close()
    finally:
        source.close()
