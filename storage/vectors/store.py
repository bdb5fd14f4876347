"""Embeddings: full-precision vectors (the store of record) and their sign bits in parts.

Why sign bits: a query compares itself with every vector's 384 sign bits (48 bytes, 48 MB per
million chunks) by Hamming distance, which takes a few milliseconds in memory, then ranks that
short list exactly with the float vectors read by id. index.py beside it holds the bits in
memory and keeps them in step with this store; this module is the writing side.

How the bits stay in step, crash-safely and across processes: every insert, replacement or
deletion of a float vector is logged in `vector_log` by triggers, in the same transaction.
`vector_parts` holds the sign bits of all current vectors in parts of 2**PART_BITS chunk ids,
as of log position `vector_parts_seq`; a reader loads the parts once, then applies the log since
that position, so a committed batch is searchable at once and a deleted chunk is gone at once.
Writers fold the log into the parts now and then (`fold_log`) and prune it, all in one
transaction: nothing outside SQLite can go stale. `vector_codes` holds the same vectors at a byte
per dimension (codes.py), in smaller parts folded in the same transactions, so a search that does
not keep the vectors can still bound a filter's cosines without reading its float vectors.

A vector belongs to a generation (one per embedding model); `reindex` with another model starts
a new one, and only the current generation is searched. Old vectors stay until replaced.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from storage.vectors.codes import CODE_BITS, Bytes

if TYPE_CHECKING:
    from storage.db import Store

#: chunks.embedded: 0 waits for a vector; 1 has one of its text; 2 withheld from a remote embedding
#: endpoint by the owner's policy (no vector); 3 has one of its descriptor only (core/privacy/disclosure.py)
WAITING, OF_TEXT, WITHHELD, OF_DESCRIPTOR = 0, 1, 2, 3
PART_BITS = 12  # parts of 4096 chunk ids: folding new vectors rewrites about 200 KB
FOLD_ROWS = 1024  # log rows that make a writer fold the log into the parts
GENERATION_KEY = "vector_generation"
PARTS_SEQ_KEY = "vector_parts_seq"


def sign_words(vectors: np.ndarray) -> np.ndarray:
    """Sign bits (1 where positive) of each row, packed in 64-bit words, shape (words, rows):
    one row per word, so a scan reads each word of every vector as one contiguous run."""
    v = np.asarray(vectors, dtype=np.float32)
    v = v.reshape(len(v), -1)
    packed = np.packbits(v > 0, axis=1, bitorder="little")
    padded = np.zeros((len(v), -(-v.shape[1] // 64) * 8), dtype=np.uint8)
    padded[:, :packed.shape[1]] = packed
    return np.ascontiguousarray(padded.view("<u8").T)


async def _int_meta(conn: Store, key: str) -> int:
    async with conn.execute("SELECT value FROM meta WHERE key = ?", (key,)) as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def _set_int_meta(conn: Store, key: str, value: int) -> None:
    await conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, str(value)),
    )


async def generation(conn: Store) -> int:
    """The generation new vectors are written in (and the only one searched)."""
    return await _int_meta(conn, GENERATION_KEY)


@dataclass(frozen=True)
class UnembeddedChunk:
    id: int
    text: str
    text_hash: str  # identical texts share one vector


async def pending_chunks(conn: Store, *, limit: int) -> list[UnembeddedChunk]:
    """Chunks that have no vector yet, oldest first."""
    async with conn.execute(
        "SELECT id, text, text_hash FROM chunks WHERE embedded = 0 ORDER BY id LIMIT ?", (limit,)
    ) as cur:
        return [UnembeddedChunk(*r) for r in await cur.fetchall()]


async def vectors_by_text_hash(
    conn: Store, hashes: Sequence[str]
) -> dict[str, bytes]:
    """Fresh vectors already computed for identical texts, so the same text is embedded once.
    Only chunks embedded from their text count: during a reindex the others hold vectors being
    replaced, and a descriptor's vector is not the text's."""
    if not hashes:
        return {}
    marks = ",".join("?" * len(hashes))
    async with conn.execute(
        f"""SELECT c.text_hash, e.vector FROM chunks c JOIN chunk_embeddings e ON e.chunk_id = c.id
            WHERE c.text_hash IN ({marks}) AND c.embedded = {OF_TEXT} GROUP BY c.text_hash""",
        list(hashes),
    ) as cur:
        return {r[0]: r[1] for r in await cur.fetchall()}


async def store_vectors(conn: Store, rows: Sequence[tuple[int, bytes]], *,
                        generation: int, state: int = OF_TEXT) -> None:
    """Save float32 vectors (as bytes) for chunk ids, replacing any older ones; the caller's
    transaction makes them searchable when it commits."""
    await conn.executemany(
        "INSERT OR REPLACE INTO chunk_embeddings (chunk_id, vector, generation) VALUES (?, ?, ?)",
        [(cid, blob, generation) for cid, blob in rows],
    )
    await conn.executemany("UPDATE chunks SET embedded = ? WHERE id = ?", [(state, i) for i, _ in rows])
    if await fold_due(conn):
        await fold_log(conn)


async def withhold(conn: Store, chunk_ids: Sequence[int]) -> None:
    """These chunks get no vector (any they had is deleted: the index follows through the log)."""
    for i in range(0, len(chunk_ids), 500):
        part = list(chunk_ids[i:i + 500])
        marks = ",".join("?" * len(part))
        await conn.execute(f"DELETE FROM chunk_embeddings WHERE chunk_id IN ({marks})", part)
        await conn.execute(f"UPDATE chunks SET embedded = {WITHHELD} WHERE id IN ({marks})", part)
    if await fold_due(conn):
        await fold_log(conn)


async def withhold_documents(conn: Store, document_ids: Sequence[int]) -> int:
    """Every chunk of these documents withheld (see `withhold`); returns how many."""
    ids: list[int] = []
    for i in range(0, len(document_ids), 500):
        part = list(document_ids[i:i + 500])
        async with conn.execute(f"SELECT id FROM chunks WHERE document_id IN ({','.join('?' * len(part))})",
                                part) as cur:
            ids += [r[0] for r in await cur.fetchall()]
    await withhold(conn, ids)
    return len(ids)


async def mark_documents_pending(conn: Store, document_ids: Sequence[int]) -> int:
    """The chunks of these documents wait for a vector again (their old ones serve meanwhile)."""
    changed = 0
    for i in range(0, len(document_ids), 500):
        part = list(document_ids[i:i + 500])
        cursor = await conn.execute(
            f"UPDATE chunks SET embedded = {WAITING} WHERE document_id IN ({','.join('?' * len(part))})", part)
        changed += cursor.rowcount
    return changed


async def mark_all_for_reindex(conn: Store) -> None:
    """Every chunk waits for a fresh vector; the vectors it has stay until replaced."""
    await conn.execute("UPDATE chunks SET embedded = 0 WHERE embedded != 0")


async def start_generation(conn: Store) -> int:
    """A new embedding model: vectors written from now on belong to a new generation and only
    they are searched; the old ones stay (unsearched) until replaced chunk by chunk."""
    new = await generation(conn) + 1
    await _set_int_meta(conn, GENERATION_KEY, new)
    await conn.execute("DELETE FROM vector_parts")
    await conn.execute("DELETE FROM vector_codes")
    await _set_int_meta(conn, PARTS_SEQ_KEY, await _log_top(conn))
    await conn.execute("DELETE FROM vector_log")
    return new


async def _log_top(conn: Store) -> int:
    """The last log position ever handed out (AUTOINCREMENT never reuses one once committed)."""
    async with conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'vector_log'") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def fold_due(conn: Store) -> bool:
    """Whether FOLD_ROWS changes wait in the log (each search applies them all, so keep it short)."""
    async with conn.execute(
        "SELECT COUNT(*) FROM vector_log WHERE seq > ?", (await _int_meta(conn, PARTS_SEQ_KEY),)
    ) as cur:
        return (await cur.fetchone())[0] >= FOLD_ROWS


async def fold_log(conn: Store) -> int:
    """Fold the logged vector changes into the parts and prune the log (inside the caller's
    transaction); returns how many chunks changed."""
    since = await _int_meta(conn, PARTS_SEQ_KEY)
    top = await _log_top(conn)
    async with conn.execute(
        "SELECT DISTINCT chunk_id FROM vector_log WHERE seq > ? ORDER BY chunk_id", (since,)
    ) as cur:
        changed = np.array([r[0] for r in await cur.fetchall()], dtype=np.int64)
    gen = await generation(conn)
    parts = changed >> PART_BITS
    for part in np.unique(parts):
        ids_here = changed[parts == part]
        found, matrix = await _vectors(conn, ids_here.tolist(), generation=gen)
        await _fold_codes(conn, ids_here, np.array(found, dtype=np.int64), matrix, version=top)
        old_ids, old_words = await _read_part(conn, int(part))
        keep = ~np.isin(old_ids, ids_here)
        id_pieces, word_pieces = [old_ids[keep]], [old_words[:, keep]] if len(old_ids) else []
        if found:
            id_pieces.append(np.array(found, dtype=np.int64))
            word_pieces.append(sign_words(matrix))
        ids = np.concatenate(id_pieces)
        if len(ids) == 0:
            await conn.execute("DELETE FROM vector_parts WHERE part = ?", (int(part),))
            continue
        words = np.concatenate(word_pieces, axis=1)
        order = np.argsort(ids, kind="stable")
        await _write_part(conn, int(part), ids[order], words[:, order], version=top)
    await _set_int_meta(conn, PARTS_SEQ_KEY, top)
    await conn.execute("DELETE FROM vector_log WHERE seq <= ?", (top,))
    return len(changed)


async def rebuild_parts(conn: Store, *, codes: bool = True) -> int:
    """All parts built afresh from the float vectors of the current generation (migration,
    repair); returns the number of vectors. Streams part by part: memory stays small. `codes`:
    the code parts too (False only in a migration older than their table)."""
    gen = await generation(conn)
    top = await _log_top(conn)
    await conn.execute("DELETE FROM vector_parts")
    if codes:
        await conn.execute("DELETE FROM vector_codes")
    total = 0
    current, ids, blobs = None, [], []
    async with conn.execute(
        "SELECT chunk_id, vector FROM chunk_embeddings WHERE generation = ? ORDER BY chunk_id", (gen,)
    ) as cur:
        async for chunk_id, blob in cur:
            part = chunk_id >> PART_BITS
            if part != current and ids:
                await _write_blobs(conn, current, ids, blobs, version=top, codes=codes)
                total += len(ids)
                ids, blobs = [], []
            current = part
            ids.append(chunk_id)
            blobs.append(blob)
    if ids:
        await _write_blobs(conn, current, ids, blobs, version=top, codes=codes)
        total += len(ids)
    await _set_int_meta(conn, PARTS_SEQ_KEY, top)
    await conn.execute("DELETE FROM vector_log WHERE seq <= ?", (top,))
    return total


async def _write_blobs(conn: Store, part: int, ids: list[int], blobs: list[bytes], *,
                       version: int, codes: bool) -> None:
    matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
    found = np.array(ids, dtype=np.int64)
    await _write_part(conn, part, found, sign_words(matrix), version=version)
    if codes:
        await _fold_codes(conn, found, found, matrix, version=version)


async def _fold_codes(conn: Store, changed: np.ndarray, found: np.ndarray, matrix: np.ndarray, *,
                      version: int) -> None:
    """Rewrite the code parts that hold `changed` ids: their other rows as they were, and the
    current vectors of the changed ones (`found`, the rows of `matrix`; a changed id not found
    has lost its vector)."""
    owner = found >> CODE_BITS
    for part in np.unique(changed >> CODE_BITS):
        part = int(part)
        old_ids, old = await _read_codes(conn, part)
        keep = np.flatnonzero(~np.isin(old_ids, changed))
        here = owner == part
        pieces = [old.rows(keep)] if len(keep) else []
        if here.any():
            pieces.append(Bytes.of(matrix[here]))
        ids = np.concatenate([old_ids[keep], found[here]])
        if not len(ids):
            await conn.execute("DELETE FROM vector_codes WHERE part = ?", (part,))
            continue
        order = np.argsort(ids, kind="stable")
        codes, terms = Bytes.joined(pieces, pieces[0].codes.shape[1]).rows(order).blobs()
        await conn.execute(
            "INSERT OR REPLACE INTO vector_codes (part, version, ids, codes, terms) VALUES (?, ?, ?, ?, ?)",
            (part, version, ids[order].astype("<i8").tobytes(), codes, terms))


async def _read_codes(conn: Store, part: int) -> tuple[np.ndarray, Bytes]:
    async with conn.execute("SELECT ids, codes, terms FROM vector_codes WHERE part = ?", (part,)) as cur:
        row = await cur.fetchone()
    if row is None:
        return np.zeros(0, dtype=np.int64), Bytes.joined([], 0)
    return np.frombuffer(row[0], dtype="<i8"), Bytes.from_blobs(row[1], row[2])


async def _read_part(conn: Store, part: int) -> tuple[np.ndarray, np.ndarray]:
    async with conn.execute("SELECT ids, bits FROM vector_parts WHERE part = ?", (part,)) as cur:
        row = await cur.fetchone()
    if row is None:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.uint64)
    return part_arrays(row[0], row[1])


def part_arrays(ids_blob: bytes, bits_blob: bytes) -> tuple[np.ndarray, np.ndarray]:
    """A stored part as (sorted chunk ids, sign words of shape (words, ids))."""
    ids = np.frombuffer(ids_blob, dtype="<i8")
    words = np.frombuffer(bits_blob, dtype="<u8")
    return ids, words.reshape(-1, len(ids)) if len(ids) else words.reshape(0, 0)


async def _write_part(conn: Store, part: int, ids: np.ndarray, words: np.ndarray, *,
                      version: int) -> None:
    await conn.execute(
        "INSERT OR REPLACE INTO vector_parts (part, version, ids, bits) VALUES (?, ?, ?, ?)",
        (part, version, ids.astype("<i8").tobytes(), np.ascontiguousarray(words, dtype="<u8").tobytes()),
    )


async def _vectors(conn: Store, ids: Sequence[int], *,
                   generation: int) -> tuple[list[int], np.ndarray]:
    found: list[int] = []
    blobs: list[bytes] = []
    for i in range(0, len(ids), 500):
        part = list(ids[i:i + 500])
        async with conn.execute(
            f"SELECT chunk_id, vector FROM chunk_embeddings WHERE generation = ? "
            f"AND chunk_id IN ({','.join('?' * len(part))})",
            (generation, *part),
        ) as cur:
            for row in await cur.fetchall():
                found.append(row[0])
                blobs.append(row[1])
    if not blobs:
        return [], np.zeros((0, 0), dtype=np.float32)
    return found, np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)


@dataclass(frozen=True)
class FloatVectors:
    ids: list[int]  # those of the asked ids that have a current vector
    matrix: np.ndarray  # one row per id, in the same order


async def float_vectors(conn: Store, ids: Sequence[int], dim: int) -> FloatVectors:
    """The current float vectors of `ids` (those that have one), as a matrix."""
    found, matrix = await _vectors(conn, ids, generation=await generation(conn))
    return FloatVectors(found, matrix if found else np.zeros((0, dim), dtype=np.float32))
