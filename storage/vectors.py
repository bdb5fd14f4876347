"""Embeddings: full-precision vectors for rescoring plus a bit-quantised sqlite-vec index.

Why two: a float32 vec0 scan at 1M chunks takes about 0.9 s here, a 1-bit scan about a quarter of
that (48 MB of sign bits instead of 1.5 GB). The bit index finds a generous short list, the float
vectors of only that list are read back to rank it exactly. Nothing is held in RAM between queries.
"""

from __future__ import annotations

from collections.abc import Sequence

import aiosqlite
import numpy as np

VECTOR_TABLE = "chunk_vectors"


async def ensure_vector_index(conn: aiosqlite.Connection, dim: int) -> None:
    await conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {VECTOR_TABLE} USING vec0(embedding bit[{dim}])"
    )


async def drop_vector_index(conn: aiosqlite.Connection) -> None:
    await conn.execute(f"DROP TABLE IF EXISTS {VECTOR_TABLE}")
    await conn.execute("DELETE FROM chunk_embeddings")
    await conn.execute("UPDATE chunks SET embedded = 0")


async def pending_chunks(conn: aiosqlite.Connection, *, limit: int) -> list[tuple[int, str, str]]:
    """(id, text, text_hash) of chunks that have no vector yet, oldest first."""
    async with conn.execute(
        "SELECT id, text, text_hash FROM chunks WHERE embedded = 0 ORDER BY id LIMIT ?", (limit,)
    ) as cur:
        return [(r[0], r[1], r[2]) for r in await cur.fetchall()]


async def vectors_by_text_hash(
    conn: aiosqlite.Connection, hashes: Sequence[str]
) -> dict[str, bytes]:
    """Vectors already computed for identical texts, so the same text is embedded once."""
    if not hashes:
        return {}
    marks = ",".join("?" * len(hashes))
    async with conn.execute(
        f"""SELECT c.text_hash, e.vector FROM chunks c JOIN chunk_embeddings e ON e.chunk_id = c.id
            WHERE c.text_hash IN ({marks}) GROUP BY c.text_hash""",
        list(hashes),
    ) as cur:
        return {r[0]: r[1] for r in await cur.fetchall()}


async def store_vectors(conn: aiosqlite.Connection, rows: Sequence[tuple[int, bytes]]) -> None:
    """Save float32 vectors (as bytes) for chunk ids and index their sign bits."""
    await conn.executemany(
        "INSERT OR REPLACE INTO chunk_embeddings (chunk_id, vector) VALUES (?, ?)", rows
    )
    await conn.executemany(f"DELETE FROM {VECTOR_TABLE} WHERE rowid = ?", [(i,) for i, _ in rows])
    await conn.executemany(
        f"INSERT INTO {VECTOR_TABLE} (rowid, embedding) VALUES (?, vec_quantize_binary(?))", rows
    )
    await conn.executemany("UPDATE chunks SET embedded = 1 WHERE id = ?", [(i,) for i, _ in rows])


async def bit_candidates(conn: aiosqlite.Connection, query: np.ndarray, *, k: int) -> list[int]:
    """Chunk ids nearest to `query` by Hamming distance of the sign bits."""
    async with conn.execute(
        f"SELECT rowid FROM {VECTOR_TABLE} WHERE embedding MATCH vec_quantize_binary(?) AND k = ?",
        (query.astype(np.float32).tobytes(), k),
    ) as cur:
        return [r[0] for r in await cur.fetchall()]


async def float_vectors(
    conn: aiosqlite.Connection, ids: Sequence[int], dim: int
) -> tuple[list[int], np.ndarray]:
    """The stored float vectors of `ids` (those that have one), as a matrix."""
    found: list[int] = []
    blobs: list[bytes] = []
    for i in range(0, len(ids), 500):
        part = list(ids[i:i + 500])
        async with conn.execute(
            f"SELECT chunk_id, vector FROM chunk_embeddings WHERE chunk_id IN ({','.join('?' * len(part))})",
            part,
        ) as cur:
            for row in await cur.fetchall():
                found.append(row[0])
                blobs.append(row[1])
    if not blobs:
        return [], np.zeros((0, dim), dtype=np.float32)
    return found, np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
