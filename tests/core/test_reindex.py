"""A full reindex replaces vectors batch by batch: interrupted or killed half-way, semantic search
still finds everything (same model) or what the new model has embedded (another model), and a
rerun resumes where it stopped."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.memory.indexer import REINDEX_KEY
from storage.meta import get_meta
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder, OtherHashEmbedder

ROOT = Path(__file__).resolve().parents[2]
TOPICS = ["lighthouse", "violin", "orchard", "glacier", "saffron", "tram", "beekeeping", "kayak",
          "observatory", "pottery", "marathon", "lantern"]


def _journal(path: Path) -> Path:
    """One prose chunk per topic (each paragraph close to the 900-character chunk size)."""
    filler = "and then the day went on as days do, nothing else of note to say about it. "
    paragraphs = [f"The {t} story. " + f"I thought about the {t} again, " * 4 + filler * 8 for t in TOPICS]
    path.write_text("\n\n".join(paragraphs), encoding="utf-8")
    return path


class _FailsAfter(HashEmbedder):
    """The same model, interrupted after some batches (as Ctrl-C or a crash would)."""

    def __init__(self, calls: int) -> None:
        super().__init__()
        self.left = calls

    def embed(self, texts, *, query=False):
        if self.left == 0:
            raise KeyboardInterrupt
        self.left -= 1
        return super().embed(texts, query=query)


class _OtherFailsAfter(_FailsAfter):
    name = OtherHashEmbedder.name


async def _found(memory, topic: str) -> bool:
    hits = await memory.search(f"{topic} again", mode="semantic", limit=3)
    return any(topic in hit.text for hit in hits)


async def test_an_interrupted_reindex_keeps_semantic_search_and_a_rerun_resumes(tmp_path: Path):
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([_journal(tmp_path / "journal.txt")])
        chunks = (await memory.stats())["chunks"]
        assert chunks >= len(TOPICS)
        memory.indexer.batch_size = 2
        memory.indexer.embedder = _FailsAfter(calls=2)
        with pytest.raises(KeyboardInterrupt):
            await memory.reindex()
        assert 0 < (await memory.stats())["chunks_pending_index"] < chunks
        assert all([await _found(memory, t) for t in TOPICS])  # old vectors until replaced

        memory.indexer.embedder = counting = HashEmbedder()
        assert await memory.reindex() == chunks - 4  # resumed, not restarted
        assert 0 < sum(len(c) for c in counting.calls) <= chunks - 4  # identical texts once
        assert (await memory.stats())["chunks_pending_index"] == 0
        assert await get_meta(memory.conn, REINDEX_KEY) is None
        assert all([await _found(memory, t) for t in TOPICS])
        assert await memory.reindex() == chunks  # a new reindex does it all again


async def test_a_reindex_to_another_model_searches_only_its_own_vectors_until_done(tmp_path: Path):
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([_journal(tmp_path / "journal.txt")])
        chunks = (await memory.stats())["chunks"]
    async with memory_at(tmp_path / "data", OtherHashEmbedder()) as memory:
        memory.indexer.batch_size = 2
        memory.indexer.embedder = _OtherFailsAfter(calls=2)
        with pytest.raises(KeyboardInterrupt):
            await memory.reindex()
        hits = await memory.search("story", mode="semantic", limit=50)
        assert {h.chunk_id for h in hits} == {1, 2, 3, 4}  # the new model's vectors only, no mixing
        memory.indexer.embedder = OtherHashEmbedder()
        assert await memory.reindex() == chunks - 4
        assert all([await _found(memory, t) for t in TOPICS])
        async with memory.conn.execute("SELECT COUNT(DISTINCT generation) FROM chunk_embeddings") as cur:
            assert (await cur.fetchone())[0] == 1  # every old vector replaced


CHILD = """
import asyncio, sys, time
from pathlib import Path
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder

class Slow(HashEmbedder):
    def embed(self, texts, *, query=False):
        time.sleep(0.15)
        return super().embed(texts, query=query)

async def main():
    async with memory_at(Path(sys.argv[1]), Slow()) as memory:
        memory.indexer.batch_size = 2
        await memory.reindex()

asyncio.run(main())
"""


async def test_a_killed_reindex_keeps_semantic_search_and_a_rerun_completes(tmp_path: Path):
    data = tmp_path / "data"
    async with memory_at(data, HashEmbedder()) as memory:
        await memory.ingest([_journal(tmp_path / "journal.txt")])
        chunks = (await memory.stats())["chunks"]
        await memory.warm_up()  # this process keeps its index across the other's kill

        child = subprocess.Popen([sys.executable, "-c", CHILD, str(data)],
                                 env={**os.environ, "PYTHONPATH": str(ROOT)})
        store = sqlite3.connect(data / "biographer.sqlite3", timeout=10)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            (pending,) = store.execute("SELECT COUNT(*) FROM chunks WHERE embedded = 0").fetchone()
            if 0 < pending <= chunks - 4:
                break
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.wait()
        (pending,) = store.execute("SELECT COUNT(*) FROM chunks WHERE embedded = 0").fetchone()
        store.close()
        assert 0 < pending < chunks, "the child was killed before or after the reindex"

        assert all([await _found(memory, t) for t in TOPICS])
    async with memory_at(data, HashEmbedder()) as memory:  # a fresh process after the kill
        assert all([await _found(memory, t) for t in TOPICS])
        assert await memory.reindex() == pending
        assert (await memory.stats())["chunks_pending_index"] == 0
        assert all([await _found(memory, t) for t in TOPICS])


async def test_warm_up_loads_the_index_and_a_forgotten_source_is_folded_away(tmp_path: Path, monkeypatch):
    from core.memory.sources import forget_source
    from storage.vectors import store as vector_store

    monkeypatch.setattr(vector_store, "FOLD_ROWS", 5)
    (tmp_path / "note.txt").write_text("A short note about the lighthouse.", encoding="utf-8")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([_journal(tmp_path / "journal.txt"), tmp_path / "note.txt"])
        chunks = (await memory.stats())["chunks"]
        await memory.warm_up()
        assert len(await memory.searcher.vector_index()) == chunks  # loaded before any search
        await forget_source(memory.conn, 1)
        assert not await _found(memory, "violin")  # gone at once, through the log
        await memory.index_pending()  # nothing to embed: the deletions are folded into the parts
        async with memory.conn.execute("SELECT COUNT(*) FROM vector_log") as cur:
            assert (await cur.fetchone())[0] == 0
        assert len(await memory.searcher.vector_index()) == 1
        assert await _found(memory, "lighthouse")
