"""The store works on Pythons whose sqlite3 cannot load extensions (pyenv's, here): FTS5 is built
into sqlean.py, and sqlite-vec (only needed to drop an older store's vector table) loads through it."""

import sqlite3

from storage.db import open_database


async def test_the_store_has_fts5_and_sqlite_vec_whatever_sqlite3_can_do(tmp_path):
    from storage.db import load_sqlite_vec  # what opening an older store does

    stdlib_can_load = hasattr(sqlite3.Connection, "enable_load_extension")
    async with open_database(tmp_path / "s.sqlite3") as conn:
        await conn._execute(load_sqlite_vec, conn._conn)
        async with conn.execute("SELECT vec_version()") as cur:
            assert (await cur.fetchone())[0].startswith("v0.1")
        await conn.execute("CREATE VIRTUAL TABLE f USING fts5(x)")
        async with conn.execute("PRAGMA journal_mode") as cur:
            assert (await cur.fetchone())[0] == "wal"
        async with conn.execute("PRAGMA foreign_keys") as cur:
            assert (await cur.fetchone())[0] == 1
        await conn.execute("CREATE VIRTUAL TABLE t USING vec0(e bit[8])")
        async with conn.execute("SELECT number FROM _migrations ORDER BY number") as cur:
            assert [r[0] for r in await cur.fetchall()][0] == 1
    # recorded so the test log shows which case this machine is (pyenv's CPython: False)
    print(f"stdlib sqlite3 can load extensions: {stdlib_can_load}")


async def test_migrations_apply_once(tmp_path):
    path = tmp_path / "s.sqlite3"
    async with open_database(path) as conn:
        async with conn.execute("SELECT COUNT(*) FROM _migrations") as cur:
            first = (await cur.fetchone())[0]
    async with open_database(path) as conn:
        async with conn.execute("SELECT COUNT(*) FROM _migrations") as cur:
            assert (await cur.fetchone())[0] == first
