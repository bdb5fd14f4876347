"""The short list on real vectors at the sizes a life reaches: every real text LoCoMo holds embedded
once (chunks as the product cuts them, each message on its own, the dataset's observations, session
and event summaries: about 10,700 texts), then the sign-bit short list's recall of the exact top 10
(cosine) for LoCoMo's questions, at that size and with the store padded to 100k and 1M vectors.

    python bench/shortlist_real.py             # embeds what the cache lacks (resumable), then measures
    python bench/shortlist_real.py --queries 400 --pad 100000,1000000

The embeddings are cached outside git in bench/stores/shortlist-real/ (texts.json, vectors.npy),
grown batch by batch so an interrupted run goes on where it stopped. Two kinds of padding:
`uniform` (random unit vectors: unrelated distractors) and `around` (each a real vector moved by
noise to a cosine of 0.6-0.95 with it: near neighbours of real text, where sign bits are tested
hardest). Short lists are measured at fixed sizes and at the size the product picks for a store of
that many vectors (core/memory/search.py shortlist_size).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.locomo import EVAL  # noqa: E402
from bot.compose import build_embedder  # noqa: E402
from core.config import DEFAULT_EMBEDDING_MODEL, Settings  # noqa: E402
from core.memory.indexer import embedding_text  # noqa: E402
from core.memory.search import shortlist_size  # noqa: E402
from storage.vectors.index import hamming_distances, smallest  # noqa: E402
from storage.vectors.store import sign_words  # noqa: E402

CACHE = ROOT / "bench" / "stores" / "shortlist-real"
SIZES = (100, 200, 400, 1000, 2000, 4000, 8000)


def real_texts() -> list[str]:
    """Chunk texts from a store of LoCoMo's exports (saved, not embedded), then every message,
    observation and summary of locomo10.json."""
    import sqlean

    saved = CACHE / "saved"
    if not (saved / "biographer.sqlite3").exists():
        biographer = str(Path(sys.executable).with_name("biographer"))
        for export in sorted((EVAL / "exports").iterdir()):
            subprocess.run([biographer, "--data-dir", str(saved), "ingest", "--no-index", str(export)],
                           check=True, stdout=subprocess.DEVNULL)
    conn = sqlean.connect(str(saved / "biographer.sqlite3"))
    texts = [embedding_text(t) for (t,) in conn.execute("SELECT text FROM chunks ORDER BY id")]
    conn.close()
    for sample in json.loads((EVAL / "locomo10.json").read_text()):
        conv = sample["conversation"]
        for key in sorted(k for k in conv if k.startswith("session_") and isinstance(conv[k], list)):
            texts += [turn["text"] for turn in conv[key] if turn.get("text")]
        for by_speaker in sample["observation"].values():
            texts += [item[0] for items in by_speaker.values() for item in items]
        texts += list(sample["session_summary"].values())
        for events in sample["event_summary"].values():
            texts += [e for items in events.values() if isinstance(items, list) for e in items]
    return [t for t in texts if t.strip()]


def cached_vectors(texts: list[str], embedder, batch: int = 256) -> np.ndarray:
    CACHE.mkdir(parents=True, exist_ok=True)
    (CACHE / "texts.json").write_text(json.dumps(texts))
    path = CACHE / "vectors.npy"
    done = np.load(path) if path.exists() else np.zeros((0, embedder.dim), np.float32)
    while len(done) < len(texts):
        started = time.perf_counter()
        part = np.asarray(embedder.embed(texts[len(done):len(done) + batch]), dtype=np.float32)
        done = np.concatenate([done, part])
        np.save(path, done)
        print(f"embedded {len(done)}/{len(texts)} ({len(part) / (time.perf_counter() - started):.1f}/s, "
              f"load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
    return done[:len(texts)]


def padding(real: np.ndarray, n: int, kind: str, rng: np.random.Generator, block: int = 100_000):
    """n padding vectors, in blocks (1M x 384 floats is 1.5 GB at once)."""
    for start in range(0, n, block):
        m = min(block, n - start)
        if kind == "uniform":
            v = rng.standard_normal((m, real.shape[1]), dtype=np.float32)
        else:
            origin = real[rng.integers(0, len(real), m)]
            noise = rng.standard_normal((m, real.shape[1]), dtype=np.float32)
            noise -= (noise * origin).sum(axis=1, keepdims=True) * origin  # orthogonal to the origin
            noise /= np.linalg.norm(noise, axis=1, keepdims=True)
            cos = rng.uniform(0.6, 0.95, (m, 1)).astype(np.float32)
            v = cos * origin + np.sqrt(1 - cos ** 2) * noise
        yield v / np.linalg.norm(v, axis=1, keepdims=True)


def recall(real: np.ndarray, queries: np.ndarray, pad: int, kind: str) -> dict:
    """Share of each query's exact top 10 that each short list holds."""
    rng = np.random.default_rng(7)
    bits = [sign_words(real)]
    exact_scores = [real @ queries.T]  # (n, q) built block by block, kept as the top 10 only
    top_scores, top_ids = _top10(exact_scores[0], 0)
    offset = len(real)
    for block in padding(real, pad, kind, rng):
        bits.append(sign_words(block))
        scores, ids = _top10(block @ queries.T, offset)
        top_scores, top_ids = _merge(top_scores, top_ids, scores, ids)
        offset += len(block)
    words = np.concatenate(bits, axis=1)  # sign words are stored one row per 64 dimensions
    n = words.shape[1]
    sized = shortlist_size(n)
    sizes = sorted({*(k for k in SIZES if k < n), sized})
    found = {k: 0 for k in sizes}
    for qi, q in enumerate(queries):
        exact = set(top_ids[:, qi].tolist())
        distance = hamming_distances(words, sign_words(q[None, :])[:, 0])
        ranked = smallest(distance, max(sizes))
        order = ranked[np.argsort(distance[ranked], kind="stable")]
        for k in sizes:
            found[k] += len(exact & set(order[:k].tolist()))
    total = 10 * len(queries)
    return {"vectors": n, "padding": kind if pad else "none", "shortlist_size": sized,
            "recall": {str(k): round(f / total, 4) for k, f in found.items()}}


def _top10(scores: np.ndarray, offset: int) -> tuple[np.ndarray, np.ndarray]:
    idx = np.argpartition(-scores, 10, axis=0)[:10]
    return np.take_along_axis(scores, idx, axis=0), idx + offset


def _merge(a_s, a_i, b_s, b_i):
    s, i = np.concatenate([a_s, b_s]), np.concatenate([a_i, b_i])
    keep = np.argpartition(-s, 10, axis=0)[:10]
    return np.take_along_axis(s, keep, axis=0), np.take_along_axis(i, keep, axis=0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=400, help="LoCoMo questions used (every n-th)")
    ap.add_argument("--pad", default="100000,1000000", help="store sizes to pad to")
    args = ap.parse_args()
    embedder = build_embedder(Settings(), DEFAULT_EMBEDDING_MODEL)
    texts = real_texts()
    real = cached_vectors(texts, embedder)
    items = [json.loads(line) for line in (EVAL / "qa.jsonl").open() if line.strip()]
    items = items[::max(1, len(items) // args.queries)][:args.queries]
    queries = np.asarray(embedder.embed([it["question"] for it in items], query=True), dtype=np.float32)
    out = {"real_texts": len(real), "queries": len(queries), "model": embedder.name, "runs": []}
    out["runs"].append(recall(real, queries, 0, "none"))
    print(json.dumps(out["runs"][-1]), file=sys.stderr, flush=True)
    for size in (int(s) for s in args.pad.split(",") if s):
        for kind in ("around", "uniform"):
            out["runs"].append(recall(real, queries, size - len(real), kind))
            print(json.dumps(out["runs"][-1]), file=sys.stderr, flush=True)
    out["load_average"] = round(os.getloadavg()[0], 1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
