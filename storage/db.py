"""The connection: aiosqlite over sqlean.py (SQLite with extension loading), sqlite-vec loaded,
WAL journal, foreign keys on, migrations applied.

Why sqlean.py: many Pythons (pyenv, some macOS builds) ship a `sqlite3` module that cannot load
extensions, so sqlite-vec would not load through it. sqlean.py is a drop-in DB-API module with a
current SQLite (FTS5 included) and extension loading enabled, the same on every platform.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite
import sqlean
import sqlite_vec

from storage.migrations import apply_migrations


def _connect_sync(path: Path) -> sqlean.Connection:
    conn = sqlean.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)
    conn.row_factory = sqlean.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=10000")
    conn.execute("PRAGMA temp_store=MEMORY")
    # a bounded page cache (about 64 MB): memory stays flat however big the store grows
    conn.execute("PRAGMA cache_size=-65536")
    return conn


@asynccontextmanager
async def open_database(path: Path) -> AsyncIterator[aiosqlite.Connection]:
    """Open (creating if needed) the store at `path`, migrated to the current schema."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = aiosqlite.Connection(lambda: _connect_sync(path), iter_chunk_size=256)
    await conn
    try:
        await apply_migrations(conn)
        yield conn
    finally:
        await conn.close()


def write_lock(conn: aiosqlite.Connection) -> asyncio.Lock:
    """The lock that makes transactions on one connection take turns.

    The bot shares one connection between chat, imports and the scheduler; without it a second
    task's BEGIN would land inside the first task's open transaction and fail.
    """
    lock = getattr(conn, "_biographer_write_lock", None)
    if lock is None:
        lock = asyncio.Lock()
        setattr(conn, "_biographer_write_lock", lock)
    return lock


@asynccontextmanager
async def transaction(conn: aiosqlite.Connection) -> AsyncIterator[aiosqlite.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, one task at a time, rolled back on any error or cancellation."""
    async with write_lock(conn):
        await conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            await conn.execute("ROLLBACK")
            raise
        else:
            await conn.execute("COMMIT")


def open_reader(path: Path | str, *, cache_mb: int) -> sqlean.Connection:
    """A blocking read-only connection of a search's own, used from worker threads: it sees
    only committed data and never queues behind the shared connection's writes."""
    conn = sqlean.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA query_only = 1")
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute(f"PRAGMA cache_size = -{cache_mb * 1024}")
    return conn
