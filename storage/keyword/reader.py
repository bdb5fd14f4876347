"""Keyword (FTS5 bm25) search through connections of its own. A query of plain terms without a
filter is scored from the postings as arrays (storage/keyword/scoring.py: FTS5's bm25 to the
last bit, about 5x sooner at 100k chunks); anything else goes to FTS5, where on a machine with cores to spare a
big store's chunk ids are split in ranges searched at once.

Why: FTS5 computes bm25 for every chunk that holds any query word, so a question with a common
word costs in proportion to how many chunks hold it (about a microsecond each: 20-80 ms at a
million chunks; iterating the matches alone takes about 1 ms, bm25's per-row work is the rest).
That work divides cleanly: bm25's term weights come from the whole index, so each range's best
are exact and the best of their union are the best overall. Measured at a million chunks, one
after the other: the slower of 2 ranges took 0.6x the whole query, the slowest of 4 took 0.37x,
for 10% more work in all; on two busy cores there is no core to spare and it came out slower,
so machines with fewer than 4 cores search one range. Blocking: call it from a worker thread.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from collections.abc import Sequence
from typing import TYPE_CHECKING

from storage.chunks import (ChunkFilter, KeywordHit, StoredChunk, any_matching_sync, earliest_matching_sync,
                            get_chunks_sync, keyword_hits, language_counts_sync, languages_sync, small_talk_sync,
                            told_in_sync)
from storage.db import open_reader
from storage.encryption import StoreKey
from storage.keyword.query import plain_terms
from storage.people import PeopleNames, chunk_count_sync, chunks_spoken_in_sync, known_names_sync

if TYPE_CHECKING:
    from storage.keyword.scoring import Bm25Arrays

# chooses the candidates to read from a deeper pool of (chunk id, bm25), by each one's share of
# small talk (core/memory/small_talk.py); the chunks' rows are read for the chosen alone
Chooser = Callable[[list[tuple[int, float]], Mapping[int, float]], list[tuple[int, float]]]

SPLIT_FROM = 200_000  # chunk ids below this: one range (splitting costs more than it saves)
MAX_RANGES = 4


def default_ranges() -> int:
    """Half the cores (the vector half and the event loop need the rest), at most 4; one range
    below 4 cores."""
    cores = os.cpu_count() or 1
    return 1 if cores < 4 else min(MAX_RANGES, cores // 2)


class KeywordReader:
    def __init__(self, path: Path | str, *, ranges: int | None = None, key: StoreKey | None = None) -> None:
        self._ranges = ranges or default_ranges()
        # the page cache holds the hot part of the keyword index (term lists, document sizes)
        self._conns = [open_reader(path, cache_mb=16, key=key) for _ in range(self._ranges)]
        self._locks = [threading.Lock() for _ in self._conns]
        self._pool = ThreadPoolExecutor(self._ranges - 1, thread_name_prefix="keyword") \
            if self._ranges > 1 else None
        self._closer = weakref.finalize(self, _close, self._conns, self._pool)
        self._names: tuple[int, PeopleNames] | None = None
        self._chunks: tuple[int, int] | None = None  # (data_version, chunks in the store)
        self._arrays: Bm25Arrays | None = None  # made on the first search that scores from them

    def known_names(self) -> PeopleNames:
        """The people table's names and the owner's senders (storage.people.known_names_sync),
        read again only when another connection has committed since (SQLite's data_version),
        so a search pays for them once per change, not once per query."""
        with self._locks[0]:
            (version,) = self._conns[0].execute("PRAGMA data_version").fetchone()
            if self._names is None or self._names[0] != version:
                self._names = (version, known_names_sync(self._conns[0]))
            return self._names[1]

    def speaker_share(self, speakers: Sequence[str]) -> float:
        """The share of the store's chunks that any of `speakers` speaks in (0 in an empty store).
        The store's count is read again only after a change (a few ms at 100k chunks), and only
        for questions that name someone."""
        if not speakers:
            return 0.0
        with self._locks[0]:
            (version,) = self._conns[0].execute("PRAGMA data_version").fetchone()
            if self._chunks is None or self._chunks[0] != version:
                self._chunks = (version, chunk_count_sync(self._conns[0]))
            total = self._chunks[1]
            return chunks_spoken_in_sync(self._conns[0], speakers) / total if total else 0.0

    def close(self) -> None:
        self._closer()

    def languages(self) -> list[str]:
        """The languages the store's chunks are in (a query's words are looked for in each)."""
        with self._locks[0]:
            return languages_sync(self._conns[0])

    def language_counts(self) -> dict[str, int]:
        """Chunks per language ("" undetermined)."""
        with self._locks[0]:
            return language_counts_sync(self._conns[0])

    def holds(self, match: str) -> bool:
        """Whether any chunk matches an FTS5 expression (one posting read, not a ranking)."""
        with self._locks[0]:
            return any_matching_sync(self._conns[0], match)

    def told_in(self, ids: Sequence[int], language: str) -> set[int]:
        """Which of the chunks `ids` were told as written in `language`."""
        with self._locks[0]:
            return told_in_sync(self._conns[0], ids, language)

    def earliest(self, match: str, *, limit: int, where: ChunkFilter) -> list[StoredChunk]:
        """The `limit` oldest dated chunks an FTS5 expression matches (storage.chunks.earliest_matching_sync)."""
        with self._locks[0]:
            return earliest_matching_sync(self._conns[0], match, limit=limit, where=where)

    def search(self, match: str, *, limit: int, where: ChunkFilter, arrays: bool = True,
               pool: int = 0, choose: Chooser | None = None) -> list[KeywordHit]:
        """The hits best first, bm25 lower-is-better as FTS5 gives it. `arrays`: score from the
        postings in NumPy where it can (storage/keyword/scoring.py; the same scores), else FTS5
        alone, as a one-shot keyword search does (NumPy alone takes longer to import than FTS5
        takes to answer it). `choose`: from the postings, the hits are what it picks of the best
        `pool` (FTS5 gives its best `limit`, rows and all)."""
        if arrays and not where.active and (terms := plain_terms(match)) is not None:
            hits = self._from_arrays(terms, max(limit, pool) if choose else limit, choose)
            if hits is not None:
                return hits
        if self._pool is None:
            return self._range(0, match, limit, where, (0, None))
        with self._locks[0]:
            (top,) = self._conns[0].execute("SELECT COALESCE(MAX(id), 0) FROM chunks").fetchone()
        if top < SPLIT_FROM:
            return self._range(0, match, limit, where, (0, None))
        bounds = [top * i // self._ranges for i in range(self._ranges)] + [None]
        rest = [self._pool.submit(self._range, i, match, limit, where, (bounds[i], bounds[i + 1]))
                for i in range(1, self._ranges)]
        hits = self._range(0, match, limit, where, (0, bounds[1]))
        for future in rest:
            hits.extend(future.result())
        hits.sort(key=lambda hit: hit.bm25)
        return hits[:limit]

    def _from_arrays(self, terms: list[str], limit: int, choose: Chooser | None = None) -> list[KeywordHit] | None:
        from storage.keyword.scoring import Bm25Arrays

        with self._locks[0]:
            if self._arrays is None:
                self._arrays = Bm25Arrays()
            cur = self._conns[0].cursor()
            cur.execute("BEGIN")  # the postings and the chunk rows of one snapshot
            try:
                ranked = self._arrays.top(cur, terms, limit)
                if ranked and choose is not None:
                    ranked = choose(ranked, small_talk_sync(self._conns[0], [cid for cid, _ in ranked]))
                rows = get_chunks_sync(self._conns[0], [cid for cid, _ in ranked]) if ranked else {}
            finally:
                cur.execute("COMMIT")
        if ranked is None:
            return None
        return [KeywordHit(rows[cid], bm25) for cid, bm25 in ranked if cid in rows]

    def _range(self, i: int, match: str, limit: int, where: ChunkFilter,
               rowids: tuple[int, int | None]) -> list[KeywordHit]:
        with self._locks[i]:
            return keyword_hits(self._conns[i], match, limit=limit, where=where, rowids=rowids)


def _close(conns: list, pool: ThreadPoolExecutor | None) -> None:
    if pool is not None:
        pool.shutdown(wait=True)
    for conn in conns:
        conn.close()
