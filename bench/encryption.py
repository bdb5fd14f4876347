"""What encryption at rest costs: writing passages into the store (the storage half of ingest:
chunks, the keyword index's trigger, vectors and their sign bits) and keyword and hybrid search,
on a store in the clear and on the same store encrypted with SQLCipher, in one run.

    python bench/encryption.py bench/stores/enc --chunks 100000 --runs 200

Both stores are built by bench/latency.py's `build` from the same seed (the same texts and
vectors), one after the other, then searched with the same queries and precomputed query vectors
(query embedding excluded), interleaved query by query so that both see the same machine load.
Embedding, which dominates a real import (about 10 chunks/s on two cores, README "Ingest"), does
not change with encryption and is left out, so the ingest ratio is the worst case.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.latency import _Dim, build, percentiles, workload  # noqa: E402
from core.memory.search import Searcher  # noqa: E402
from storage import encryption  # noqa: E402
from storage.db import open_database  # noqa: E402

MODES = ("keyword", "hybrid")


async def timed_build(path: Path, n: int, key) -> float:
    if path.exists():
        shutil.rmtree(path)
    started = time.perf_counter()
    await build(path, n, key=key)
    return time.perf_counter() - started


async def search_both(clear: Path, sealed: Path, key, runs: int, warmup: int) -> dict:
    queries, vectors = workload(runs + warmup)
    timings = {side: {m: [] for m in MODES} for side in ("clear", "encrypted")}
    async with open_database(clear / "biographer.sqlite3") as plain_conn, \
            open_database(sealed / "biographer.sqlite3", key=key) as sealed_conn:
        searchers = {"clear": Searcher(plain_conn, _Dim()), "encrypted": Searcher(sealed_conn, _Dim())}
        for searcher in searchers.values():
            await searcher.warm_up()
        for i, (q, v) in enumerate(zip(queries, vectors)):
            order = ("clear", "encrypted") if i % 2 == 0 else ("encrypted", "clear")
            for side in order:
                for mode in MODES:
                    t = time.perf_counter()
                    hits = await searchers[side].search(q, limit=10, mode=mode, query_vector=v)
                    if i >= warmup:
                        timings[side][mode].append((time.perf_counter() - t) * 1000)
                    assert hits, (side, mode, q)
        for searcher in searchers.values():
            searcher.close()
    return {side: {m: percentiles(t) for m, t in by_mode.items()} for side, by_mode in timings.items()}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    salt = os.urandom(16)
    t = time.perf_counter()
    key = encryption.derive("a benchmark passphrase", salt)
    derive_s = time.perf_counter() - t
    clear, sealed = args.folder / "clear", args.folder / "encrypted"
    build_clear = await timed_build(clear, args.chunks, None)
    build_sealed = await timed_build(sealed, args.chunks, key)
    searched = await search_both(clear, sealed, key, args.runs, args.warmup)
    ratio = {m: round(searched["encrypted"][m]["p50_ms"] / searched["clear"][m]["p50_ms"], 2) for m in MODES}
    print(json.dumps({
        "chunks": args.chunks, "load": os.getloadavg()[0], "scrypt_s": round(derive_s, 2),
        "ingest_s": {"clear": round(build_clear, 1), "encrypted": round(build_sealed, 1),
                     "ratio": round(build_sealed / build_clear, 2)},
        "search": searched, "search_ratio_p50": ratio,
        "db_mb": {side: round((args.folder / side / "biographer.sqlite3").stat().st_size / 2**20)
                  for side in ("clear", "encrypted")},
    }, indent=1))


if __name__ == "__main__":
    asyncio.run(main())
