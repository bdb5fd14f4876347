"""A period filter's bounded start (ChunkFilter.where(bounded_start=True), migration 181): it
selects exactly the chunks the plain filter selects (checked against the filter applied by hand,
string for string as SQLite compares), through inserts and updates that lengthen the longest
span, chunks with an end and no start, times julianday() cannot read and spans that run
backwards; and a period's scan of chunks_period starts near the period."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from storage import chunks as chunk_store
from storage import documents as document_store
from storage.db import open_database


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _times(rng: np.random.Generator, n: int, *, longest_days: float) -> list[tuple[str | None, str | None]]:
    start = datetime(2015, 1, 1, tzinfo=timezone.utc)
    out: list[tuple[str | None, str | None]] = []
    for _ in range(n):
        t = start + timedelta(days=float(rng.uniform(0, 3650)))
        span = timedelta(days=float(rng.uniform(0, longest_days)) if rng.random() < 0.05 else float(rng.uniform(0, 0.2)))
        out.append((_iso(t), _iso(t + span)))
    return out


async def _insert(conn, doc: int, times: list[tuple[str | None, str | None]], *, tag: str) -> None:
    async with conn.transaction():
        await chunk_store.insert_chunks(conn, [chunk_store.ChunkRecord(
            document_id=doc, ordinal=i, char_start=i, char_end=i + 1, text=f"w {tag} {i}", time_start=s,
            time_end=e, speakers=(), identity=f"{tag}|{i}", text_hash=f"{tag}-{i}") for i, (s, e) in enumerate(times)])


async def _selected(conn, where: chunk_store.ChunkFilter, *, bounded: bool) -> list[int]:
    clause, params = where.where(bounded_start=bounded)
    async with conn.execute(f"SELECT c.id FROM chunks c WHERE {clause} ORDER BY c.id", params) as cur:
        return [r[0] for r in await cur.fetchall()]


async def _by_hand(conn, where: chunk_store.ChunkFilter) -> list[int]:
    async with conn.execute("SELECT id, time_start, time_end FROM chunks ORDER BY id") as cur:
        rows = await cur.fetchall()
    return [i for i, s, e in rows
            if (where.since is None or (e is not None and e >= where.since))
            and (where.until is None or (s is not None and s <= where.until))]


async def _agree(conn, rng: np.random.Generator) -> None:
    for _ in range(40):
        a = datetime(2014, 6, 1, tzinfo=timezone.utc) + timedelta(days=float(rng.uniform(0, 3900)))
        b = a + timedelta(days=float(rng.choice([0.5, 30, 400])))
        for where in (chunk_store.ChunkFilter(since=_iso(a), until=_iso(b)), chunk_store.ChunkFilter(since=_iso(a))):
            expected = await _by_hand(conn, where)
            assert await _selected(conn, where, bounded=True) == expected
            assert await _selected(conn, where, bounded=False) == expected


async def _longest(conn) -> float:
    async with conn.execute("SELECT CAST(value AS REAL) FROM meta WHERE key = ?", (chunk_store.LONGEST_SPAN_KEY,)) as cur:
        return (await cur.fetchone())[0]


async def test_the_bounded_start_selects_what_the_plain_filter_selects(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    async with open_database(tmp_path / "s.sqlite3") as conn:
        async with conn.transaction():
            doc = await document_store.insert_document(
                conn, kind="text", name="t.txt", identity="t", source_path=None, content_hash=None,
                byte_size=None, raw_path=None)
        assert await _longest(conn) == 0  # an empty store: no span yet
        await _insert(conn, doc, _times(rng, 600, longest_days=3), tag="a")
        assert 0 < await _longest(conn) <= 3
        await _agree(conn, rng)
        # a longer chunk later (a trip's notes over a year) and one whose start moves back
        await _insert(conn, doc, _times(rng, 300, longest_days=400), tag="b")
        assert 3 < await _longest(conn) <= 400
        async with conn.transaction():
            await conn.execute("UPDATE chunks SET time_start = '2013-01-01T00:00:00Z' WHERE id = 5")
        async with conn.execute("SELECT julianday(time_end) - julianday('2013-01-01T00:00:00Z') FROM chunks WHERE id = 5") as cur:
            moved = (await cur.fetchone())[0]
        assert moved > 400 and await _longest(conn) == pytest.approx(moved)  # (meta keeps it as text: 15 digits)
        await _agree(conn, rng)
        # backwards, no start, a time that julianday() cannot read: none is left out
        await _insert(conn, doc, [("2020-05-01T00:00:00Z", "2020-04-01T00:00:00Z"), (None, "2019-01-01T00:00:00Z"),
                                  ("sometime", "2018-03-03T00:00:00Z")], tag="c")
        await _agree(conn, rng)
        assert await _longest(conn) >= 1e7  # unbounded from now on


async def test_a_period_scans_its_part_of_the_index(tmp_path: Path) -> None:
    """The plan: chunks_period searched between two bounds, not from the oldest chunk."""
    async with open_database(tmp_path / "s.sqlite3") as conn:
        where = chunk_store.ChunkFilter(since="2020-01-01T00:00:00Z", until="2020-02-01T00:00:00Z")
        clause, params = where.where(bounded_start=True)
        async with conn.execute(f"EXPLAIN QUERY PLAN SELECT c.id FROM chunks c WHERE {clause}", params) as cur:
            plan = " ".join(str(r[-1]) for r in await cur.fetchall())
        assert "chunks_period (time_start>? AND time_start<?)" in plan
