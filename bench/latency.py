"""Search latency over a synthetic store, query embedding excluded.

    python bench/latency.py build /tmp/lat100k --chunks 100000
    python bench/latency.py query /tmp/lat100k --runs 100

`build` writes the store through the storage layer (the real schema, FTS5 triggers and the
bit-quantised vec0 index): short texts drawn from a Zipf-distributed vocabulary (so the keyword
index has realistic postings: a few very common words, a long tail of rare ones) and random unit
384-dim vectors. `query` runs in a fresh process so its peak RSS is the search's alone: hybrid
searches (limit 10) with precomputed query vectors, reporting p50/p95 and peak RSS (getrusage).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.search import Searcher  # noqa: E402
from storage import chunks as chunk_store  # noqa: E402
from storage import documents as document_store  # noqa: E402
from storage import vectors as vector_store  # noqa: E402
from storage.db import open_database, transaction  # noqa: E402
from storage.meta import set_meta  # noqa: E402

DIM = 384
VOCAB = 50_000
WORDS_PER_CHUNK = (40, 120)  # about 250-750 characters
BATCH = 5_000
SEED = 7


def vocabulary(rng: np.random.Generator) -> list[str]:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words: dict[str, None] = {}
    while len(words) < VOCAB:
        n = int(rng.integers(3, 11))
        words["".join(rng.choice(letters, n))] = None
    return list(words)


def zipf_probabilities() -> np.ndarray:
    p = 1.0 / np.arange(1, VOCAB + 1) ** 1.07
    return p / p.sum()


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM), dtype=np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


async def _chunk_id(conn, identity: str) -> int:
    async with conn.execute("SELECT id FROM chunks WHERE identity = ?", (identity,)) as cur:
        return (await cur.fetchone())[0]


async def build(path: Path, n: int) -> None:
    rng = np.random.default_rng(SEED)
    words = np.array(vocabulary(rng))
    p = zipf_probabilities()
    path.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    async with open_database(path / "biographer.sqlite3") as conn:
        async with transaction(conn):
            await set_meta(conn, "embedding_model", "synthetic-random")
            await set_meta(conn, "embedding_dim", str(DIM))
            await vector_store.ensure_vector_index(conn, DIM)
            doc = await document_store.insert_document(
                conn, kind="text", name="synthetic.txt", identity="synthetic", source_path=None,
                content_hash=None, byte_size=None, raw_path=None)
        offset = 0
        for first in range(0, n, BATCH):
            size = min(BATCH, n - first)
            lengths = rng.integers(*WORDS_PER_CHUNK, size=size)
            drawn = words[rng.choice(VOCAB, size=int(lengths.sum()), p=p)]
            records, at = [], 0
            for i, length in enumerate(lengths):
                text = " ".join(drawn[at:at + length])
                at += length
                records.append(chunk_store.ChunkRecord(
                    document_id=doc, ordinal=first + i, char_start=offset, char_end=offset + len(text),
                    text=text, time_start=None, time_end=None, speakers=(),
                    identity=f"synthetic|{first + i}", text_hash=f"{first + i:040x}"))
                offset += len(text) + 1
            vectors = unit_vectors(rng, size)
            async with transaction(conn):
                await chunk_store.insert_chunks(conn, records)
                lo = await _chunk_id(conn, records[0].identity)  # one transaction: ids are consecutive
                hi = await _chunk_id(conn, records[-1].identity)
                await vector_store.store_vectors(
                    conn, [(cid, vectors[j].tobytes()) for j, cid in enumerate(range(lo, hi + 1))])
            done = first + size
            if done % 50_000 == 0 or done == n:
                print(f"{done} chunks, {time.perf_counter() - started:.0f} s", flush=True)
        async with transaction(conn):
            await document_store.finish_document(conn, doc, chunk_count=n, text_length=offset,
                                                 time_start=None, time_end=None)
        await conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    print(json.dumps({"chunks": n, "build_s": round(time.perf_counter() - started, 1),
                      "db_mb": round((path / "biographer.sqlite3").stat().st_size / 2**20)}))


class _Dim:
    """Only the dimension is read when a query vector is passed in."""
    name, dim = "synthetic-random", DIM

    def embed(self, texts):  # pragma: no cover - never called
        raise AssertionError("the query vector is precomputed")


async def query(path: Path, runs: int, warmup: int) -> dict:
    rng = np.random.default_rng(SEED + 1)
    words = np.array(vocabulary(np.random.default_rng(SEED)))
    p = zipf_probabilities()
    queries = []
    for _ in range(runs + warmup):
        # like a question after its stop words are dropped: a few common words and one or two
        # rarer ones (the top 100 of a Zipf vocabulary stand for the function words dropped)
        common = words[rng.integers(100, 2000, size=int(rng.integers(2, 5)))]
        rare = words[rng.integers(2000, VOCAB, size=int(rng.integers(1, 3)))]
        queries.append(" ".join([*common, *rare]))
    vectors = unit_vectors(rng, len(queries))
    timings = {"hybrid": [], "keyword": [], "semantic": []}
    async with open_database(path / "biographer.sqlite3") as conn:
        searcher = Searcher(conn, _Dim())
        for mode in timings:
            for i, (q, v) in enumerate(zip(queries, vectors)):
                t = time.perf_counter()
                hits = await searcher.search(q, limit=10, mode=mode, query_vector=v)
                if i >= warmup:
                    timings[mode].append((time.perf_counter() - t) * 1000)
                assert hits, q
    out = {"store": str(path), "runs": runs}
    for mode, ts in timings.items():
        ts.sort()
        out[mode] = {"p50_ms": round(statistics.median(ts), 1),
                     "p95_ms": round(ts[int(round(0.95 * (len(ts) - 1)))], 1)}
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    del p
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("path", type=Path)
    b.add_argument("--chunks", type=int, default=100_000)
    q = sub.add_parser("query")
    q.add_argument("path", type=Path)
    q.add_argument("--runs", type=int, default=100)
    q.add_argument("--warmup", type=int, default=10)
    args = ap.parse_args()
    if args.cmd == "build":
        asyncio.run(build(args.path, args.chunks))
    else:
        print(json.dumps(asyncio.run(query(args.path, args.runs, args.warmup))))


if __name__ == "__main__":
    main()
