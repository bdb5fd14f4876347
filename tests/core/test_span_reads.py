"""Reading a span of a document back from its chunks (storage.chunks.chunks_overlapping, migration
185's longest chunk): every chunk that overlaps the span and no other, checked against the
overlap worked out by hand, through inserts that lengthen the longest chunk and chunks that
overlap; the scan of chunks_document starts near the span; and search's joined passages are the
document's own text between their offsets."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from storage import chunks as chunk_store
from storage import documents as document_store
from storage.db import open_database
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder


async def _insert(conn, doc: int, spans: list[tuple[int, int]], *, tag: str) -> None:
    async with conn.transaction():
        await chunk_store.insert_chunks(conn, [chunk_store.ChunkRecord(
            document_id=doc, ordinal=i, char_start=a, char_end=b, text="x" * (b - a), time_start=None,
            time_end=None, speakers=(), identity=f"{tag}|{i}", text_hash=f"{tag}-{i}") for i, (a, b) in enumerate(spans)])


async def _longest(conn) -> int:
    async with conn.execute("SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?", (chunk_store.LONGEST_CHARS_KEY,)) as cur:
        return (await cur.fetchone())[0]


async def _agree(conn, doc: int, rng: np.random.Generator, every: list[tuple[int, int]]) -> None:
    for _ in range(60):
        start = int(rng.integers(0, 60_000))
        end = start + int(rng.choice([1, 50, 900, 5_000]))
        got = [(s.char_start, s.char_end) for s in await chunk_store.chunks_overlapping(conn, doc, start, end)]
        assert got == sorted((a, b) for a, b in every if b > start and a < end), (start, end)


async def test_a_span_read_finds_every_overlapping_chunk_as_the_longest_grows(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    async with open_database(tmp_path / "s.sqlite3") as conn:
        async with conn.transaction():
            doc = await document_store.insert_document(
                conn, kind="text", name="t.txt", identity="t", source_path=None, content_hash=None,
                byte_size=None, raw_path=None)
        assert await _longest(conn) == 0  # an empty store: no chunk yet
        # windows of 600-1,000 characters that overlap their neighbours by 100
        spans, at = [], 0
        while at < 50_000:
            length = int(rng.integers(600, 1_000))
            spans.append((at, at + length))
            at += length - 100
        await _insert(conn, doc, spans, tag="a")
        assert await _longest(conn) == max(b - a for a, b in spans)
        await _agree(conn, doc, rng, spans)
        # one long chunk later (a whole letter in one piece), from early in the document
        await _insert(conn, doc, [(2_000, 32_000)], tag="b")
        assert await _longest(conn) == 30_000
        await _agree(conn, doc, rng, [*spans, (2_000, 32_000)])


async def test_a_span_read_scans_its_part_of_the_document_index(tmp_path: Path) -> None:
    """The plan: chunks_document searched between two bounds, not from the document's first chunk."""
    async with open_database(tmp_path / "s.sqlite3") as conn:
        async with conn.execute(f"EXPLAIN QUERY PLAN {chunk_store.OVERLAPPING}", (1, 80_000, 81_000, 80_000, 80_000)) as cur:
            plan = " ".join(str(r[-1]) for r in await cur.fetchall())
        assert "chunks_document (document_id=? AND char_start>? AND char_start<?)" in plan


async def test_searchs_joined_passages_are_the_documents_own_text(tmp_path: Path) -> None:
    """A hit that joins adjacent chunks is put together from their rows without reading the span
    back: its text is the source file's between the hit's offsets, and what `read` gives there."""
    paragraphs = [f"Paragraph {i}: " + " ".join(f"word{i}_{j}" for j in range(60)) for i in range(40)]
    text = "\n\n".join(paragraphs)
    (tmp_path / "long.md").write_text(text, encoding="utf-8")
    joined = 0
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "long.md"])
        async with memory.conn.execute("SELECT MAX(char_end - char_start) FROM chunks") as cur:
            (longest,) = await cur.fetchone()
        for i in range(0, 39, 3):
            # words of two neighbouring paragraphs: their chunks are found together
            for hit in await memory.search(f"word{i}_55 word{i}_59 word{i + 1}_1 word{i + 1}_3", mode="hybrid"):
                loc = hit.locator
                assert hit.text == text[loc.char_start:loc.char_end].strip()
                assert hit.text == (await memory.read(loc)).text.strip()
                joined += loc.char_end - loc.char_start > longest
    assert joined  # some hits joined two chunks (else this test checks nothing of the joining)
