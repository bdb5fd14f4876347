"""In-process LoCoMo recall for trying ranking variants quickly (the figures in the README come
from bench/locomo.py, which drives the real CLI through the harness).

The keyword and semantic candidate lists come from the real `Searcher.keyword`/`Searcher.semantic`
at the shipped depths (cached per question; a depth-100 semantic list too); each variant is a
fusion function over them. The "shipped" variant runs core/memory/ranking.py itself and reproduces the
CLI's figures exactly; variants that need more keyword queries use a read-only connection to the
store, and the "linesem" ones embed every message line first (about 30 s). Scoring is the harness's own
(`recall.score`, imported from ../shared/eval/locomo/recall.py).

    python bench/locomo_tune.py            # every variant below
    python bench/locomo_tune.py rrf60 date  # variants whose name contains one of these
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sqlite3
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.memory import search as search_mod  # noqa: E402
from core.config import Settings  # noqa: E402
from bot.compose import build_embedder  # noqa: E402
from storage import chunks as chunk_store  # noqa: E402
from storage.vectors import store as vector_store  # noqa: E402
from storage.db import open_database  # noqa: E402

# beside the checkout (../shared), or beside the folder of worktrees (../../shared)
EVAL = next((p / "shared" / "eval" / "locomo" for p in (ROOT.parent, ROOT.parent.parent)
             if (p / "shared" / "eval" / "locomo").is_dir()), ROOT.parent / "shared" / "eval" / "locomo")
STORES = ROOT / "bench" / "stores"
DEPTH = 100


def load_recall():
    spec = importlib.util.spec_from_file_location("recall", EVAL / "recall.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def candidates(items: list[dict]) -> dict:
    """Per question: keyword list, semantic list (id, score), and chunk rows of each conversation."""
    settings = Settings()
    embedder = build_embedder(settings)
    by_conv = defaultdict(list)
    for it in items:
        by_conv[it["sample_id"]].append(it)
    out = {"q": {}, "chunks": {}}
    for sid, group in by_conv.items():
        async with open_database(STORES / sid / "biographer.sqlite3") as conn:
            s = search_mod.Searcher(conn, embedder)
            where = chunk_store.ChunkFilter()
            vectors = embedder.embed([it["question"] for it in group], query=True)
            for it, vec in zip(group, vectors):
                kw = await s.keyword(it["question"], depth=DEPTH, where=where)
                # the shipped depths: SEMANTIC_DEPTH from its sign-bit candidates
                sem = await s.semantic(it["question"], depth=search_mod.SEMANTIC_DEPTH, where=where,
                                       query_vector=vec)
                out["q"][it["qid"]] = (kw, sem)
                out.setdefault("semdeep", {})[it["qid"]] = await s.semantic(
                    it["question"], depth=100, where=where, query_vector=vec)
                out.setdefault("qvec", {})[it["question"]] = vec
            rows = await chunk_store.scan_chunks(conn, after_id=0, page_size=10**6, where=where)
            out["chunks"][sid] = {r.id: r for r in rows}
            found = await vector_store.float_vectors(conn, [r.id for r in rows], embedder.dim)
            out.setdefault("vectors", {})[sid] = dict(zip(found.ids, found.matrix))
            # a plain read-only connection for variants that run further keyword queries
            out.setdefault("fts", {})[sid] = sqlite3.connect(
                f"file:{STORES / sid / 'biographer.sqlite3'}?mode=ro", uri=True)
    return out


def embed_lines(data: dict, variants) -> None:
    """Each message line of every chunk embedded on its own (timestamp dropped), for the
    max-pooled "linesem" variants (about 30 s for LoCoMo's 5,900 lines)."""
    import re

    import numpy as np
    embedder = build_embedder(Settings())
    for ch in data["chunks"].values():
        lines = [(cid, re.sub(r"^\[[^\]]*\] ", "", line)) for cid, r in ch.items() for line in r.text.split("\n")]
        matrix = np.asarray(embedder.embed([t for _, t in lines]), dtype=np.float32)
        variants.LINES[id(ch)] = (np.array([cid for cid, _ in lines]), matrix)


def main() -> None:
    recall = load_recall()
    items = [json.loads(line) for line in (EVAL / "qa.jsonl").open() if line.strip()]
    items = [it for it in items if it.get("evidence_text")]
    data = asyncio.run(candidates(items))
    from bench import variants  # the fusion functions under test

    variants.VECTORS.update({id(data["chunks"][sid]): v for sid, v in data["vectors"].items()})
    variants.QVEC.update(data["qvec"])
    names = [n for n in variants.VARIANTS if not sys.argv[1:] or any(a in n for a in sys.argv[1:])]
    if any(n.startswith("linesem") for n in names):
        embed_lines(data, variants)
    variants.FTS.update({id(data["chunks"][sid]): db for sid, db in data["fts"].items()})
    cats = {1: "multi-hop", 2: "temporal", 3: "open-dom", 4: "single", 5: "advers"}
    print(f"{'variant':<28}{'all@5':>7}{'all@10':>7}" + "".join(f"{c:>10}" for c in cats.values())
          + f"{'chars@10':>9}")
    for name in names:
        fuse = variants.VARIANTS[name]
        per_cat = defaultdict(list)
        r5, r10, chars = [], [], []
        for it in items:
            kw, sem = data["q"][it["qid"]]
            chunks = data["chunks"][it["sample_id"]]
            variants.SEMDEEP[(it["question"], id(chunks))] = data["semdeep"][it["qid"]]
            texts = fuse(it["question"], kw, sem, chunks)[:10]
            sc = recall.score(it, texts, [5, 10])
            r5.append(sc[5]["all"])
            r10.append(sc[10]["all"])
            chars.append(sc[10]["chars"])
            per_cat[it["category"]].append(sc[10]["all"])
        print(f"{name:<28}{statistics.fmean(r5):>7.3f}{statistics.fmean(r10):>7.3f}"
              + "".join(f"{statistics.fmean(per_cat[c]):>10.3f}" for c in cats)
              + f"{statistics.fmean(chars):>9.0f}", flush=True)


if __name__ == "__main__":
    main()
