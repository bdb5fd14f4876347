"""The store: one aiosqlite connection over sqlean.py (SQLite with extension loading), WAL journal,
foreign keys on, migrations applied, and the lock its transactions take turns on (`Store`).
An encrypted store is opened the same way over sqlcipher3 (SQLCipher 4, also a DB-API module with
FTS5 and extension loading) with its key (storage/encryption.py); `connect` picks the module.

Why sqlean.py: a drop-in DB-API module with a current SQLite, the same on every platform,
whatever SQLite the Python was built with (the keyword index's FTS5 `contentless_delete` needs
3.43 or later, newer than many Pythons carry), and extension loading, which many Pythons'
`sqlite3` (pyenv, some macOS builds) lack: the vector index's read connection loads sqlite-vec
for exact distances over the float vectors (storage/vectors/index.py), and a store from before
migration 70 holds a sqlite-vec table, which only the extension can drop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from pathlib import Path

import aiosqlite
import sqlean

from core.errors import StoreBusy  # the one error vocabulary, shared by every layer
from storage.keyword import terms as keyword_terms
from storage.migrations import apply_migrations
from storage.encryption import StoreKey, WrongStoreKey
from storage.permissions import private_file, secure_data_dir

log = logging.getLogger(__name__)

#: SQLite's own wait for a lock, per statement. Short, because the wait blocks the connection's
#: worker thread (and every read queued behind it); `transaction` keeps retrying BEGIN itself
BUSY_TIMEOUT_MS = 1_000
#: how long a write waits for another process (a CLI import while the bot runs) before giving up
DEFAULT_BUSY_DEADLINE = 15 * 60.0
_SQLITE_BUSY, _SQLITE_LOCKED = 5, 6

#: called with the seconds waited so far while another process holds the store's write lock;
#: front ends set it to show a note ("waiting for another import to finish")
busy_notice: ContextVar[Callable[[float], object] | None] = ContextVar("busy_notice", default=None)


def is_busy(error: BaseException) -> bool:
    return getattr(error, "sqlite_errorcode", None) in (_SQLITE_BUSY, _SQLITE_LOCKED)


def has_old_vector_table(conn: sqlean.Connection) -> bool:
    """Whether the store still holds the sqlite-vec virtual table of stores from before migration
    70, which only the extension can drop (migration 70 does). Other stores never load sqlite-vec,
    nor numpy, which it pulls in at import."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunk_vectors'").fetchone() is not None


def load_sqlite_vec(conn: sqlean.Connection) -> None:
    import sqlite_vec

    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)


def sqlcipher_module():  # noqa: ANN202 - the module, imported only by a store that has a key (~30 ms)
    import sqlcipher3

    return sqlcipher3


def connect(path: Path | str, *, key: StoreKey | None, **options: object) -> sqlean.Connection:
    """A DB-API connection to the store file at `path` (sqlean's, or sqlcipher3's keyed with `key`),
    options as `sqlite3.connect` takes them. A key that does not open the file raises WrongStoreKey."""
    if key is None:
        return sqlean.connect(str(path), **options)
    module = sqlcipher_module()
    conn = module.connect(str(path), **options)
    try:
        conn.execute("PRAGMA cipher_log_level = NONE")  # SQLCipher would print a wrong key's errors
        conn.execute(f"PRAGMA key = {key.pragma_value()}")
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except module.DatabaseError as error:
        conn.close()
        if getattr(error, "sqlite_errorcode", None) != module.SQLITE_NOTADB:
            raise
        raise WrongStoreKey(f"{Path(str(path).split('?')[0]).name} cannot be opened with this key",
                            hint="it was encrypted with another passphrase, or it is not an encrypted store") from None
    return conn


def database_errors() -> tuple[type[Exception], ...]:
    """What a store that cannot be read raises, through either module."""
    import sys

    cipher = sys.modules.get("sqlcipher3")
    return (sqlean.DatabaseError, cipher.DatabaseError) if cipher else (sqlean.DatabaseError,)


def _connect_sync(path: Path, key: StoreKey | None) -> sqlean.Connection:
    conn = connect(path, key=key, isolation_level=None, check_same_thread=False)
    if has_old_vector_table(conn):
        load_sqlite_vec(conn)
    conn.row_factory = sqlean.Row if key is None else sqlcipher_module().Row
    keyword_terms.register(conn)  # the keyword index's trigger calls it (storage/schema/languages.py)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    # deleted content is overwritten with zeros, so a forgotten source leaves no words in free
    # pages of the file (the keyword index is merged after a forget: storage/source_admin.py)
    conn.execute("PRAGMA secure_delete=ON")
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA temp_store=MEMORY")
    # a bounded page cache (about 64 MB): memory stays flat however big the store grows
    conn.execute("PRAGMA cache_size=-65536")
    return conn


def store_files(path: Path) -> list[Path]:
    """The store and the files SQLite keeps beside it."""
    return [path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal"))]


class Store(aiosqlite.Connection):
    """The store's one connection and what goes with it: the lock its transactions take turns on,
    and how long a write waits for another process's write lock.

    The bot shares one connection between chat, imports and the scheduler; without the lock a
    second task's BEGIN would land inside the first task's open transaction and fail. Repositories
    (the other modules of storage/) take a Store and read through it like any aiosqlite connection.
    """

    def __init__(self, path: Path, *, key: StoreKey | None = None,
                 busy_deadline: float = DEFAULT_BUSY_DEADLINE) -> None:
        super().__init__(lambda: _connect_sync(path, key), iter_chunk_size=256)
        self.path = path
        #: None for a store in the clear; else what opens it and seals the files that go with it
        self.key = key
        self.write_lock = asyncio.Lock()
        #: seconds a write waits for another process (a CLI import while the bot runs) before StoreBusy
        self.busy_deadline = busy_deadline

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Store]:
        """BEGIN IMMEDIATE ... COMMIT, one task at a time, rolled back on any error or
        cancellation. Waits for another process's write lock (see `_begin`) instead of failing
        after SQLite's own busy timeout."""
        async with self.write_lock:
            await self._begin()
            try:
                yield self
            except BaseException:
                await self.execute("ROLLBACK")
                raise
            else:
                await self.execute("COMMIT")

    async def _begin(self) -> None:
        """BEGIN IMMEDIATE, waiting with backoff while another process holds the write lock (SQLite's
        own busy timeout gives up after a second, which a long import in another process outlasts)."""
        started = time.monotonic()
        pause = 0.05
        while True:
            try:
                await self.execute("BEGIN IMMEDIATE")
                return
            except Exception as error:
                if not is_busy(error):
                    raise
                waited = time.monotonic() - started
                if waited >= self.busy_deadline:
                    raise StoreBusy(waited) from error
                log.info("the store is busy (another process is writing); waited %.0f s", waited)
                if (notice := busy_notice.get()) is not None:
                    notice(waited)
                await asyncio.sleep(min(pause, max(self.busy_deadline - waited, 0)))
                pause = min(pause * 2, 2.0)

    async def checkpoint(self, *, attempts: int = 50) -> bool:
        """Copy the write-ahead log into the store and empty it (TRUNCATE): the log still holds
        earlier versions of pages, deleted text included. False when it could not finish: another
        process's reader held it back, or a query of this connection stayed open through every
        attempt (the log then empties at a later checkpoint)."""
        for attempt in range(attempts):
            try:
                async with self.write_lock:
                    async with self.execute("PRAGMA wal_checkpoint(TRUNCATE)") as cur:
                        busy, _, _ = await cur.fetchone()
                return not busy
            except database_errors() as error:
                # another task's statement on this shared connection is still being read
                if getattr(error, "sqlite_errorcode", None) != _SQLITE_LOCKED or attempt == attempts - 1:
                    raise
                await asyncio.sleep(0.1)
        return False


@asynccontextmanager
async def open_database(path: Path, *, key: StoreKey | None = None, private_folders: Sequence[Path] = (),
                        busy_deadline: float = DEFAULT_BUSY_DEADLINE) -> AsyncIterator[Store]:
    """Open (creating if needed) the store at `path`, migrated to the current schema. Its folder
    and files are made owner-only, with `private_folders` (raw copies, backups) too."""
    secure_data_dir(path.parent, files=store_files(path), folders=private_folders)
    private_file(path)
    store = Store(path, key=key, busy_deadline=busy_deadline)
    await store
    try:
        await apply_migrations(store)
        yield store
    finally:
        await store.close()


async def database_path(conn: aiosqlite.Connection) -> str:
    """The file behind a connection ('' for an in-memory store)."""
    async with conn.execute("SELECT file FROM pragma_database_list WHERE name = 'main'") as cur:
        return (await cur.fetchone())[0] or ""


def open_reader(path: Path | str, *, cache_mb: int, key: StoreKey | None = None) -> sqlean.Connection:
    """A blocking read-only connection of a search's own, used from worker threads: it sees
    only committed data and never queues behind the shared connection's writes."""
    conn = connect(path, key=key, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA query_only = 1")
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute(f"PRAGMA cache_size = -{cache_mb * 1024}")
    return conn
