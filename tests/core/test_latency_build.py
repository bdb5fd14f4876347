"""bench/latency.py build --resume: a build cut short between batches and then extended writes
the store one build would have written (every chunk, vector, posting and date), and refuses a
store that another build wrote."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bench import latency

TABLES = ("SELECT id, ordinal, char_start, char_end, text, time_start, time_end FROM chunks ORDER BY id",
          "SELECT chunk_id, vector FROM chunk_embeddings ORDER BY chunk_id",
          "SELECT chunk_count, text_length FROM documents",
          "SELECT * FROM keyword_postings ORDER BY 1",
          "SELECT * FROM vector_parts ORDER BY 1")


def _cut_short(db: Path) -> None:
    """What a build killed after its last whole batch leaves: chunks and vectors, no dates, the
    document unfinished."""
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE documents SET chunk_count = 0")
        conn.execute("UPDATE chunks SET time_start = NULL, time_end = NULL")


def test_a_resumed_build_equals_one_that_never_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(latency, "BATCH", 300)
    asyncio.run(latency.build(tmp_path / "whole", 900, chunk_chars=900))
    asyncio.run(latency.build(tmp_path / "cut", 600, chunk_chars=900))
    _cut_short(tmp_path / "cut" / "biographer.sqlite3")
    asyncio.run(latency.build(tmp_path / "cut", 900, chunk_chars=900, resume=True))
    whole = sqlite3.connect(tmp_path / "whole" / "biographer.sqlite3")
    resumed = sqlite3.connect(tmp_path / "cut" / "biographer.sqlite3")
    for sql in TABLES:
        assert resumed.execute(sql).fetchall() == whole.execute(sql).fetchall(), sql
    assert whole.execute("SELECT COUNT(*) FROM chunks WHERE time_start IS NOT NULL").fetchone() == (900,)


def test_resume_refuses_a_store_built_otherwise(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(latency, "BATCH", 300)
    asyncio.run(latency.build(tmp_path / "s", 300, chunk_chars=560))
    _cut_short(tmp_path / "s" / "biographer.sqlite3")
    with pytest.raises(SystemExit, match="not what this build draws"):
        asyncio.run(latency.build(tmp_path / "s", 600, chunk_chars=900, resume=True))
    with pytest.raises(SystemExit, match="no synthetic build"):
        asyncio.run(latency.build(tmp_path / "empty", 600, chunk_chars=900, resume=True))
