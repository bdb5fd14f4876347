"""The keyword index's postings as arrays, beside FTS5: for each term, in parts of 2**PART_BITS
chunk ids, the chunks that hold it and how often; for each part, every chunk's length in terms.
storage/keyword/scoring.py computes FTS5's bm25 from them with NumPy; this module writes them.

Why: FTS5 computes bm25 row by row (a length lookup and a walk over the position lists per
matching chunk, about a microsecond each), so a query with a common word pays for every chunk
that holds it. The same numbers as arrays are scored in a few vector operations, and the
result is FTS5's own bm25 (tests/core/test_keyword_postings.py checks the top 100 against it).

How they stay in step: triggers on `chunks` log every inserted or deleted chunk id in
`keyword_log`, in the same transaction; `fold` turns the log into postings (appending new
chunks to their part, or rebuilding a part where chunks were deleted or ids reused) and empties
it. The writers that change chunks (storage/chunks.py insert_chunks, storage/source_admin.py
delete_source) fold before their transaction commits, so the log is normally empty; a reader
that finds it not empty (a change made some other way, or a store older than these tables)
scores through FTS5 instead, which is always right. Anything that rewrites `chunks_fts`
directly (a migration re-indexing text) must rebuild the postings too (`rebuild`).

The terms are FTS5's own tokens of what storage/keyword/terms.py makes of a chunk (the `ascii`
tokenizer: runs of ASCII letters and digits and of any non-ASCII character, ASCII case folded).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from storage.keyword.languages import UNKNOWN
from storage.keyword.terms import fts_tokens, index_text

if TYPE_CHECKING:
    from storage.db import Store

PART_BITS = 14  # parts of 16,384 chunk ids: a common term is a few dozen rows at a million chunks
PART_MASK = (1 << PART_BITS) - 1
SEQ_KEY = "keyword_postings_seq"  # meta: bumped by every fold; a part's version is the fold that wrote it
READ_BATCH = 2_000

def chunk_terms(text: str, language: str) -> list[str]:
    """The tokens the keyword index holds for a chunk, in order (its length is their number)."""
    return fts_tokens(index_text(text or "", language or UNKNOWN))


def small(values: np.ndarray) -> bytes:
    """Non-negative counts as bytes of the narrowest of uint8, uint16, uint32 that holds them;
    the reader tells which from the blob's size (`widths`)."""
    top = int(values.max()) if len(values) else 0
    dtype = "<u1" if top < 1 << 8 else "<u2" if top < 1 << 16 else "<u4"
    return values.astype(dtype).tobytes()


def unsmall(blob: bytes, n: int) -> np.ndarray:
    """The counts `small` wrote for n entries."""
    width = len(blob) // n if n else 1
    return np.frombuffer(blob, dtype={1: "<u1", 2: "<u2", 4: "<u4"}[width])


class _Part:
    """The postings of one part being built: each chunk's terms, then per term its chunk
    offsets and counts (counted with NumPy over term numbers: a Python step per term, not per
    posting)."""

    def __init__(self) -> None:
        self.offsets: list[int] = []
        self.lengths: list[int] = []
        self._numbers: dict[str, int] = {}
        self._terms: list[int] = []

    def add(self, offset: int, terms: list[str]) -> None:
        self.offsets.append(offset)
        self.lengths.append(len(terms))
        number = self._numbers.setdefault
        self._terms.extend(number(term, len(self._numbers)) for term in terms)

    def postings(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """term: (offsets of the chunks holding it, ascending; how often each holds it)."""
        if not self._terms:
            return {}
        owners = np.repeat(np.array(self.offsets, dtype=np.int64), self.lengths)
        keys, counts = np.unique(np.array(self._terms, dtype=np.int64) << PART_BITS | owners, return_counts=True)
        numbers, offsets = keys >> PART_BITS, keys & PART_MASK
        starts = np.flatnonzero(np.r_[True, numbers[1:] != numbers[:-1]])
        ends = np.r_[starts[1:], len(keys)]
        names = list(self._numbers)
        return {names[numbers[a]]: (offsets[a:b], counts[a:b]) for a, b in zip(starts.tolist(), ends.tolist())}


async def fold(conn: Store) -> int:
    """Turn the logged chunk changes into postings (inside the caller's transaction) and empty
    the log; returns how many chunk ids it held."""
    async with conn.execute("SELECT DISTINCT chunk_id FROM keyword_log ORDER BY chunk_id") as cur:
        logged = np.array([row[0] for row in await cur.fetchall()], dtype=np.int64)
    if not len(logged):
        return 0
    version = await _next_seq(conn)
    parts = logged >> PART_BITS
    for part in np.unique(parts).tolist():
        await _fold_part(conn, part, logged[parts == part].tolist(), version)
    await conn.execute("DELETE FROM keyword_log")
    return len(logged)


async def rebuild(conn: Store) -> int:
    """Every part built afresh from the chunks (a migration, a repair); returns the chunks read."""
    await conn.execute("DELETE FROM keyword_postings")
    await conn.execute("DELETE FROM keyword_lengths")
    await conn.execute("DELETE FROM keyword_log")
    version = await _next_seq(conn)
    total, after = 0, -1
    current, building = None, _Part()
    while True:
        async with conn.execute("SELECT id, text, language FROM chunks WHERE id > ? ORDER BY id LIMIT ?",
                                (after, READ_BATCH)) as cur:
            rows = await cur.fetchall()
        if not rows:
            break
        for chunk_id, text, language in rows:
            part = chunk_id >> PART_BITS
            if part != current and current is not None:
                await _write_part(conn, current, building, version, replace=False)
                building = _Part()
            current = part
            building.add(chunk_id & PART_MASK, chunk_terms(text, language))
        total += len(rows)
        after = rows[-1][0]
    if current is not None:
        await _write_part(conn, current, building, version, replace=False)
    return total


async def _fold_part(conn: Store, part: int, logged: list[int], version: int) -> None:
    async with conn.execute("SELECT ids FROM keyword_lengths WHERE part = ?", (part,)) as cur:
        row = await cur.fetchone()
    stored = np.frombuffer(row[0], dtype="<u2") if row else np.zeros(0, dtype="<u2")
    new = await _chunk_rows(conn, logged)
    offsets = [cid & PART_MASK for cid in logged]
    if len(new) == len(logged) and (not len(stored) or min(offsets) > int(stored[-1])):
        appended = _Part()
        for chunk_id, text, language in new:
            appended.add(chunk_id & PART_MASK, chunk_terms(text, language))
        await _append_part(conn, part, appended, version)
        return
    # a chunk deleted, or an id used again: the part is made again from what it holds now
    lo, hi = part << PART_BITS, ((part + 1) << PART_BITS) - 1
    rebuilt = _Part()
    async with conn.execute("SELECT id, text, language FROM chunks WHERE id BETWEEN ? AND ? ORDER BY id",
                            (lo, hi)) as cur:
        async for chunk_id, text, language in cur:
            rebuilt.add(chunk_id & PART_MASK, chunk_terms(text, language))
    await _write_part(conn, part, rebuilt, version, replace=True)


async def _chunk_rows(conn: Store, ids: Sequence[int]) -> list[tuple[int, str, str]]:
    out: list[tuple[int, str, str]] = []
    for i in range(0, len(ids), 500):
        batch = list(ids[i:i + 500])
        async with conn.execute(f"SELECT id, text, language FROM chunks WHERE id IN ({','.join('?' * len(batch))}) "
                                "ORDER BY id", batch) as cur:
            out += [tuple(row) for row in await cur.fetchall()]
    return out


def _posting_row(term: str, part: int, ids: np.ndarray, counts: np.ndarray) -> tuple:
    return (term, part, ids.astype("<u2").tobytes(), small(counts))


async def _write_part(conn: Store, part: int, built: _Part, version: int, *, replace: bool) -> None:
    if replace:
        await conn.execute("DELETE FROM keyword_postings WHERE part = ?", (part,))
    if not built.offsets:
        await conn.execute("DELETE FROM keyword_lengths WHERE part = ?", (part,))
        return
    await conn.executemany("INSERT INTO keyword_postings (term, part, ids, tfs) VALUES (?, ?, ?, ?)",
                           [_posting_row(term, part, ids, counts) for term, (ids, counts) in built.postings().items()])
    await _write_lengths(conn, part, np.array(built.offsets, dtype="<u2"),
                         np.array(built.lengths, dtype=np.int64), version)


async def _append_part(conn: Store, part: int, added: _Part, version: int) -> None:
    """New chunks after the last of their part: each term's row gets their postings at its end."""
    added_postings = added.postings()
    terms = list(added_postings)
    old: dict[str, tuple[bytes, bytes]] = {}
    for i in range(0, len(terms), 5_000):
        async with conn.execute(
                "SELECT term, ids, tfs FROM keyword_postings WHERE part = ? AND term IN (SELECT value FROM json_each(?))",
                (part, json.dumps(terms[i:i + 5_000], ensure_ascii=False))) as cur:
            old.update({term: (ids, tfs) for term, ids, tfs in await cur.fetchall()})
    rows = []
    for term, (ids, counts) in added_postings.items():
        if term in old:
            old_ids, old_tfs = old[term]
            ids = np.concatenate([np.frombuffer(old_ids, dtype="<u2").astype(np.int64), ids])
            counts = np.concatenate([unsmall(old_tfs, len(old_ids) // 2).astype(np.int64), counts])
        rows.append(_posting_row(term, part, ids, counts))
    await conn.executemany("INSERT OR REPLACE INTO keyword_postings (term, part, ids, tfs) VALUES (?, ?, ?, ?)", rows)
    async with conn.execute("SELECT ids, lengths FROM keyword_lengths WHERE part = ?", (part,)) as cur:
        row = await cur.fetchone()
    ids = np.frombuffer(row[0], dtype="<u2") if row else np.zeros(0, dtype="<u2")
    lengths = unsmall(row[1], len(ids)) if row else np.zeros(0, dtype=np.int64)
    await _write_lengths(conn, part, np.concatenate([ids, np.array(added.offsets, dtype="<u2")]),
                         np.concatenate([lengths.astype(np.int64), np.array(added.lengths, dtype=np.int64)]), version)


async def _write_lengths(conn: Store, part: int, offsets: np.ndarray, lengths: np.ndarray, version: int) -> None:
    await conn.execute(
        "INSERT OR REPLACE INTO keyword_lengths (part, version, chunks, terms, ids, lengths) VALUES (?, ?, ?, ?, ?, ?)",
        (part, version, len(offsets), int(lengths.sum()), offsets.astype("<u2").tobytes(), small(lengths)))


async def _next_seq(conn: Store) -> int:
    async with conn.execute("SELECT value FROM meta WHERE key = ?", (SEQ_KEY,)) as cur:
        row = await cur.fetchone()
    seq = (int(row[0]) if row else 0) + 1
    await conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                       "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (SEQ_KEY, str(seq)))
    return seq
