"""The sign bits of every current vector, held in memory and kept in step with the store.

A query's sign bits are compared with all of them (Hamming distance: XOR and popcount over
64-bit words, vectorised in blocks that stay in the CPU cache), the nearest few hundred form a
short list, and the short list is ranked exactly by sqlite-vec (`vec_distance_cosine` over the
float vectors, the store of record, in one statement that hands back only the nearest). A
filtered search whose filter keeps few enough chunks skips the first stage: sqlite-vec ranks
every chunk the filter keeps, in SQL, so a filter never loses what sign bits would have dropped.
Memory: 8 bytes of id plus dim/8 bytes of bits per vector (56 MB per million at 384 dims).

A long-running process (the bot, the server: `keep_vectors`) also keeps the vectors, as bytes
with a scale per vector, while they fit a budget (128 MB: about 330,000 vectors at 384 dims): the
short list is then ranked without reading 400 rows from SQLite (1.0 ms of a 2 ms vector half at
100k chunks; half precision was tried first, but NumPy takes 0.2 ms to widen 400 of them). A
byte per dimension moves a cosine by about 0.001, which reorders only near ties. A bigger store
reads the short list's vectors by id, as a one-shot command always does. The kept bytes also
speed up a filtered search and keep it exact: with each vector's length and rounding error they
bound every cosine (Bytes.bounds), and only the chunks whose upper bound reaches the depth-th
best lower bound (about 100 of 20,000) are ranked by sqlite-vec. A process that does not keep
them reads the same bytes for a filter's chunks from the code parts on disk (codes.py), a part
at a time, rather than every chunk's float vector.

The index reads through a connection of its own, which sees only committed data; each search
first applies what changed since the last one (store.py: parts, then the change log),
so a batch is searchable as soon as it commits, in this process or another, and a forgotten
chunk is gone at once. Blocking: call it from a worker thread (it serialises its own calls).
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import sqlean

from storage.chunks import ChunkFilter, StoredChunk, get_chunks_sync, small_talk_sync
from storage.db import load_sqlite_vec, open_reader
from storage.encryption import StoreKey
from storage.vectors.codes import CODE_BITS, Bytes, code_dots, cosine_bounds, unit
from storage.vectors.store import GENERATION_KEY, PARTS_SEQ_KEY, part_arrays, sign_words

#: the most the vectors may take in memory (a byte per dimension) for a store to keep them there
VECTOR_BUDGET_BYTES = 128 << 20
KEPT_OVERHEAD = 12  # bytes a kept vector takes beyond its codes: its scale, length and rounding error
BLOCK = 1 << 15  # vectors scanned per step: the temporaries stay in the CPU cache
FAR = np.iinfo(np.uint16).max  # the distance given to rows that must not be found
# a list of at least this many ids (every short list: 400 or more, 2,020 at a million chunks) in a
# store of at least PARALLEL_STORE vectors is ranked in READERS slices at once. A smaller store's vectors
# (600 MB at 400k) stay in the OS's cache, where the slices only add their threads' hand-overs:
# at 100k chunks and load 19 they made the vector half 1.5x slower
PARALLEL_FROM = 400
PARALLEL_STORE = 400_000
# a code part (1,024 ids, about 400 KB read in one piece) is read to bound the chunks of a filter
# it holds when they are at least this many; fewer are ranked from their float vectors directly
CODES_FROM = 64
# a filter keeping up to this share of the store is searched exactly while bytes bound its chunks
# (beyond core's cap on float vectors ranked unbounded): the bounds cost about 0.5 µs a chunk
# against the approximate path's scan of every sign bit and its short list's float vectors (a
# million chunks, load 7.5, a period of 49,863 chunks: 102 ms exact against 166 ms approximate;
# of 200,000: 432 against 339 ms; at 100k chunks the two meet near 20,000, core's cap)
BOUNDED_SHARE = 0.125
PARALLEL_ROWS = 16  # chunk rows read at once past which they are read in slices too (a search reads 50)
READERS = 4


@dataclass(frozen=True, slots=True)  # slots: a hybrid search makes 150 of them
class VectorHit:
    chunk_id: int
    cosine: float


class VectorIndex:
    def __init__(self, path: Path | str, *, key: StoreKey | None = None) -> None:
        self._conn = open_reader(path, cache_mb=16, key=key)  # holds the vector table's inner pages: one page read per id
        load_sqlite_vec(self._conn)  # exact distances over the float vectors, in SQL
        self._path, self._key = path, key
        self._more = _Readers()  # more connections, for long lists (_nearest_of)
        self._closer = weakref.finalize(self, _close, self._conn, self._more)
        self._lock = threading.Lock()
        self._vector_budget = 0  # bytes; 0: the short list's vectors are read from the store
        self.bounded = (0, 0)  # the last bounded filtered search: (chunks bounded, left to rank exactly)
        self._reset(generation=None, dim=0)

    def keep_vectors(self, budget_bytes: int = VECTOR_BUDGET_BYTES) -> None:
        """Keep the vectors in memory (a byte per dimension) from the next refresh on, while they
        fit the budget."""
        with self._lock:
            self._vector_budget = budget_bytes
            self._reset(generation=None, dim=0)  # reloaded, vectors included, at the next refresh

    def close(self) -> None:
        with self._lock:
            self._closer()

    # ------------------------------------------------------------------ keeping in step

    def _reset(self, *, generation: int | None, dim: int) -> None:
        self._generation, self._dim = generation, dim
        self._words = -(-dim // 64)
        self._slices: dict[int, tuple[int, int, int]] = {}  # part: (version, start, stop) in _ids
        self._parts_seq = -1
        self._seen = -1
        self._ids = np.zeros(0, dtype=np.int64)
        self._bits = np.zeros((self._words, 0), dtype=np.uint64)
        self._delta: dict[int, np.ndarray | None] = {}  # id: words, or None when deleted
        self._vectors: Bytes | None = None  # the rows of _ids, when kept
        self._part_vectors: dict[int, tuple[int, Bytes]] = {}  # part: (version, its rows)
        self._delta_vectors: dict[int, Bytes] = {}  # id: its vector, for the rows in _delta
        self._distances = np.zeros(0, dtype=np.uint16)
        self._derive_delta()

    def refresh(self) -> None:
        """Catch up with the store (one small query when nothing changed)."""
        with self._lock:
            self._refresh()

    def _refresh(self) -> None:
        cur = self._conn.cursor()
        cur.execute("BEGIN")  # one consistent snapshot of meta, parts and log
        try:
            meta = dict(cur.execute(
                "SELECT key, value FROM meta WHERE key IN (?, ?, 'embedding_dim')",
                (GENERATION_KEY, PARTS_SEQ_KEY)).fetchall())
            generation = int(meta.get(GENERATION_KEY, 0))
            dim = int(meta.get("embedding_dim", 0))
            parts_seq = int(meta.get(PARTS_SEQ_KEY, 0))
            row = cur.execute("SELECT seq FROM sqlite_sequence WHERE name = 'vector_log'").fetchone()
            top = int(row[0]) if row else 0
            if generation != self._generation or dim != self._dim or top < self._seen:
                self._reset(generation=generation, dim=dim)
            if parts_seq != self._parts_seq:
                self._load_parts(cur)
                self._parts_seq = self._seen = parts_seq
                self._delta.clear()
                self._delta_vectors.clear()
                self._derive_delta()
            if top > self._seen:
                self._apply_log(cur, since=self._seen)
                self._seen = top
        finally:
            cur.execute("COMMIT")

    def _load_parts(self, cur: sqlean.Cursor) -> None:
        """Read the parts that changed since the last load into one pair of arrays (the others
        are copied over), without holding any part twice for longer than this call."""
        listing = cur.execute("SELECT part, version, length(ids) / 8 FROM vector_parts ORDER BY part").fetchall()
        total = sum(n for _, _, n in listing)
        ids = np.empty(total, dtype=np.int64)
        bits = np.empty((self._words, total), dtype=np.uint64)
        slices: dict[int, tuple[int, int, int]] = {}
        at = 0
        for part, version, n in listing:
            old = self._slices.get(part)
            if old is not None and old[0] == version:
                ids[at:at + n] = self._ids[old[1]:old[2]]
                bits[:, at:at + n] = self._bits[:, old[1]:old[2]]
            else:
                ids_blob, bits_blob = cur.execute(
                    "SELECT ids, bits FROM vector_parts WHERE part = ?", (part,)).fetchone()
                ids[at:at + n], bits[:, at:at + n] = part_arrays(ids_blob, bits_blob)
            slices[part] = (version, at, at + n)
            at += n
        self._ids, self._bits, self._slices = ids, bits, slices
        self._load_vectors(cur, listing)

    def _load_vectors(self, cur: sqlean.Cursor, listing: list[tuple[int, int, int]]) -> None:
        """The vectors of every part as bytes, when they fit the budget: a part whose version is
        unchanged keeps the rows it had; the others are read afresh."""
        if not self._vector_budget or len(self._ids) * (self._dim + KEPT_OVERHEAD) > self._vector_budget:
            self._vectors, self._part_vectors = None, {}
            return
        kept: dict[int, tuple[int, Bytes]] = {}
        for part, version, _ in listing:
            old = self._part_vectors.get(part)
            _, start, stop = self._slices[part]
            if old is not None and old[0] == version:
                kept[part] = old
                continue
            ids = self._ids[start:stop]
            stored = self._stored_bytes(cur, ids) if len(ids) else None
            if stored is not None:
                kept[part] = (version, stored)
                continue
            rows = cur.execute(
                "SELECT chunk_id, vector FROM chunk_embeddings WHERE generation = ? "
                "AND chunk_id BETWEEN ? AND ? ORDER BY chunk_id",
                (self._generation, int(ids[0]), int(ids[-1]))).fetchall() if len(ids) else []
            found = np.fromiter((cid for cid, _ in rows), dtype=np.int64, count=len(rows))
            wanted = np.isin(found, ids)
            if int(wanted.sum()) != len(ids):  # a part's row without its vector: read by id instead
                self._vectors, self._part_vectors = None, {}
                return
            matrix = np.frombuffer(b"".join(blob for (_, blob), keep in zip(rows, wanted) if keep),
                                   dtype=np.float32).reshape(len(ids), self._dim)
            kept[part] = (version, Bytes.of(matrix))
        self._part_vectors = kept
        self._vectors = Bytes.joined([kept[part][1] for part, _, _ in listing], self._dim)

    def _stored_bytes(self, cur: sqlean.Cursor, ids: np.ndarray) -> Bytes | None:
        """A part's vectors (`ids`, sorted) as bytes from the code parts on disk: in the same
        snapshot as the parts, so folded by the same transactions (100k chunks: 39 MB read, where
        the float vectors were 150 MB and their rounding 1 s of processor time). None where the
        code parts do not hold exactly these ids (the float vectors are read instead)."""
        rows = cur.execute("SELECT ids, codes, terms FROM vector_codes WHERE part BETWEEN ? AND ? ORDER BY part",
                           (int(ids[0]) >> CODE_BITS, int(ids[-1]) >> CODE_BITS)).fetchall()
        if not rows:
            return None
        held = np.concatenate([np.frombuffer(r[0], dtype="<i8") for r in rows])
        inside = np.flatnonzero((held >= ids[0]) & (held <= ids[-1]))
        stored = Bytes.joined([Bytes.from_blobs(r[1], r[2]) for r in rows], self._dim)
        if not np.array_equal(held[inside], ids) or stored.codes.shape[1] != self._dim:
            return None
        return stored.rows(inside)

    def _apply_log(self, cur: sqlean.Cursor, *, since: int) -> None:
        rows = cur.execute(
            """SELECT l.chunk_id, e.vector
               FROM (SELECT DISTINCT chunk_id FROM vector_log WHERE seq > ?) l
               LEFT JOIN chunk_embeddings e ON e.chunk_id = l.chunk_id AND e.generation = ?""",
            (since, self._generation)).fetchall()
        present = [(cid, blob) for cid, blob in rows if blob is not None]
        for cid, blob in rows:
            if blob is None:
                self._delta[cid] = None
                self._delta_vectors.pop(cid, None)
        if present:
            matrix = np.frombuffer(b"".join(b for _, b in present), dtype=np.float32)
            words = sign_words(matrix.reshape(len(present), -1))
            for j, (cid, _) in enumerate(present):
                self._delta[cid] = words[:, j]
            if self._vectors is not None:
                small = Bytes.of(matrix.reshape(len(present), -1))
                for j, (cid, _) in enumerate(present):
                    self._delta_vectors[cid] = small.rows(np.array([j]))
        self._derive_delta()

    def _derive_delta(self) -> None:
        """From the changes since the parts: which part rows are superseded, and the new rows."""
        changed = np.fromiter(self._delta, dtype=np.int64, count=len(self._delta))
        at = np.searchsorted(self._ids, changed)
        hit = at < len(self._ids)
        hit[hit] = self._ids[at[hit]] == changed[hit]
        self._superseded = at[hit]
        live = [(cid, w) for cid, w in self._delta.items() if w is not None]
        self._delta_ids = np.array([cid for cid, _ in live], dtype=np.int64)
        self._delta_bits = (np.stack([w for _, w in live], axis=1) if live
                            else np.zeros((self._words, 0), dtype=np.uint64))

    # ------------------------------------------------------------------ searching

    def __len__(self) -> int:
        return len(self._ids) - len(self._superseded) + len(self._delta_ids)

    def search(self, query: np.ndarray, *, shortlist: int, depth: int,
               where: ChunkFilter | None = None, exact_below: int = 0) -> list[VectorHit]:
        """The `depth` chunks nearest to `query` (a unit vector), best first:
        the `shortlist` nearest by sign bits, ranked by their float vectors. With a filter, only
        chunks it keeps; when it keeps at most `exact_below`, the nearest of all of them, exactly
        (sqlite-vec over their float vectors: no first stage to drop any), and also when it keeps
        up to BOUNDED_SHARE of the store while their bytes bound all but `exact_below` of them."""
        with self._lock:
            self._refresh()
            if self._generation is None or not self._dim:
                return []
            allowed = None
            if where is not None and where.active:
                allowed = self._filtered_ids(where)
                if len(allowed) <= max(exact_below, shortlist) or self._boundable(allowed, exact_below):
                    # the filter's ids, read already, rather than the filter again in the
                    # distance query: SQLite would plan the join around the date or speaker
                    # index and compute distances for rows the filter then drops
                    return self._nearest_of(query, self._could_be_nearest(query, allowed, depth), depth)
            return self._rescore(query, self._shortlist(query, shortlist, allowed), depth)

    def chunks(self, ids: Sequence[int]) -> dict[int, StoredChunk]:
        """Chunk rows read through the index's connections (so a search needs no other): in a
        big store, in slices at once, as _nearest_of reads vectors."""
        with self._lock:
            if len(ids) < PARALLEL_ROWS or len(self) < PARALLEL_STORE:
                return get_chunks_sync(self._conn, ids)
            pool = self._more_readers()
            conns = [self._conn, *self._more.conns]
            slices = [list(ids[len(ids) * i // len(conns):len(ids) * (i + 1) // len(conns)]) for i in range(len(conns))]
            rest = [pool.submit(get_chunks_sync, conn, part) for conn, part in zip(conns[1:], slices[1:])]
            rows = get_chunks_sync(conns[0], slices[0])
            for future in rest:
                rows.update(future.result())
            return rows

    def vectors(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The current float vectors of `ids` (those that have one), by id, read from the store
        of record (a few at a time: search's example round reads three)."""
        with self._lock:
            self._refresh()
            if self._generation is None or not ids:
                return {}
            rows = self._conn.execute(
                """SELECT chunk_id, vector FROM chunk_embeddings
                   WHERE generation = ? AND chunk_id IN (SELECT value FROM json_each(?))""",
                (self._generation, json.dumps([int(i) for i in ids]))).fetchall()
            return {cid: np.frombuffer(blob, dtype="<f4").astype(np.float32) for cid, blob in rows}

    def small_talk(self, ids: Sequence[int]) -> dict[int, float]:
        """The chunks' shares of small talk, where measured and above none (storage.chunks.small_talk_sync)."""
        with self._lock:
            return small_talk_sync(self._conn, ids)

    def _filtered_ids(self, where: ChunkFilter) -> np.ndarray:
        clause, params = where.where(bounded_start=True)
        # sorted here, not by SQLite: ORDER BY c.id would make it walk the chunks table in id
        # order, text and all, past the covering index a period filter has (chunks_period); and
        # handed over as one string of ids, not a row each (20,000 rows: 12 ms of Python against
        # 3), read by NumPy's parser (200,000 ids: 4 ms, where json.loads and an array took 32);
        # sorted stably (timsort): the ids come in the index's order, mostly runs in id order
        # (a period's chunks were written in time order), where NumPy's default quicksort took
        # 0.7-0.8 ms for 20,000 ids, sorted or not, and timsort 0.02 (0.07 in runs, 1.1 shuffled)
        joined = "JOIN documents d ON d.id = c.document_id" if where.kinds else ""
        (listed,) = self._conn.execute(f"SELECT group_concat(c.id, ',') FROM chunks c {joined} WHERE {clause}",
                                       params).fetchone()
        return np.sort(np.fromstring(listed or "", dtype=np.int64, sep=","), kind="stable")

    def shortlist(self, query: np.ndarray, k: int) -> list[int]:
        """Ids of the k current vectors nearest to `query` by the sign bits, nearest first."""
        with self._lock:
            self._refresh()
            return self._shortlist(query, k, None)

    def _shortlist(self, query: np.ndarray, k: int, allowed: np.ndarray | None) -> list[int]:
        q = sign_words(np.asarray(query, dtype=np.float32)[None, :])[:, 0]
        if len(self._distances) < len(self._ids):  # reused: no fresh megabytes per query
            self._distances = np.empty(len(self._ids), dtype=np.uint16)
        base = hamming_distances(self._bits, q, out=self._distances[:len(self._ids)])
        base[self._superseded] = FAR
        delta = hamming_distances(self._delta_bits, q)
        if allowed is not None:
            base[~_member(self._ids, allowed)] = FAR
            delta[~_member(self._delta_ids, allowed)] = FAR
        near_base = smallest(base, k)
        near_delta = smallest(delta, k)
        ids = np.concatenate([self._ids[near_base], self._delta_ids[near_delta]])
        dist = np.concatenate([base[near_base], delta[near_delta]])
        return ids[np.argsort(dist, kind="stable")[:k]].tolist()

    def _rescore(self, query: np.ndarray, ids: Sequence[int], depth: int) -> list[VectorHit]:
        if self._vectors is None:
            return self._nearest_of(query, ids, depth)
        found, similarity = self._kept_similarities(query, ids)
        if not found:
            return []
        top = np.argsort(-similarity, kind="stable")[:depth]
        # as Python numbers at once: indexing NumPy's arrays item by item cost a millisecond in all
        return [VectorHit(found[i], cosine) for i, cosine in zip(top.tolist(), similarity[top].tolist())]

    def _could_be_nearest(self, query: np.ndarray, ids: np.ndarray, depth: int) -> list[int]:
        """Those of `ids` (sorted) that may be among the `depth` nearest: those whose bytes
        (kept, or read from the code parts on disk) bound their cosine to reach the depth-th best
        lower bound, and every one not bounded (_bounds_of), so ranking these exactly gives the
        exact nearest of all `ids`."""
        bounded = self._bounds_of(query, ids, depth)
        if bounded is None:
            return ids.tolist()
        where, low, high = bounded
        reached = high >= _threshold(low, depth)
        self.bounded = (len(where), int(np.count_nonzero(reached)))
        keep = np.ones(len(ids), dtype=bool)
        keep[where] = reached
        return ids[keep].tolist()

    def _bounds_of(self, query: np.ndarray, ids: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Where among `ids` (sorted) the chunks are whose cosine with `query` the bytes bound,
        and those bounds (low, high): kept bytes bound every chunk in the parts but those changed
        since; without them, the code parts on disk (_bounded_by_codes). None where no more than
        `depth` are bounded (all are ranked exactly)."""
        if len(ids) <= depth:
            return None
        if self._vectors is None:
            return self._bounded_by_codes(query, ids, depth)
        run = None if self._delta else _held_run(self._ids, ids)
        if run is not None:  # a period's ids, all in the parts: their rows are one slice
            low, high = self._vectors.bounds(np.asarray(query, dtype=np.float32), run)
            return np.arange(len(ids)), low, high
        at, in_parts = _positions(self._ids, ids)
        if self._delta:
            in_parts &= ~np.isin(ids, np.fromiter(self._delta, dtype=np.int64, count=len(self._delta)))
        where = np.flatnonzero(in_parts)
        if len(where) <= depth:
            return None
        low, high = self._vectors.bounds(np.asarray(query, dtype=np.float32), at[where])
        return where, low, high

    def _boundable(self, ids: np.ndarray, most: int) -> bool:
        """Whether an exact search over `ids` (sorted) is cheap enough: they are at most
        BOUNDED_SHARE of the store, and at most `most` of them would be ranked from their float
        vectors unbounded (kept bytes bound every one in the parts; the code parts on disk those
        in parts that hold CODES_FROM of them)."""
        if len(ids) > len(self) * BOUNDED_SHARE:
            return False
        if self._vectors is not None:
            return True
        _, starts, stops = _code_runs(ids)
        sizes = stops - starts
        return int(sizes[sizes < CODES_FROM].sum()) <= most

    def _bounded_by_codes(self, query: np.ndarray, ids: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """_bounds_of where the vectors are not kept: the code parts on disk that hold at
        least CODES_FROM of `ids` are read in one statement and bound their rows (the same bounds
        as the kept bytes give); the rest of `ids` (in other parts, changed since the parts, or in
        a code part written after the parts this index holds) are ranked exactly, unbounded.
        Each part's codes are widened and multiplied as SQLite hands them over (one part's 400 KB
        held at a time: the 20 parts of a period of 20,000 held at once, 8 MB, made the allocator
        fault in fresh pages every search), and the bounds of the rows of every part are found in
        one pass afterwards."""
        owner, starts, stops = _code_runs(ids)
        big = stops - starts >= CODES_FROM
        if not big.any():
            return None
        runs = {int(owner[a]): (int(a), int(b)) for a, b in zip(starts[big], stops[big])}
        changed = np.fromiter(self._delta, dtype=np.int64, count=len(self._delta))
        q = unit(query)
        where, dots, terms = [], [], []
        for part, version, ids_blob, codes, terms_blob in self._conn.execute(
                "SELECT part, version, ids, codes, terms FROM vector_codes WHERE part IN (SELECT value FROM json_each(?))",
                (json.dumps(list(runs)),)):
            if version > self._parts_seq:  # newer than the parts in memory: its ids are ranked exactly
                continue
            a, b = runs[part]
            n = len(ids_blob) // 8
            matrix = np.frombuffer(codes, dtype=np.int8).reshape(n, -1)
            part_terms = np.frombuffer(terms_blob, dtype="<f4").reshape(3, -1)
            if n == b - a and not len(changed) and _one_run(ids_blob, int(ids[a]), int(ids[b - 1])):
                # the filter keeps every row of the part (most parts of a period): no search for them
                dots.append(code_dots(matrix, q))
                terms.append(part_terms)
                where.append(np.arange(a, b))
                continue
            at, hit = _positions(np.frombuffer(ids_blob, dtype="<i8"), ids[a:b])
            if len(changed):
                hit &= ~np.isin(ids[a:b], changed)
            rows = at[hit]
            dots.append(code_dots(matrix, q, rows))
            terms.append(part_terms[:, rows])
            where.append(a + np.flatnonzero(hit))
        if sum(len(w) for w in where) <= depth:
            return None
        every = np.concatenate(terms, axis=1)
        low, high = cosine_bounds(q, np.concatenate(dots), every[0], every[1], every[2])
        return np.concatenate(where), low, high

    def _nearest_of(self, query: np.ndarray, ids: Sequence[int], depth: int) -> list[VectorHit]:
        """The short list ranked exactly from the store: sqlite-vec's cosine distance over the
        float vectors of `ids` that are current, only the nearest `depth` handed back. A long
        list is ranked in slices on several connections at once: a vector whose page the OS has
        let go of is a disk read, and 1,000 of them one after another (a million chunks) were
        mostly waiting (75 ms against 27 ms in 4 slices, 10% of the pages on disk, load 19). The
        caller holds the lock."""
        order = sorted(int(i) for i in ids)
        if len(order) < PARALLEL_FROM or len(self) < PARALLEL_STORE:
            rows = self._ranked_on(self._conn, query, order, depth)
        else:
            pool = self._more_readers()
            conns = [self._conn, *self._more.conns]
            n = len(conns)
            slices = [order[len(order) * i // n:len(order) * (i + 1) // n] for i in range(n)]
            rest = [pool.submit(self._ranked_on, conn, query, part, depth)
                    for conn, part in zip(conns[1:], slices[1:])]
            rows = self._ranked_on(conns[0], query, slices[0], depth)
            for future in rest:
                rows += future.result()
            # each slice's nearest in (distance, id) order, merged: the order of one query over all
            rows = sorted(rows, key=lambda row: (row[1], row[0]))[:depth]
        return [VectorHit(cid, 1.0 - distance) for cid, distance in rows]

    def _ranked_on(self, conn: sqlean.Connection, query: np.ndarray, ids: list[int], depth: int) -> list[tuple[int, float]]:
        return conn.execute(
            """SELECT chunk_id, vec_distance_cosine(vector, ?) AS distance FROM chunk_embeddings
               WHERE generation = ? AND chunk_id IN (SELECT value FROM json_each(?))
               ORDER BY distance, chunk_id LIMIT ?""",
            (_blob(query), self._generation, json.dumps(ids), depth)).fetchall()

    def _more_readers(self) -> ThreadPoolExecutor:
        """The other connections a long list is ranked on and their threads, made on first use
        (a small page cache each: what they read is read once)."""
        if self._more.pool is None:
            for _ in range(READERS - 1):
                conn = open_reader(self._path, cache_mb=2, key=self._key)
                load_sqlite_vec(conn)
                self._more.conns.append(conn)
            self._more.pool = ThreadPoolExecutor(READERS - 1, thread_name_prefix="vectors")
        return self._more.pool

    def _kept_similarities(self, query: np.ndarray, ids: Sequence[int]) -> tuple[list[int], np.ndarray]:
        """The ids of `ids` that are current, and their kept vectors' dot products with `query`."""
        assert self._vectors is not None
        wanted = np.asarray(ids, dtype=np.int64)
        changed = np.fromiter(self._delta, dtype=np.int64, count=len(self._delta))
        # a part's row counts unless the log changed or deleted it since
        at = np.minimum(np.searchsorted(self._ids, wanted), max(len(self._ids) - 1, 0))
        in_parts = (self._ids[at] == wanted) & ~np.isin(wanted, changed) if len(self._ids) \
            else np.zeros(len(wanted), dtype=bool)
        found = wanted[in_parts].tolist()
        q = np.asarray(query, dtype=np.float32)
        similarity = [self._vectors.dots(q, at[in_parts])]
        newer = [cid for cid in wanted[~in_parts].tolist() if cid in self._delta_vectors]
        if newer:
            found += newer
            similarity.append(Bytes.joined([self._delta_vectors[cid] for cid in newer], self._dim).widened() @ q)
        return found, np.concatenate(similarity)


def hamming_distances(bits: np.ndarray, q: np.ndarray, *, out: np.ndarray | None = None) -> np.ndarray:
    """Hamming distance of every column of `bits` (words, n) to `q` (words,), as uint16 (into
    `out` when given)."""
    words, n = bits.shape
    out = np.empty(n, dtype=np.uint16) if out is None else out
    step = min(n, BLOCK)
    x = np.empty(step, dtype=np.uint64)
    ones = np.empty(step, dtype=np.uint8)
    for start in range(0, n, BLOCK):
        stop = min(n, start + BLOCK)
        m = stop - start
        acc = out[start:stop]
        for w in range(words):
            np.bitwise_xor(bits[w, start:stop], q[w], out=x[:m])
            np.bitwise_count(x[:m], out=ones[:m])
            if w == 0:
                acc[:] = ones[:m]
            else:
                np.add(acc, ones[:m], out=acc)
    return out


def smallest(dist: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k smallest distances under FAR, in no particular order. Distances are
    small integers, so a threshold from a sample's histogram finds them in one pass over the
    array, where a full partial sort would cost several."""
    n = len(dist)
    if n <= k:
        return np.flatnonzero(dist < FAR)
    step = max(1, n // 32768)
    counts = np.cumsum(np.bincount(dist[::step].astype(np.intp)))
    wanted = k / step * 1.5 + 16  # a margin: the sample only estimates the threshold
    threshold = min(int(np.searchsorted(counts, wanted)), FAR - 1)
    near = np.flatnonzero(dist <= threshold)
    if len(near) < k:
        near = np.argpartition(dist, k - 1)[:k]
    elif len(near) > k:
        near = near[np.argpartition(dist[near], k - 1)[:k]]
    return near[dist[near] < FAR]


@dataclass
class _Readers:
    conns: list[sqlean.Connection] = field(default_factory=list)
    pool: ThreadPoolExecutor | None = None


def _close(conn: sqlean.Connection, more: _Readers) -> None:
    if more.pool is not None:
        more.pool.shutdown(wait=True)
    for each in (conn, *more.conns):
        each.close()


def _blob(query: np.ndarray) -> bytes:
    """A query vector as sqlite-vec reads a float32 vector."""
    return np.asarray(query, dtype="<f4").tobytes()


def _code_runs(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The code part of each of `ids` (sorted), and where each part's run of them starts and stops."""
    owner = ids >> CODE_BITS
    starts = np.flatnonzero(np.concatenate([[True], owner[1:] != owner[:-1]]))
    return owner, starts, np.append(starts[1:], len(ids))


def _positions(held: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of `ids` (sorted, distinct) is among `held` (sorted, distinct), clipped to its
    rows, and whether it is held there: np.searchsorted's answer. A run of consecutive ids whose
    first and last are held as many rows apart as the run is long is held whole (`held` being
    sorted and distinct), so it is placed by its ends, not by a binary search per id (a period's
    20,000 ids among 100,000: 0.4 ms so); scattered ids are searched one by one."""
    n = len(ids)
    if not len(held) or not n:
        return np.zeros(n, dtype=np.intp), np.zeros(n, dtype=bool)
    if len(held) == n and np.array_equal(held, ids):  # a code part asked for whole
        return np.arange(n), np.ones(n, dtype=bool)
    last = len(held) - 1
    firsts = np.flatnonzero(np.diff(ids, prepend=ids[0] - 2) != 1)
    if len(firsts) * 8 > n:
        at = np.minimum(np.searchsorted(held, ids), last)
        return at, held[at] == ids
    lasts = np.append(firsts[1:], n) - 1
    a = np.minimum(np.searchsorted(held, ids[firsts]), last)
    e = np.minimum(np.searchsorted(held, ids[lasts]), last)
    whole = (held[a] == ids[firsts]) & (held[e] == ids[lasts]) & (e - a == lasts - firsts)
    lengths = lasts - firsts + 1
    at = np.repeat(a - firsts, lengths) + np.arange(n)
    if whole.all():
        return at, np.ones(n, dtype=bool)
    apart = np.repeat(~whole, lengths)
    at[apart] = np.minimum(np.searchsorted(held, ids[apart]), last)
    found = np.ones(n, dtype=bool)
    found[apart] = held[at[apart]] == ids[apart]
    return at, found


def _held_run(held: np.ndarray, ids: np.ndarray) -> slice | None:
    """The rows of `held` (sorted, distinct) that are `ids` (sorted, distinct), where `ids` are
    one run of consecutive ids held whole: found from its ends, with no pass over either."""
    n = len(ids)
    if not n or int(ids[-1]) - int(ids[0]) != n - 1:
        return None
    a = int(np.searchsorted(held, ids[0]))
    if a + n <= len(held) and held[a] == ids[0] and held[a + n - 1] == ids[-1]:
        return slice(a, a + n)
    return None


def _one_run(ids_blob: bytes, first: int, last: int) -> bool:
    """Whether a code part's ids (sorted int64) are exactly first, first + 1, ..., last: its
    first and last are those, and it holds last - first + 1 of them."""
    return (len(ids_blob) == 8 * (last - first + 1) and int.from_bytes(ids_blob[:8], "little", signed=True) == first
            and int.from_bytes(ids_blob[-8:], "little", signed=True) == last)


def _best(low: np.ndarray, depth: int) -> np.ndarray:
    """Where the `depth` largest of `low` are (in no order). The depth-th largest of every
    eighth is at most the depth-th largest of all, so only those at or above it are partitioned
    (20,000 lower bounds: about 40 against 170 µs for a partition of all)."""
    if len(low) <= depth:
        return np.arange(len(low))
    if len(low) >= 16 * depth:
        sample = low[::8]
        floor = np.partition(sample, len(sample) - depth)[len(sample) - depth]
        near = np.flatnonzero(low >= floor)
        return near[np.argpartition(low[near], len(near) - depth)[len(near) - depth:]]
    return np.argpartition(low, len(low) - depth)[len(low) - depth:]


def _threshold(low: np.ndarray, depth: int) -> float:
    """The depth-th best of the lower bounds: a row whose upper bound is below it is beaten by
    `depth` others."""
    return float(low[_best(low, depth)].min())


def _member(ids: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Which of `ids` are in `allowed` (sorted). Chunk ids are dense: a mark per id up to the
    largest (a megabyte per million) is looked up in one gather, where a binary search per id
    took 21 ms of a filtered scan at a million chunks (1.5 ms so); sparse ids are searched."""
    if not len(ids) or not len(allowed):
        return np.zeros(len(ids), dtype=bool)
    top = max(int(ids.max()), int(allowed[-1]))
    if int(min(ids.min(), allowed[0])) >= 0 and top <= 4 * (len(ids) + len(allowed)) + (1 << 20):
        marks = np.zeros(top + 1, dtype=bool)
        marks[allowed] = True
        return marks[ids]
    at = np.searchsorted(allowed, ids)
    inside = at < len(allowed)
    inside[inside] = allowed[at[inside]] == ids[inside]
    return inside
