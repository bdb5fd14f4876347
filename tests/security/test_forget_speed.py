"""Forgetting a big source costs time in proportion to it, not to the square of it: every
foreign key that a delete cascades through (or checks) has an index on its child side."""

from __future__ import annotations

from pathlib import Path

from storage.db import open_database


async def _indexed_prefixes(conn, table: str) -> list[tuple[str, ...]]:
    prefixes = []
    for index in await conn.execute_fetchall(f"PRAGMA index_list('{table}')"):
        columns = [row[2] for row in await conn.execute_fetchall(f"PRAGMA index_info('{index[1]}')")]
        prefixes.append(tuple(columns))
    for column in await conn.execute_fetchall(f"PRAGMA table_info('{table}')"):
        if column[5] == 1 and column[2].upper() == "INTEGER":  # INTEGER PRIMARY KEY: the rowid itself
            prefixes.append((column[1],))
    return prefixes


async def test_every_foreign_key_has_an_index_on_its_child_columns(tmp_path: Path):
    async with open_database(tmp_path / "store.sqlite3") as conn:
        tables = [row[0] for row in await conn.execute_fetchall(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'")]
        unindexed = []
        for table in tables:
            keys: dict[int, list[str]] = {}
            for fk in await conn.execute_fetchall(f"PRAGMA foreign_key_list('{table}')"):
                keys.setdefault(fk[0], []).append(fk[3])
            prefixes = await _indexed_prefixes(conn, table)
            for columns in keys.values():
                if not any(p[:len(columns)] == tuple(columns) for p in prefixes):
                    unindexed.append(f"{table}({', '.join(columns)})")
    assert unindexed == []


async def test_deleting_a_chunk_looks_its_speakers_up_by_index(tmp_path: Path):
    async with open_database(tmp_path / "store.sqlite3") as conn:
        plan = await conn.execute_fetchall("EXPLAIN QUERY PLAN DELETE FROM chunk_speakers WHERE chunk_id = 1")
    assert any("USING" in row[3] and "INDEX" in row[3] for row in plan), plan
