"""The Store: transactions take turns on its one connection, roll back on error, wait for
another process's write lock up to its deadline, and checkpoint the write-ahead log."""

from __future__ import annotations

import asyncio

import pytest
import sqlean

from core.errors import StoreBusy
from storage.db import open_database
from storage.meta import get_meta, set_meta


async def test_a_failed_transaction_leaves_nothing_behind(tmp_path):
    async with open_database(tmp_path / "s.sqlite3") as store:
        with pytest.raises(RuntimeError):
            async with store.transaction():
                await set_meta(store, "half", "written")
                raise RuntimeError("the import broke halfway")
        assert await get_meta(store, "half") is None
        async with store.transaction():  # the lock was released: the next one goes through
            await set_meta(store, "whole", "written")
        assert await get_meta(store, "whole") == "written"


async def test_a_write_waits_for_another_process_then_gives_up_with_store_busy(tmp_path):
    path = tmp_path / "s.sqlite3"
    async with open_database(path, busy_deadline=0.6) as store:
        other = sqlean.connect(str(path), isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            loop = asyncio.get_running_loop()
            started = loop.time()
            with pytest.raises(StoreBusy):
                async with store.transaction():
                    pass
            assert loop.time() - started >= 0.6
        finally:
            other.execute("ROLLBACK")
            other.close()
        async with store.transaction():  # free again: it succeeds
            await set_meta(store, "after", "1")


async def test_a_write_that_outlasts_a_short_lock_succeeds(tmp_path):
    path = tmp_path / "s.sqlite3"
    async with open_database(path, busy_deadline=30) as store:
        other = sqlean.connect(str(path), isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")
        release = asyncio.get_running_loop().call_later(1.5, lambda: other.execute("ROLLBACK"))
        try:
            async with store.transaction():  # longer than SQLite's own 1 s busy timeout
                await set_meta(store, "waited", "yes")
        finally:
            release.cancel()
            other.close()
        assert await get_meta(store, "waited") == "yes"


async def test_checkpoint_empties_the_write_ahead_log(tmp_path):
    path = tmp_path / "s.sqlite3"
    async with open_database(path) as store:
        async with store.transaction():
            await set_meta(store, "k", "v" * 10_000)
        assert path.with_name(path.name + "-wal").stat().st_size > 0
        assert await store.checkpoint()
        assert path.with_name(path.name + "-wal").stat().st_size == 0


def test_migrations_are_one_sequence_after_the_numbers_already_in_the_field():
    """Applied numbers never change; every migration after them takes the next number."""
    from storage.migrations import MIGRATIONS, _load_schema_modules

    _load_schema_modules()
    in_the_field = [1, 10, 20, 30, 40, 60, 70, 100, 110, 111, 112, 120, 130, 140, 160, 170, 171, 172]
    numbers = sorted(MIGRATIONS)
    assert numbers[:len(in_the_field)] == in_the_field
    newer = numbers[len(in_the_field):]
    assert newer == list(range(in_the_field[-1] + 1, in_the_field[-1] + 1 + len(newer)))


async def _as_before_179(store) -> None:
    """Put messages.time back to NOT NULL and forget migration 179: a store from the field."""
    async with store.transaction():
        async with store.execute("SELECT sql FROM sqlite_schema WHERE name = 'messages'") as cur:
            (sql,) = await cur.fetchone()
        async with store.execute("PRAGMA schema_version") as cur:
            (version,) = await cur.fetchone()
        await store.execute("PRAGMA writable_schema = ON")
        await store.execute("UPDATE sqlite_schema SET sql = ? WHERE name = 'messages'",
                            (sql.replace("time TEXT,", "time TEXT NOT NULL,"),))
        await store.execute(f"PRAGMA schema_version = {version + 1}")
        await store.execute("PRAGMA writable_schema = OFF")
        await store.execute("DELETE FROM _migrations WHERE number = 179")


@pytest.mark.parametrize("encrypted", [False, True])
async def test_migration_179_lets_a_message_be_undated_and_keeps_every_row(tmp_path, encrypted):
    """An older store (time NOT NULL) with a message the ledger has read: after the migration
    the message, the ledger's row pointing at it and the indexes are all there, the store is
    sound, and a message without a time can be stored."""
    from storage.encryption import new_key_file

    key = new_key_file("pass phrase", state="encrypted")[1] if encrypted else None
    path = tmp_path / "s.sqlite3"
    row = ("whatsapp", "k", "Maya", "2024-03-05T21:07:00Z", "hi", 0, 2)
    async with open_database(path, key=key) as store:
        await _as_before_179(store)
        async with store.transaction():
            await store.execute("INSERT INTO documents (id, kind, name, identity, imported_at) "
                                "VALUES (1, 'whatsapp', 'chat', 'x', '2024-03-06T00:00:00Z')")
            await store.execute("INSERT INTO messages (id, document_id, platform, conversation_key, sender, time,"
                                " text, dedup_key, char_start, char_end) VALUES (7, 1, ?, ?, ?, ?, ?, 'a', ?, ?)", row)
            await store.execute("INSERT INTO ledger_read (message_id) VALUES (7)")
        with pytest.raises(Exception, match="NOT NULL"):
            async with store.transaction():
                await store.execute("INSERT INTO messages (document_id, platform, conversation_key, sender, text,"
                                    " dedup_key, char_start, char_end) VALUES (1, 'email', 'k', 'Pete', 't', 'b', 3, 4)")
    async with open_database(path, key=key) as store:
        async with store.transaction():
            await store.execute("INSERT INTO messages (document_id, platform, conversation_key, sender, time, text,"
                                " dedup_key, char_start, char_end) VALUES (1, 'email', 'k', 'Pete', NULL, 't', 'b', 3, 4)")
        async with store.execute("SELECT platform, conversation_key, sender, time, text, char_start, char_end"
                                 " FROM messages ORDER BY id") as cur:
            rows = [tuple(r) for r in await cur.fetchall()]
        async with store.execute("SELECT message_id FROM ledger_read") as cur:
            read = [r[0] for r in await cur.fetchall()]
        async with store.execute("PRAGMA integrity_check") as cur:
            check = [r[0] for r in await cur.fetchall()]
        async with store.execute("PRAGMA foreign_key_check") as cur:
            broken = await cur.fetchall()
        async with store.execute("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'messages'"
                                 " AND sql IS NOT NULL") as cur:
            indexes = {r[0] for r in await cur.fetchall()}
    assert rows == [row, ("email", "k", "Pete", None, "t", 3, 4)]
    assert read == [7] and check == ["ok"] and broken == []
    assert {"messages_document", "messages_conversation_time", "messages_activity"} <= indexes
