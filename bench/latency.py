"""Search latency, memory, short-list recall and insert cost over a synthetic store, beside the
simplest exact baseline on the same data, in one run. Query embedding is excluded.

    python bench/latency.py build bench/stores/lat100k --chunks 100000 [--chunk-chars 900]
    python bench/latency.py query bench/stores/lat100k --runs 200
    python bench/latency.py compare bench/stores/lat100k --before /tmp/old  # another checkout's search
    python bench/latency.py vectors bench/stores/lat100k  # the vector half's paths alone (one-shot, kept)

`build` writes the store through the storage layer (the real schema, FTS5 triggers, vectors and
their sign-bit parts): texts of 40-120 words (90-130 with --chunk-chars 900) drawn from a
Zipf-distributed 50,000-word vocabulary (a few very common words, a long tail of rare ones) and
random unit 384-dim vectors;
each chunk dated, evenly over 15 years in id order (period filters keep a known share).

`query` measures, on the same queries and precomputed query vectors:
- Biographer: `Searcher.search` (hybrid, keyword, semantic; limit 10), the real code path.
- The baseline (bench/baseline.py): every float vector in one NumPy matrix, exact cosine, plus
  FTS5 bm25, fused and read back exactly as Biographer does, the two halves run one after the
  other as the simple version would.
Latencies are interleaved query by query (the two see the same machine load). Resident memory
is measured in a fresh process for each after `--runs` hybrid queries. Short-list recall: the
share of the exact top 10 (cosine) found in the sign-bit short list, for several list sizes
(random vectors are the hard case for sign bits). Insert cost: seconds per vector for batches of
64 written as the indexer writes them, rolled back afterwards (the store is left as it was).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.baseline import NumpyBaseline  # noqa: E402
from core.memory.search import Searcher  # noqa: E402
from storage import chunks as chunk_store  # noqa: E402
from storage import documents as document_store  # noqa: E402
from storage.vectors import store as vector_store  # noqa: E402
from storage.db import open_database  # noqa: E402
from storage.meta import set_meta  # noqa: E402

DIM = 384
VOCAB = 50_000
#: words per chunk for each chunk size (--chunk-chars): about 8.2 characters a word with its
#: space, so 40-120 words make 250-1,000 characters (560 on average: the first benchmark's), and
#: 90-130 make 740-1,060 (900 on average: what core/memory/chunking.py writes from long text)
CHUNK_WORDS = {560: (40, 120), 900: (90, 130)}
BATCH = 5_000
SEED = 7
SHORTLISTS = (100, 400, 1000, 4000, 16000)


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


def _batch_draws(rng: np.random.Generator, words: np.ndarray, p: np.ndarray, size: int,
                 words_per_chunk: tuple[int, int]) -> tuple[list[str], np.ndarray]:
    """One batch's texts and vectors, drawn in the one order every build (and resume) draws them."""
    lengths = rng.integers(*words_per_chunk, size=size)
    drawn = words[rng.choice(VOCAB, size=int(lengths.sum()), p=p)]
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    texts = [" ".join(drawn[bounds[i]:bounds[i + 1]]) for i in range(size)]
    return texts, unit_vectors(rng, size)


async def _resume_point(conn, rng, words, p, words_per_chunk) -> tuple[int, int, int]:
    """A store cut short (a build killed between batches): its document, the chunks it holds and
    the next character offset, with `rng` replayed past them so that the rest is what one build
    would have written. The replayed last chunk must equal the stored one, else the store was
    built otherwise (another seed, chunk size or code) and is not extended."""
    async with conn.execute("SELECT id, chunk_count FROM documents WHERE identity = 'synthetic'") as cur:
        row = await cur.fetchone()
    if row is None:
        raise SystemExit("--resume: this store holds no synthetic build to extend")
    doc = row[0]
    async with conn.execute("SELECT COUNT(*), MAX(char_end) FROM chunks WHERE document_id = ?", (doc,)) as cur:
        have, last_end = await cur.fetchone()
    if have % BATCH or row[1]:
        raise SystemExit(f"--resume: {have} chunks (a finished build, or not whole batches of {BATCH})")
    texts, vectors = [""], np.zeros((1, DIM), dtype=np.float32)
    for first in range(0, have, BATCH):
        texts, vectors = _batch_draws(rng, words, p, BATCH, words_per_chunk)
    async with conn.execute(
            """SELECT c.text, e.vector FROM chunks c JOIN chunk_embeddings e ON e.chunk_id = c.id
               WHERE c.document_id = ? AND c.ordinal = ?""", (doc, have - 1)) as cur:
        stored = await cur.fetchone()
    if stored is None or texts[-1] != stored[0] or vectors[-1].tobytes() != stored[1]:
        raise SystemExit("--resume: the store's last chunk is not what this build draws there (other seed or size)")
    return doc, have, last_end + 1


async def build(path: Path, n: int, *, key=None, chunk_chars: int = 560, resume: bool = False) -> None:
    """`key`: a storage.encryption.StoreKey to write an encrypted store (bench/encryption.py);
    `chunk_chars`: the mean chunk length, a key of CHUNK_WORDS; `resume`: extend a build that
    was cut short to `n` chunks, as if it had never stopped."""
    words_per_chunk = CHUNK_WORDS[chunk_chars]
    rng = np.random.default_rng(SEED)
    words = np.array(vocabulary(rng))
    p = zipf_probabilities()
    path.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    async with open_database(path / "biographer.sqlite3", key=key) as conn:
        if resume:
            doc, have, offset = await _resume_point(conn, rng, words, p, words_per_chunk)
        else:
            async with conn.transaction():
                await set_meta(conn, "embedding_model", "synthetic-random")
                await set_meta(conn, "embedding_dim", str(DIM))
                doc = await document_store.insert_document(
                    conn, kind="text", name="synthetic.txt", identity="synthetic", source_path=None,
                    content_hash=None, byte_size=None, raw_path=None)
            have, offset = 0, 0
        for first in range(have, n, BATCH):
            size = min(BATCH, n - first)
            texts, vectors = _batch_draws(rng, words, p, size, words_per_chunk)
            records = []
            for i, text in enumerate(texts):
                records.append(chunk_store.ChunkRecord(
                    document_id=doc, ordinal=first + i, char_start=offset, char_end=offset + len(text),
                    text=text, time_start=None, time_end=None, speakers=(),
                    identity=f"synthetic|{first + i}", text_hash=f"{first + i:040x}"))
                offset += len(text) + 1
            async with conn.transaction():
                await chunk_store.insert_chunks(conn, records)
                lo = await _chunk_id(conn, records[0].identity)  # one transaction: ids are consecutive
                hi = await _chunk_id(conn, records[-1].identity)
                await vector_store.store_vectors(
                    conn, [(cid, vectors[j].tobytes()) for j, cid in enumerate(range(lo, hi + 1))],
                    generation=0)
            done = first + size
            if done % 50_000 == 0 or done == n:
                print(f"{done} chunks, {time.perf_counter() - started:.0f} s", flush=True)
        async with conn.transaction():
            await document_store.finish_document(conn, doc, chunk_count=n, text_length=offset,
                                                 time_start=None, time_end=None)
            await vector_store.fold_log(conn)
        await date_chunks(conn)
        await conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    print(json.dumps({"chunks": n, "build_s": round(time.perf_counter() - started, 1),
                      "db_mb": round((path / "biographer.sqlite3").stat().st_size / 2**20)}))


YEARS = 15  # the chunks' dates spread evenly over this many years from 2010, in id order


async def date_chunks(conn) -> None:
    """Give undated chunks a day each, evenly from 2010 to 2025 in id order (so that a period
    filter keeps a known share of the store); stores built before dates were written get theirs."""
    async with conn.transaction():
        await conn.execute(
            f"""UPDATE chunks SET
                  time_start = strftime('%Y-%m-%dT10:00:00Z', '2010-01-01',
                                        '+' || (id * {YEARS * 365} / (SELECT MAX(id) FROM chunks)) || ' days'),
                  time_end = strftime('%Y-%m-%dT11:00:00Z', '2010-01-01',
                                      '+' || (id * {YEARS * 365} / (SELECT MAX(id) FROM chunks)) || ' days')
                WHERE time_start IS NULL""")


def period(share: float) -> chunk_store.ChunkFilter:
    """A period filter keeping about `share` of a dated store's chunks (from its middle)."""
    days = YEARS * 365
    start = date(2010, 1, 1) + timedelta(days=int(days * (0.5 - share / 2)))
    end = start + timedelta(days=max(0, int(days * share) - 1))
    return chunk_store.ChunkFilter(since=f"{start.isoformat()}T00:00:00Z", until=f"{end.isoformat()}T23:59:59Z")


class _Dim:
    """Only the dimension is read when a query vector is passed in."""
    name, dim, remote = "synthetic-random", DIM, False

    def embed(self, texts, *, query=False):  # pragma: no cover - never called
        raise AssertionError("the query vector is precomputed")


def workload(runs: int, *, round_: int = 0) -> tuple[list[str], np.ndarray]:
    """Queries like questions after their stop words are dropped: a few common words and one or
    two rarer ones (the top 100 of a Zipf vocabulary stand for the function words dropped)."""
    rng = np.random.default_rng([SEED + 1, round_])
    words = np.array(vocabulary(np.random.default_rng(SEED)))
    queries = []
    for _ in range(runs):
        common = words[rng.integers(100, 2000, size=int(rng.integers(2, 5)))]
        rare = words[rng.integers(2000, VOCAB, size=int(rng.integers(1, 3)))]
        queries.append(" ".join([*common, *rare]))
    return queries, unit_vectors(rng, runs)


def percentiles(ms: list[float]) -> dict:
    ms = sorted(ms)
    return {"p50_ms": round(statistics.median(ms), 1), "p95_ms": round(ms[int(round(0.95 * (len(ms) - 1)))], 1)}


MODES = ("hybrid", "keyword", "semantic")


async def _run_ours(path: Path, queries: list[str], vectors: np.ndarray, warmup: int) -> dict:
    timings: dict[str, list[float]] = {m: [] for m in MODES}
    cpu: dict[str, list[float]] = {m: [] for m in MODES}
    async with open_database(path / "biographer.sqlite3") as conn:
        searcher = Searcher(conn, _Dim())
        t = time.perf_counter()
        await searcher.warm_up()
        load_s = time.perf_counter() - t
        for i, (q, v) in enumerate(zip(queries, vectors)):
            for mode in MODES:
                t, c = time.perf_counter(), time.process_time()
                hits = await searcher.search(q, limit=10, mode=mode, query_vector=v)
                if i >= warmup:
                    timings[mode].append((time.perf_counter() - t) * 1000)
                    cpu[mode].append((time.process_time() - c) * 1000)
                assert hits, (mode, q)
        searcher.close()
    return {"timings": timings, "cpu": cpu, "load_s": round(load_s, 3), **memory()}


def _run_baseline(path: Path, queries: list[str], vectors: np.ndarray, warmup: int) -> dict:
    timings: dict[str, list[float]] = {m: [] for m in MODES}
    cpu: dict[str, list[float]] = {m: [] for m in MODES}
    t = time.perf_counter()
    baseline = NumpyBaseline(path / "biographer.sqlite3")
    load_s = time.perf_counter() - t
    for i, (q, v) in enumerate(zip(queries, vectors)):
        for mode in MODES:
            t, c = time.perf_counter(), time.process_time()
            hits = baseline.search(q, v, limit=10, mode=mode)
            if i >= warmup:
                timings[mode].append((time.perf_counter() - t) * 1000)
                cpu[mode].append((time.process_time() - c) * 1000)
            assert hits, (mode, q)
    return {"timings": timings, "cpu": cpu, "load_s": round(load_s, 3), **memory()}


def memory() -> dict:
    """Resident memory now and at its highest in this process (VmHWM: getrusage's peak would
    include the parent's, which Linux carries across exec)."""
    status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return {"rss_mb": round(int(status["VmRSS"].split()[0]) / 1024),
            "peak_rss_mb": round(int(status["VmHWM"].split()[0]) / 1024)}


def in_child(who: str, path: Path, runs: int, warmup: int, round_: int, *, code: Path = ROOT) -> dict:
    # one BLAS thread for both: the baseline's matrix product ran faster so on these two shared
    # cores (its idle BLAS threads spin and slow the keyword half down)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": str(code)}
    out = subprocess.run([sys.executable, str(code / "bench" / "latency.py"), "_run", who, str(path.resolve()),
                          "--runs", str(runs), "--warmup", str(warmup), "--round", str(round_)],
                         check=True, capture_output=True, text=True, env=env, cwd=code).stdout
    return json.loads(out.strip().splitlines()[-1])


def compare(path: Path, before: Path, runs: int, warmup: int, rounds: int) -> dict:
    """Biographer's own search from another checkout (`before`, e.g. `git archive` of an older
    commit) and from this one, alternating in fresh processes on the same store and queries."""
    timings = {who: {m: [] for m in MODES} for who in ("before", "now")}
    for r in range(rounds):
        for who in ("before", "now") if r % 2 == 0 else ("now", "before"):
            result = in_child("ours", path, runs, warmup, r, code=before if who == "before" else ROOT)
            for mode in MODES:
                timings[who][mode].extend(result["timings"][mode])
    lat = {who: {m: percentiles(ts) for m, ts in modes.items()} for who, modes in timings.items()}
    return {"latency": lat, "load_average": [round(x, 2) for x in os.getloadavg()],
            "hybrid_p50_now_over_before": round(lat["now"]["hybrid"]["p50_ms"] / lat["before"]["hybrid"]["p50_ms"], 3)}


def latencies(path: Path, runs: int, warmup: int, rounds: int) -> dict:
    """Each side in a fresh process of its own, alternating for `rounds` rounds (so both see the
    same spread of machine load), `runs` queries per round; memory as measured after a round."""
    timings = {who: {m: [] for m in MODES} for who in ("biographer", "baseline")}
    cpu = {who: {m: [] for m in MODES} for who in ("biographer", "baseline")}
    memories: dict[str, list[dict]] = {"biographer": [], "baseline": []}
    for r in range(rounds):
        for who in ("biographer", "baseline") if r % 2 == 0 else ("baseline", "biographer"):
            result = in_child("ours" if who == "biographer" else "baseline", path, runs, warmup, r)
            for mode in MODES:
                timings[who][mode].extend(result["timings"][mode])
                cpu[who][mode].extend(result["cpu"][mode])
            memories[who].append({k: v for k, v in result.items() if k not in ("timings", "cpu")})
    # the processor time each query took (all the process's threads): its own work, whose spread
    # is the work's; the wall clock adds whatever the machine's other processes made it wait
    return {"latency": {who: {m: percentiles(ts) for m, ts in modes.items()} for who, modes in timings.items()},
            "cpu_time": {who: {m: percentiles(ts) for m, ts in modes.items()} for who, modes in cpu.items()},
            "after_queries": {who: max(ms, key=lambda m: m["rss_mb"]) for who, ms in memories.items()}}


async def shortlist_recall(path: Path, n_queries: int) -> dict:
    """Share of the exact top 10 found in sign-bit short lists of several sizes."""
    _, vectors = workload(n_queries)
    baseline = NumpyBaseline(path / "biographer.sqlite3", keyword=False)
    async with open_database(path / "biographer.sqlite3") as conn:
        searcher = Searcher(conn, _Dim())
        index = await searcher.vector_index()
        index.refresh()
        found = {k: 0 for k in SHORTLISTS}
        for v in vectors:
            exact = {cid for cid, _ in baseline.semantic(v, depth=10)}
            for k in SHORTLISTS:
                found[k] += len(exact & set(index.shortlist(v, k)))
        searcher.close()
    return {str(k): round(f / (10 * len(vectors)), 3) for k, f in found.items()}


FILTER_SHARES = (0.01, 0.05, 0.2)


def _former_rescoring(index, query: np.ndarray, ids, depth: int) -> list[int]:
    """The short list's ranking as it was before sqlite-vec did it: every float vector read by
    id into Python, NumPy's product, a sort."""
    rows = []
    for i in range(0, len(ids), 500):
        part = list(ids[i:i + 500])
        rows += index._conn.execute(
            f"SELECT chunk_id, vector FROM chunk_embeddings WHERE chunk_id IN ({','.join('?' * len(part))})",
            part).fetchall()
    if not rows:
        return []
    matrix = np.frombuffer(b"".join(b for _, b in rows), dtype=np.float32).reshape(len(rows), -1)
    top = np.argsort(-(matrix @ query), kind="stable")[:depth]
    return [rows[i][0] for i in top]


def _float_vectors(index, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The float vectors of `ids` from the store (for the brute-force answer), and their ids."""
    rows = index._conn.execute(
        "SELECT chunk_id, vector FROM chunk_embeddings WHERE chunk_id IN (SELECT value FROM json_each(?))",
        (json.dumps(ids.tolist()),)).fetchall()
    return (np.array([r[0] for r in rows]),
            np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1))


def _former_kept(index, query: np.ndarray, kept, depth: int, shortlist: int) -> list[int]:
    """A filtered search of a process that keeps the vectors, as it was before the bounds: exact
    over floats read by id up to 1,000 chunks, else the sign bits' `shortlist` nearest among them
    ranked by their bytes."""
    if len(kept) <= max(1_000, shortlist):
        return _former_rescoring(index, query, kept.tolist(), depth)
    with index._lock:
        return [h.chunk_id for h in index._rescore(query, index._shortlist(query, shortlist, kept), depth)]


async def kept_paths(path: Path, n_queries: int) -> dict:
    """The vector half's filtered searches in a process that keeps the vectors (bot, server):
    now, exact (the kept bytes bound each cosine, sqlite-vec ranks the few that can reach the
    top), against the former path (approximate past 1,000 chunks)."""
    from core.memory.search import EXACT_FILTER_CAP, SEMANTIC_DEPTH, shortlist_size
    from storage.vectors.index import VectorIndex

    _, vectors = workload(n_queries, round_=8)
    index = VectorIndex(path / "biographer.sqlite3")
    index.keep_vectors()
    index.refresh()
    if index._vectors is None:
        index.close()
        return {"skipped": "the store's vectors are over the memory budget: they are not kept"}
    size = shortlist_size(len(index))  # the product's, as core/memory/search.py passes it
    out: dict[str, dict] = {}
    for share in FILTER_SHARES:
        where = period(share)
        allowed = index._filtered_ids(where)
        ids, matrix = _float_vectors(index, allowed)
        times: dict[str, list[float]] = {"now": [], "before": []}
        found = {"now": 0, "before": 0}
        ranked = []
        for v in vectors:
            for who in ("now", "before") if len(times["now"]) % 2 == 0 else ("before", "now"):
                t = time.perf_counter()
                if who == "now":
                    got = [h.chunk_id for h in index.search(v, shortlist=size, depth=SEMANTIC_DEPTH, where=where,
                                                             exact_below=EXACT_FILTER_CAP)]
                    ranked.append(index.bounded[1])
                else:
                    got = _former_kept(index, v, index._filtered_ids(where), SEMANTIC_DEPTH, size)
                times[who].append((time.perf_counter() - t) * 1000)
                exact = set(ids[np.argsort(-(matrix @ v))[:10]].tolist())
                found[who] += len(exact & set(got[:10]))
        out[f"period {round(share * 100)}%"] = {
            "chunks_kept": len(allowed), "ranked_exactly_p50": statistics.median(ranked),
            **{f"{who}_ms": percentiles(ts) for who, ts in times.items()},
            "p50_now_over_before": round(statistics.median(times["now"]) / statistics.median(times["before"]), 2),
            **{f"{who}_recall_of_exact_top10": round(f / (10 * len(vectors)), 3) for who, f in found.items()}}
    index.close()
    return out


async def vector_paths(path: Path, n_queries: int) -> dict:
    """The vector half of a one-shot search (vectors read from the store, not kept), today's
    path beside the former ones, query by query, in turn: unfiltered (sign bits, then the short
    list ranked by sqlite-vec in SQL, or read into NumPy as before), and filtered by periods
    keeping 1-20% of the store. Filtered, `now` bounds each chunk the filter keeps from the code
    parts on disk and ranks the few that can reach the top by sqlite-vec; `exact_floats` (the
    previous exact path) ranks every one of them by sqlite-vec; `before` (the approximate path
    before either) is exact in NumPy up to 1,000 chunks, else ranks the sign bits' short list
    among them. Short lists are the product's size (shortlist_size). Recall: the share of the
    exact top 10 (NumPy over every chunk the filter keeps) found."""
    from core.memory.search import EXACT_FILTER_CAP, SEMANTIC_DEPTH, shortlist_size
    from storage.vectors.index import VectorIndex

    _, vectors = workload(n_queries, round_=7)
    async with open_database(path / "biographer.sqlite3") as conn:
        await date_chunks(conn)
    index = VectorIndex(path / "biographer.sqlite3")
    index.refresh()
    size = shortlist_size(len(index))
    former_cap = 1_000
    cases = {"unfiltered": None, **{f"period {round(s * 100)}%": period(s) for s in FILTER_SHARES}}
    out: dict[str, dict] = {}
    for name, where in cases.items():
        allowed = index._filtered_ids(where) if where is not None else None
        # the previous exact path only where it was taken (up to core's cap: beyond, seconds a query)
        paths = ("now", "before") if allowed is None or len(allowed) > EXACT_FILTER_CAP else ("now", "exact_floats", "before")
        times: dict[str, list[float]] = {who: [] for who in paths}
        found = {who: 0 for who in paths}
        ranked: list[int] = []  # chunks ranked exactly after the bounds (0: not bounded)
        matrix = None
        if allowed is not None:
            ids, matrix = _float_vectors(index, allowed)
        for turn, v in enumerate(vectors):
            for who in paths[turn % len(paths):] + paths[:turn % len(paths)]:
                t = time.perf_counter()
                if who == "now":
                    index.bounded = (0, 0)
                    got = [h.chunk_id for h in index.search(v, shortlist=size, depth=SEMANTIC_DEPTH, where=where,
                                                             exact_below=EXACT_FILTER_CAP)]
                    ranked.append(index.bounded[1])
                elif who == "exact_floats":  # every chunk the filter keeps, ranked by sqlite-vec
                    kept = index._filtered_ids(where)
                    with index._lock:
                        got = [h.chunk_id for h in index._nearest_of(v, kept.tolist(), SEMANTIC_DEPTH)]
                else:  # the filter's ids read as search reads them, then the former ranking
                    kept = index._filtered_ids(where) if where is not None else None
                    if kept is not None and len(kept) <= max(former_cap, size):
                        got = _former_rescoring(index, v, kept.tolist(), SEMANTIC_DEPTH)
                    else:
                        with index._lock:
                            short = index._shortlist(v, size, kept)
                        got = _former_rescoring(index, v, short, SEMANTIC_DEPTH)
                times[who].append((time.perf_counter() - t) * 1000)
                if matrix is not None:
                    exact = set(ids[np.argsort(-(matrix @ v))[:10]].tolist())
                    found[who] += len(exact & set(got[:10]))
        out[name] = {"chunks_kept": len(allowed) if allowed is not None else len(index),
                     **{f"{who}_ms": percentiles(ts) for who, ts in times.items()},
                     "p50_now_over_before": round(statistics.median(times["now"]) / statistics.median(times["before"]), 2)}
        if where is not None:
            out[name]["ranked_exactly_p50"] = statistics.median(ranked)
        if matrix is not None:
            out[name].update({f"{who}_recall_of_exact_top10": round(f / (10 * len(vectors)), 3) for who, f in found.items()})
    index.close()
    return out


async def insert_cost(path: Path, batches: int) -> dict:
    """Microseconds per vector written as the indexer writes them (batches of 64 new chunks, one
    savepoint each), for Biographer and for the baseline (the float vector's row plus a NumPy
    append), all inside one outer transaction that is rolled back: the store is left as it was."""
    rng = np.random.default_rng(SEED + 2)
    n = batches * 64
    async with open_database(path / "biographer.sqlite3") as conn:
        await conn.execute("BEGIN IMMEDIATE")
        try:
            async with conn.execute("SELECT MAX(id), MAX(document_id) FROM chunks") as cur:
                top, doc = await cur.fetchone()
            await chunk_store.insert_chunks(conn, [chunk_store.ChunkRecord(
                document_id=doc, ordinal=10**9 + i, char_start=0, char_end=4, text="new chunk",
                time_start=None, time_end=None, speakers=(), identity=f"insert-bench|{i}",
                text_hash=f"insert-bench-{i}") for i in range(n)])
            ids = list(range(top + 1, top + 1 + n))
            vectors = unit_vectors(rng, n)
            rows = [(i, v.tobytes()) for i, v in zip(ids, vectors)]
            out = {}
            t = time.perf_counter()
            for b in range(batches):
                await conn.execute("SAVEPOINT batch")
                await vector_store.store_vectors(conn, rows[b * 64:(b + 1) * 64], generation=0)
                await conn.execute("RELEASE batch")
            out["biographer_us_per_vector"] = round((time.perf_counter() - t) / n * 1e6)
            await conn.execute(
                "CREATE TEMP TABLE plain_vectors (chunk_id INTEGER PRIMARY KEY, vector BLOB NOT NULL)")
            matrix = np.zeros((1024, DIM), dtype=np.float32)
            used = 0
            t = time.perf_counter()
            for b in range(batches):
                part = rows[b * 64:(b + 1) * 64]
                await conn.execute("SAVEPOINT batch")
                await conn.executemany("INSERT OR REPLACE INTO plain_vectors VALUES (?, ?)", part)
                await conn.executemany("UPDATE chunks SET embedded = 1 WHERE id = ?", [(i,) for i, _ in part])
                await conn.execute("RELEASE batch")
                if used + len(part) > len(matrix):  # amortised growth, as a careful baseline would
                    matrix = np.concatenate([matrix, np.zeros_like(matrix)])
                matrix[used:used + len(part)] = vectors[b * 64:(b + 1) * 64]
                used += len(part)
            out["baseline_us_per_vector"] = round((time.perf_counter() - t) / n * 1e6)
        finally:
            await conn.execute("ROLLBACK")
    return out


async def query(path: Path, runs: int, warmup: int, rounds: int, *, latency_only: bool = False) -> dict:
    out = {"store": str(path), "runs_per_round": runs, "rounds": rounds,
           "load_average": [round(x, 2) for x in os.getloadavg()]}
    out.update(latencies(path, runs, warmup, rounds))
    if not latency_only:
        out["shortlist_recall_of_exact_top10_random"] = await shortlist_recall(path, min(runs, 100))
        out["vector_half_one_shot"] = await vector_paths(path, min(runs, 100))
        out["vector_half_kept"] = await kept_paths(path, min(runs, 100))
        out["insert"] = await insert_cost(path, batches=40)
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    lat = out["latency"]
    out["hybrid_p50_ratio"] = round(lat["biographer"]["hybrid"]["p50_ms"] / lat["baseline"]["hybrid"]["p50_ms"], 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("path", type=Path)
    b.add_argument("--chunks", type=int, default=100_000)
    b.add_argument("--chunk-chars", type=int, choices=sorted(CHUNK_WORDS), default=560,
                   help="mean chunk length in characters (900: what the product writes from long text)")
    b.add_argument("--resume", action="store_true",
                   help="extend a build that was cut short (same --chunk-chars) to --chunks")
    q = sub.add_parser("query")
    q.add_argument("path", type=Path)
    q.add_argument("--runs", type=int, default=200)
    q.add_argument("--warmup", type=int, default=20)
    q.add_argument("--rounds", type=int, default=2)
    q.add_argument("--latency-only", action="store_true",
                   help="only the side-by-side latencies and memory (the rest takes long at 1M chunks)")
    c = sub.add_parser("compare", help="this checkout's search against another's (--before DIR)")
    c.add_argument("path", type=Path)
    c.add_argument("--before", type=Path, required=True)
    c.add_argument("--runs", type=int, default=200)
    c.add_argument("--warmup", type=int, default=20)
    c.add_argument("--rounds", type=int, default=4)
    v = sub.add_parser("vectors", help="the vector half's paths alone (sqlite-vec against the former)")
    v.add_argument("path", type=Path)
    v.add_argument("--runs", type=int, default=100)
    r = sub.add_parser("_run")  # internal: one side's queries in a fresh process
    r.add_argument("who", choices=("ours", "baseline"))
    r.add_argument("path", type=Path)
    r.add_argument("--runs", type=int, default=200)
    r.add_argument("--warmup", type=int, default=20)
    r.add_argument("--round", type=int, default=0)
    args = ap.parse_args()
    if args.cmd == "build":
        asyncio.run(build(args.path, args.chunks, chunk_chars=args.chunk_chars, resume=args.resume))
    elif args.cmd == "compare":
        print(json.dumps(compare(args.path, args.before.resolve(), args.runs, args.warmup, args.rounds), indent=1))
    elif args.cmd == "vectors":
        print(json.dumps({"load_average": [round(x, 2) for x in os.getloadavg()],
                          "one_shot": asyncio.run(vector_paths(args.path, args.runs)),
                          "kept": asyncio.run(kept_paths(args.path, args.runs)),
                          "load_average_after": [round(x, 2) for x in os.getloadavg()]}, indent=1))
    elif args.cmd == "_run":
        queries, vectors = workload(args.runs + args.warmup, round_=args.round)
        result = (asyncio.run(_run_ours(args.path, queries, vectors, args.warmup)) if args.who == "ours"
                  else _run_baseline(args.path, queries, vectors, args.warmup))
        print(json.dumps(result))
    else:
        print(json.dumps(asyncio.run(query(args.path, args.runs, args.warmup, args.rounds,
                                           latency_only=args.latency_only)), indent=1))


if __name__ == "__main__":
    main()
