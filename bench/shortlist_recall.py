"""How much of the exact top 10 (cosine) the sign-bit short list holds, on real embeddings: the
LoCoMo stores that bench/locomo.py builds (all-MiniLM-L6-v2, the shipped model) and LoCoMo's
questions as queries.

    python bench/shortlist_recall.py              # after `python bench/locomo.py`
    python bench/shortlist_recall.py --messages   # also every message embedded on its own

Three measures:
- per store, as search runs (each conversation its own store; the shipped short list): the
  semantic top 10 against the exact top 10 of that store, with the short list's vectors read
  from the store (a one-shot command) and kept in memory at a byte per dimension (the bot);
- pooled: every store's chunk vectors as one collection, short lists of several sizes;
- with --messages: each of the ~5,900 messages embedded on its own and pooled (a larger, finer
  collection), short lists of several sizes.
Random vectors, where sign bits are weakest, are measured by bench/latency.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.locomo import EVAL, STORES  # noqa: E402
from bot.compose import build_embedder  # noqa: E402
from core.config import Settings  # noqa: E402
from core.memory.search import SEMANTIC_DEPTH, shortlist_size  # noqa: E402
from storage.vectors.index import VectorIndex, hamming_distances, smallest  # noqa: E402
from storage.vectors.store import sign_words  # noqa: E402

SIZES = (50, 100, 200, 400, 800)


def store_vectors(store: Path) -> tuple[np.ndarray, np.ndarray]:
    import sqlean
    conn = sqlean.connect(str(store / "biographer.sqlite3"))
    rows = conn.execute("SELECT chunk_id, vector FROM chunk_embeddings ORDER BY chunk_id").fetchall()
    conn.close()
    return (np.array([r[0] for r in rows]),
            np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1))


def shortlist_recall(matrix: np.ndarray, queries: np.ndarray) -> dict[str, float]:
    bits = sign_words(matrix)
    found = {k: 0 for k in SIZES}
    for q in queries:
        exact = set(np.argsort(-(matrix @ q))[:10].tolist())
        distance = hamming_distances(bits, sign_words(q[None, :])[:, 0])
        for k in SIZES:
            found[k] += len(exact & set(smallest(distance, k).tolist()))
    return {str(k): round(f / (10 * len(queries)), 4) for k, f in found.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", action="store_true")
    args = ap.parse_args()
    items = [json.loads(line) for line in (EVAL / "qa.jsonl").open() if line.strip()]
    import sqlean
    first = next(p for p in sorted(STORES.iterdir()) if p.name.startswith("conv-"))
    meta = sqlean.connect(str(first / "biographer.sqlite3"))
    (model,) = meta.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
    meta.close()
    embedder = build_embedder(Settings(), model)  # the model the stores were indexed with
    started = time.perf_counter()
    questions = np.asarray(embedder.embed([it["question"] for it in items], query=True), dtype=np.float32)
    out: dict = {"questions": len(items), "model": embedder.name}

    # per store, the shipped path: VectorIndex.search with the shipped short list
    agree, agree_kept, total, vectors = 0, 0, 0, []
    for store in sorted(p for p in STORES.iterdir() if p.name.startswith("conv-")):
        ids, matrix = store_vectors(store)
        vectors.append(matrix)
        index, kept = VectorIndex(store / "biographer.sqlite3"), VectorIndex(store / "biographer.sqlite3")
        kept.keep_vectors()
        for it, q in zip(items, questions):
            if it["sample_id"] != store.name:
                continue
            exact = set(ids[np.argsort(-(matrix @ q))[:10]].tolist())
            for reader in (index, kept):
                ranked = reader.search(q, shortlist=shortlist_size(len(ids)),
                                       depth=SEMANTIC_DEPTH)
                found = len(exact & {hit.chunk_id for hit in ranked[:10]})
                if reader is index:
                    agree += found
                else:
                    agree_kept += found
            total += len(exact)
        index.close()
        kept.close()
    out["per_store_semantic_top10_vs_exact"] = round(agree / total, 4)
    out["per_store_semantic_top10_vs_exact_vectors_kept"] = round(agree_kept / total, 4)
    pooled = np.concatenate(vectors)
    out["pooled_chunks"] = {"vectors": len(pooled), "recall_by_shortlist": shortlist_recall(pooled, questions)}

    if args.messages:
        import sqlean
        texts = []
        for store in sorted(p for p in STORES.iterdir() if p.name.startswith("conv-")):
            conn = sqlean.connect(str(store / "biographer.sqlite3"))
            texts += [r[0] for r in conn.execute("SELECT text FROM messages WHERE text != ''")]
            conn.close()
        matrix = np.asarray(embedder.embed(texts), dtype=np.float32)
        out["pooled_messages"] = {"vectors": len(matrix), "recall_by_shortlist": shortlist_recall(matrix, questions)}
    out["seconds"] = round(time.perf_counter() - started)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
