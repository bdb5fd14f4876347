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

#: the chunks the space covers. "told": those whose language was told and is not English
#: (migration 183's partial index has this very predicate, so the planner reads only them); text
#: too short to tell (most windows of a chat: a few short lines) stays out: on the life archive
#: covering it too measured no better, at five to eight times the chunks (README, "Other
#: languages"). "all": every chunk.
COVERS = {"told": "language NOT IN ('en', '')", "all": "1"}
MODEL_KEY = "multilingual_model"  # meta: the model whose vectors the space holds, once it has some


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


async def clear(conn: Store) -> int:
    """The space emptied (the store's own model became a multilingual one); returns how many went."""
    cursor = await conn.execute("DELETE FROM multilingual_vectors")
    await conn.execute("DELETE FROM meta WHERE key = ?", (MODEL_KEY,))
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


class SpaceReader:
    """The space read through a connection of its own (committed data only, sqlite-vec loaded),
    from worker threads: see Searcher. Opened on first use."""

    def __init__(self, path: Path | str, *, key: StoreKey | None = None) -> None:
        self._path, self._key = path, key
        self._conn: sqlean.Connection | None = None
        self._vec = False
        self._lock = threading.Lock()

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

    def nearest(self, query: np.ndarray, *, depth: int, where: ChunkFilter = ChunkFilter()) -> list[tuple[int, float]]:
        with self._lock:
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
                self._conn, self._vec = None, False
