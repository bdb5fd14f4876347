"""The multilingual space: a second set of vectors, of the multilingual model, for the chunks not
told as English, in a store whose own model (all-MiniLM-L6-v2) knows English only
(core/memory/multilingual.py decides when, search fuses it in). A table of its own, not a second
generation of chunk_embeddings: those are one model's, searched alone, with their sign bits kept in
step; these are a few thousand to tens of thousands, ranked exactly by sqlite-vec in one
statement, so there is nothing to keep in step. A chunk's vector goes with the chunk (forget:
ON DELETE CASCADE); the chunks it covers wait for one until the indexer fills them in. Outside
storage/vectors/ because `stats` counts it, and quick commands load nothing of that package."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from storage.chunks import ChunkFilter, StoredChunk, get_chunks_sync, small_talk_sync
from storage.db import load_sqlite_vec, open_reader

if TYPE_CHECKING:
    import numpy as np
    import sqlean

    from storage.db import Store
    from storage.encryption import StoreKey

#: the chunks the space covers. "told": those whose language was told and is not English, and
#: those too short to tell whose context's language is another (storage/language_context.py)
#: unless they are mostly small talk (migration 186's partial index has this very predicate, so
#: the planner reads only them). The rest of the text too short to tell (most windows of a chat:
#: a few short lines said again and again) stays out: on the life archive covering it too
#: measured no better, at five to eight times the chunks (README, "Other languages"). "all":
#: every chunk.
COVERS = {"told": """(language NOT IN ('en', '') OR (language = ''
           AND context_language NOT IN ('en', '') AND small_talk < 0.5))""", "all": "1"}
MODEL_KEY = "multilingual_model"  # meta: the model whose vectors the space holds, once it has some
LOG_KEEP = 20_000  # change-log rows writers keep (migration 184); a reader further behind reads all again
#: the most a long-running search keeps in memory of the space (float32): about 87,000 vectors
KEPT_BUDGET_BYTES = 128 << 20


@dataclass(frozen=True)
class WaitingChunk:
    id: int
    text: str
    text_hash: str  # identical texts share one vector


@dataclass(frozen=True)
class SpaceCounts:
    held: int  # chunks with a vector in the space
    waiting: int  # chunks it covers that have none yet


async def counts(conn: Store, *, cover: str) -> SpaceCounts:
    async with conn.execute("SELECT COUNT(*) FROM multilingual_vectors") as cur:
        held = (await cur.fetchone())[0]
    async with conn.execute(
        f"""SELECT COUNT(*) FROM chunks c WHERE {COVERS[cover]}
            AND NOT EXISTS (SELECT 1 FROM multilingual_vectors v WHERE v.chunk_id = c.id)"""
    ) as cur:
        return SpaceCounts(held, (await cur.fetchone())[0])


async def waiting(conn: Store, *, cover: str, after: int, limit: int) -> list[WaitingChunk]:
    """Covered chunks with no vector yet, by id from `after` on (a filler's cursor: each batch
    starts where the last stopped instead of reading the done ones again)."""
    async with conn.execute(
        f"""SELECT c.id, c.text, c.text_hash FROM chunks c WHERE {COVERS[cover]} AND c.id > ?
            AND NOT EXISTS (SELECT 1 FROM multilingual_vectors v WHERE v.chunk_id = c.id)
            ORDER BY c.id LIMIT ?""",
        (after, limit),
    ) as cur:
        return [WaitingChunk(*r) for r in await cur.fetchall()]


async def vectors_by_text_hash(conn: Store, hashes: Sequence[str]) -> dict[str, bytes]:
    """Vectors already in the space for identical texts (the same line said again is embedded once)."""
    out: dict[str, bytes] = {}
    for i in range(0, len(hashes), 500):
        part = list(hashes[i:i + 500])
        async with conn.execute(
            f"""SELECT c.text_hash, v.vector FROM chunks c JOIN multilingual_vectors v ON v.chunk_id = c.id
                WHERE c.text_hash IN ({','.join('?' * len(part))}) GROUP BY c.text_hash""", part,
        ) as cur:
            out.update((r[0], r[1]) for r in await cur.fetchall())
    return out


async def store(conn: Store, rows: Sequence[tuple[int, bytes]]) -> None:
    """Float32 vectors (as bytes) for chunk ids; a chunk forgotten meanwhile is skipped."""
    await conn.executemany(
        "INSERT OR REPLACE INTO multilingual_vectors (chunk_id, vector) SELECT ?, ? WHERE EXISTS "
        "(SELECT 1 FROM chunks WHERE id = ?)", [(cid, blob, cid) for cid, blob in rows])
    await prune_log(conn)


async def prune_log(conn: Store) -> None:
    """The change log down to its last LOG_KEEP rows (inside the caller's transaction)."""
    await conn.execute("DELETE FROM multilingual_log WHERE seq <= (SELECT MAX(seq) FROM multilingual_log) - ?",
                       (LOG_KEEP,))


async def clear(conn: Store) -> int:
    """The space emptied (the store's own model became a multilingual one); returns how many went."""
    cursor = await conn.execute("DELETE FROM multilingual_vectors")
    await conn.execute("DELETE FROM meta WHERE key = ?", (MODEL_KEY,))
    await prune_log(conn)
    return cursor.rowcount


def held_sync(conn: sqlean.Connection) -> bool:
    return conn.execute("SELECT EXISTS (SELECT 1 FROM multilingual_vectors)").fetchone()[0] == 1


def nearest_sync(conn: sqlean.Connection, query: np.ndarray, *, depth: int,
                 where: ChunkFilter = ChunkFilter()) -> list[tuple[int, float]]:
    """The `depth` chunks of the space nearest the query (cosine, best first), among those the
    filter keeps: every vector ranked by sqlite-vec (the connection must have it loaded)."""
    import numpy as np

    blob = np.asarray(query, dtype=np.float32).tobytes()
    if where.active:
        clause, params = where.where()
        sql = f"""SELECT v.chunk_id, vec_distance_cosine(v.vector, ?) AS distance FROM multilingual_vectors v
                  JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id
                  WHERE {clause} ORDER BY distance LIMIT ?"""
        rows = conn.execute(sql, [blob, *params, depth]).fetchall()
    else:
        rows = conn.execute("SELECT chunk_id, vec_distance_cosine(vector, ?) AS distance FROM multilingual_vectors "
                            "ORDER BY distance LIMIT ?", (blob, depth)).fetchall()
    return [(cid, 1.0 - distance) for cid, distance in rows]


@dataclass
class _Kept:
    """The space's vectors in memory, as of change-log position `seq`."""

    ids: np.ndarray  # int64, one per row of `matrix`
    matrix: np.ndarray  # float32 unit vectors (e5's are; normalised again on reading)
    seq: int


def _unit_rows(blobs: Sequence[bytes]) -> np.ndarray:
    import numpy as np

    matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1).copy()
    matrix /= np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
    return matrix


def _log_top(conn: sqlean.Connection) -> int:
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'multilingual_log'").fetchone()
    return int(row[0]) if row else 0


def _kept_now(conn: sqlean.Connection, kept: _Kept | None, budget: int) -> _Kept | None:
    """`kept` brought up to date from the change log, or the space read whole when there is no
    `kept` or the log no longer reaches back to it; None when the space outgrows `budget`.
    Runs inside one read transaction (a consistent snapshot)."""
    import numpy as np

    top = _log_top(conn)
    if kept is not None and kept.seq == top:
        return kept
    low = conn.execute("SELECT MIN(seq) FROM multilingual_log").fetchone()[0]
    if kept is not None and low is not None and low <= kept.seq + 1:
        changed = [r[0] for r in conn.execute(
            "SELECT DISTINCT chunk_id FROM multilingual_log WHERE seq > ?", (kept.seq,))]
        found: list[tuple[int, bytes]] = []
        for i in range(0, len(changed), 500):
            part = changed[i:i + 500]
            found += conn.execute(f"SELECT chunk_id, vector FROM multilingual_vectors WHERE chunk_id IN "
                                  f"({','.join('?' * len(part))})", part).fetchall()
        stay = ~np.isin(kept.ids, np.array(changed, dtype=np.int64))
        ids, matrix = kept.ids[stay], kept.matrix[stay]
        if found:
            ids = np.concatenate([ids, np.array([cid for cid, _ in found], dtype=np.int64)])
            new = _unit_rows([blob for _, blob in found])
            matrix = np.concatenate([matrix, new]) if len(matrix) else new
        return _Kept(ids, matrix, top) if matrix.nbytes <= budget else None
    row = conn.execute("SELECT COUNT(*), MAX(length(vector)) FROM multilingual_vectors").fetchone()
    if row[0] * (row[1] or 0) > budget:
        return None
    rows = conn.execute("SELECT chunk_id, vector FROM multilingual_vectors").fetchall()
    if not rows:
        return _Kept(np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32), top)
    return _Kept(np.array([r[0] for r in rows], dtype=np.int64), _unit_rows([r[1] for r in rows]), top)


def _nearest_kept(kept: _Kept, query: np.ndarray, depth: int) -> list[tuple[int, float]]:
    import numpy as np

    if not len(kept.ids) or depth <= 0:
        return []
    q = np.asarray(query, dtype=np.float32)
    cosines = kept.matrix @ (q / max(float(np.linalg.norm(q)), 1e-12))
    k = min(depth, len(cosines))
    top = np.argpartition(-cosines, k - 1)[:k]
    top = top[np.argsort(-cosines[top], kind="stable")]
    return [(int(kept.ids[i]), float(cosines[i])) for i in top]


class SpaceReader:
    """The space read through a connection of its own (committed data only, sqlite-vec loaded),
    from worker threads: see Searcher. Opened on first use. A long-running process keeps the
    vectors in memory (`keep`): unfiltered searches rank them with NumPy (30,000 in about 15 ms,
    against 120 ms in SQL) after applying the change log (migration 184); filtered ones, and a
    space past the budget, are ranked by sqlite-vec."""

    def __init__(self, path: Path | str, *, key: StoreKey | None = None) -> None:
        self._path, self._key = path, key
        self._conn: sqlean.Connection | None = None
        self._vec = False
        self._lock = threading.Lock()
        self._budget = 0  # bytes the kept vectors may take; 0: none kept
        self._kept: _Kept | None = None
        self._too_big_at = -1  # the log position at which the space was found past the budget

    def keep(self, budget_bytes: int = KEPT_BUDGET_BYTES) -> None:
        with self._lock:
            self._budget, self._kept, self._too_big_at = budget_bytes, None, -1

    def _connection(self, *, vec: bool = True) -> sqlean.Connection:
        """The reader, opened on first use; sqlite-vec loaded once a search needs it (an English
        store only ever asks `held`)."""
        if self._conn is None:
            self._conn = open_reader(self._path, cache_mb=8, key=self._key)
        if vec and not self._vec:
            load_sqlite_vec(self._conn)
            self._vec = True
        return self._conn

    def held(self) -> bool:
        """Whether the space holds any vector (search asks before embedding the question)."""
        with self._lock:
            return held_sync(self._connection(vec=False))

    def refresh(self) -> None:
        """Catch the kept vectors up with the store (one small query when nothing changed)."""
        with self._lock:
            self._refresh()

    def _refresh(self) -> None:
        if not self._budget:
            return
        conn = self._connection(vec=False)
        conn.execute("BEGIN")  # one consistent snapshot of the log and the vectors
        try:
            top = _log_top(conn)
            if self._kept is None and self._too_big_at == top:
                return  # past the budget, and nothing changed since: not counted again
            self._kept = _kept_now(conn, self._kept, self._budget)
            self._too_big_at = top if self._kept is None else -1
        finally:
            conn.execute("COMMIT")

    def nearest(self, query: np.ndarray, *, depth: int, where: ChunkFilter = ChunkFilter()) -> list[tuple[int, float]]:
        with self._lock:
            if self._budget and not where.active:
                self._refresh()
                if self._kept is not None:
                    return _nearest_kept(self._kept, query, depth)
            return nearest_sync(self._connection(), query, depth=depth, where=where)

    def small_talk(self, ids: Sequence[int]) -> dict[int, float]:
        with self._lock:
            return small_talk_sync(self._connection(vec=False), ids)

    def chunks(self, ids: Sequence[int]) -> dict[int, StoredChunk]:
        with self._lock:
            return get_chunks_sync(self._connection(vec=False), ids)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn, self._vec, self._kept = None, False, None
