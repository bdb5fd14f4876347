"""The short list on 100,000 real vectors and on a million made from them: real texts embedded once
with the product's own embedder (MiniLM int8, as `reindex` stores them), then the sign-bit short
list's recall of the exact top 10 (cosine, over every vector) for queries kept out of the store.

    python bench/shortlist_real.py             # embeds what the cache lacks (resumable), then measures
    python bench/shortlist_real.py --embed-only   # fill the cache (run it under nice, in the background)
    python bench/shortlist_real.py --pad 200000,1000000
    python bench/shortlist_real.py --filtered 0.15,0.25,0.5   # a wide filter: the short list among its chunks

The store: every real text LoCoMo holds (its chunks as the product cuts them, each message, the
observations and summaries: 10,689; /work/shared/eval/locomo, read in place), every English fortune
cookie of Debian's `fortunes` and `fortunes-min` (14,831 after 300 held out) and WordNet 3.0 glosses
(Debian `wordnet-base`; a definition with its example sentences, shuffled with a fixed seed) to make
100,000. Queries: 300 of LoCoMo's questions, 300 fortunes and 300 glosses none of which is stored.
`apt-get install fortunes wordnet-base` first.

The vectors are cached outside the repository in ~/.cache/biographer-bench/shortlist-real/
(BIOGRAPHER_BENCH_CACHE moves it), 4,096 texts a file named by their hash, so a killed run goes on
where it stopped and a changed corpus re-embeds only what changed. A million is made by adding
900,000 vectors two ways: `around` (each a stored real vector moved by random noise orthogonal to
it to a cosine of 0.6-0.95 with it: crowded neighbourhoods of real text, the hard case for sign
bits) and `uniform` (random unit vectors: unrelated distractors). Short lists are measured at
fixed sizes and at the size the product picks for a store of that many vectors
(core/memory/search.py shortlist_size).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
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

CACHE = Path(os.environ.get("BIOGRAPHER_BENCH_CACHE", Path.home() / ".cache" / "biographer-bench")) / "shortlist-real"
SIZES = (100, 200, 400, 600, 800, 1000, 1500, 2000, 4000, 8000)
FORTUNES = Path("/usr/share/games/fortunes")  # Debian `fortunes` + `fortunes-min` (BSD fortune(6))
WORDNET = Path("/usr/share/wordnet")  # Debian `wordnet-base`: Princeton WordNet 3.0 (WordNet 3.0 licence)
STORED = 100_000  # real texts in the store: LoCoMo's, every fortune, and WordNet glosses for the rest
HELD_OUT = 300  # fortunes and glosses kept out of the store, as queries beside LoCoMo's questions
PART = 4096  # texts embedded (and saved) at a time: a killed run loses at most one part


def locomo_texts() -> list[str]:
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


def fortunes() -> list[str]:
    """Every distinct fortune cookie of the installed English collections (quotes, jokes, bits of
    dialogue: real text people wrote), in file order."""
    files = sorted(f for f in FORTUNES.iterdir()
                   if f.is_file() and not f.is_symlink() and f.suffix not in (".dat", ".u8"))
    seen: dict[str, None] = {}
    for f in files:
        for text in f.read_text(encoding="utf-8", errors="replace").split("\n%\n"):
            text = text.strip().strip("%").strip()
            if text:
                seen.setdefault(text, None)
    return list(seen)


def wordnet_glosses() -> list[str]:
    """Every distinct WordNet 3.0 gloss (a definition and its example sentences), shuffled once
    with a fixed seed so any prefix spans nouns, verbs, adjectives and adverbs."""
    seen: dict[str, None] = {}
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (WORDNET / f"data.{pos}").open(encoding="latin-1"):
            if not line.startswith("  ") and " | " in line:
                seen.setdefault(line.split(" | ", 1)[1].strip(), None)
    glosses = list(seen)
    return [glosses[i] for i in np.random.default_rng(25).permutation(len(glosses))]


def corpus() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The stored texts and the held-out query texts, by source."""
    missing = [p for p in (FORTUNES / "fortunes", WORDNET / "data.noun") if not p.exists()]
    if missing:
        raise SystemExit(f"{missing[0]} is missing: apt-get install fortunes wordnet-base")
    locomo, cookies, glosses = locomo_texts(), fortunes(), wordnet_glosses()
    step = len(cookies) // HELD_OUT
    held = set(range(step // 2, len(cookies), step)[:HELD_OUT])
    stored = {"locomo": locomo, "fortunes": [c for i, c in enumerate(cookies) if i not in held]}
    rest = STORED - len(locomo) - len(stored["fortunes"])
    stored["wordnet"] = glosses[:rest]
    queries = {"fortunes": [cookies[i] for i in sorted(held)], "wordnet": glosses[rest:rest + HELD_OUT]}
    return stored, queries


def cached_vectors(name: str, texts: list[str], embedder, *, query: bool = False,
                   backwards: bool = False) -> np.ndarray:
    """The texts' vectors, embedded PART at a time into CACHE/name/NNNNN-HASH.npy; a part is reused
    while the texts it was made from are unchanged (their hash is in its name). A second process
    going `backwards` fills the parts from the other end."""
    folder = CACHE / name
    folder.mkdir(parents=True, exist_ok=True)
    parts = []
    starts = range(0, len(texts), PART)
    for start in reversed(starts) if backwards else starts:
        chunk = texts[start:start + PART]
        digest = hashlib.sha256("\0".join(chunk).encode()).hexdigest()[:16]
        path = folder / f"{start // PART:05d}-{digest}.npy"
        if not path.exists():
            began = time.perf_counter()
            vectors = np.asarray(embedder.embed(chunk, query=query), dtype=np.float32)
            tmp = path.with_suffix(f".{os.getpid()}.npy")
            np.save(tmp, vectors)
            tmp.rename(path)
            print(f"{name}: embedded {start + len(chunk)}/{len(texts)} "
                  f"({len(chunk) / (time.perf_counter() - began):.1f}/s, load {os.getloadavg()[0]:.1f})",
                  file=sys.stderr, flush=True)
        parts.append(np.load(path))
    if backwards:
        parts.reverse()
    return np.concatenate(parts) if parts else np.zeros((0, embedder.dim), np.float32)


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


def recall(real: np.ndarray, queries: dict[str, np.ndarray], pad: int, kind: str) -> dict:
    """Share of each query set's exact top 10 (cosine, over every vector) that the short list of
    each size holds, with the store padded by `pad` vectors of `kind`."""
    rng = np.random.default_rng(7)
    q = np.concatenate(list(queries.values()))
    bits = [sign_words(real)]
    top = _top10(real @ q.T, 0)  # (scores, ids), 10 x queries, kept as blocks are added
    offset = len(real)
    for block in padding(real, pad, kind, rng):
        bits.append(sign_words(block))
        top = _merge(top, _top10(block @ q.T, offset))
        offset += len(block)
    words = np.concatenate(bits, axis=1)  # sign words are stored one row per 64 dimensions
    n = words.shape[1]
    sized = shortlist_size(n)
    sizes = sorted({*(k for k in SIZES if k < n), sized})
    found = shortlist_hits(words, q, top[1], sizes)
    out = {"vectors": n, "padding": kind if pad else "none", "shortlist_size": sized, "recall": {}}
    start = 0
    for name, vectors in queries.items():
        part = found[start:start + len(vectors)]
        out["recall"][name] = {str(k): round(float(part[:, i].sum() / (10 * len(part))), 4)
                               for i, k in enumerate(sizes)}
        start += len(vectors)
    return out


def filtered_recall(real: np.ndarray, queries: dict[str, np.ndarray], shares: list[float]) -> dict:
    """A filter past what is searched exactly (core's 20,000 chunks, or an eighth of the store
    while bytes bound it): the sign bits' short list among the chunks it keeps, at the size the
    product gives the whole store, against the exact top 10 of the kept chunks. Two kinds of
    filter for each share: a random one (a person's chunks, spread over the store) and a run of
    ids (a period: the store is in import order)."""
    rng = np.random.default_rng(11)
    q = np.concatenate(list(queries.values()))
    sized = shortlist_size(len(real))
    out: dict = {"vectors": len(real), "shortlist_size": sized, "recall": {}}
    for share in shares:
        keep = int(len(real) * share)
        start = int(rng.integers(0, len(real) - keep))
        for kind, ids in (("random", np.sort(rng.choice(len(real), keep, replace=False))),
                          ("run", np.arange(start, start + keep))):
            kept = real[ids]
            top = _top10(kept @ q.T, 0)[1]  # positions among the kept chunks
            found = shortlist_hits(sign_words(kept), q, top, [sized])[:, 0]
            at = 0
            for name, vectors in queries.items():
                part = found[at:at + len(vectors)]
                out["recall"].setdefault(f"{share:.0%} {kind}", {})[name] = round(float(part.sum() / (10 * len(part))), 4)
                at += len(vectors)
    return out


def shortlist_hits(words: np.ndarray, queries: np.ndarray, top_ids: np.ndarray, sizes: list[int]) -> np.ndarray:
    """How many of each query's exact top ids (a column of `top_ids`) the k nearest by sign bits
    hold, for each k in `sizes`, found as the index finds them (hamming_distances, smallest, a
    stable sort): shape (queries, sizes)."""
    found = np.zeros((len(queries), len(sizes)), dtype=np.int64)
    for qi, q in enumerate(queries):
        exact = set(top_ids[:, qi].tolist())
        distance = hamming_distances(words, sign_words(q[None, :])[:, 0])
        ranked = smallest(distance, max(sizes))
        order = ranked[np.argsort(distance[ranked], kind="stable")]
        for i, k in enumerate(sizes):
            found[qi, i] = len(exact & set(order[:k].tolist()))
    return found


def _top10(scores: np.ndarray, offset: int) -> tuple[np.ndarray, np.ndarray]:
    idx = np.argpartition(-scores, 10, axis=0)[:10]
    return np.take_along_axis(scores, idx, axis=0), idx + offset


def _merge(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    s, i = np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]])
    keep = np.argpartition(-s, 10, axis=0)[:10]
    return np.take_along_axis(s, keep, axis=0), np.take_along_axis(i, keep, axis=0)


def cost(stores: list[Path], sizes: list[int], runs: int) -> dict:
    """Milliseconds of the vector half (sign bits, then the short list ranked by sqlite-vec over
    float vectors read from the store, as a one-shot search does) for each short-list size, the
    sizes alternating query by query so they see the same load; query vectors as bench/latency.py
    draws them."""
    from bench.latency import percentiles, workload
    from core.memory.search import SEMANTIC_DEPTH
    from storage.vectors.index import VectorIndex

    _, vectors = workload(runs, round_=11)
    out = {}
    for store in stores:
        index = VectorIndex(store / "biographer.sqlite3")
        index.refresh()
        n = len(index)
        ks = sorted({*sizes, shortlist_size(n)})
        times: dict[int, list[float]] = {k: [] for k in ks}
        for i, v in enumerate(vectors):
            for k in ks if i % 2 == 0 else ks[::-1]:
                began = time.perf_counter()
                index.search(v, shortlist=k, depth=SEMANTIC_DEPTH)
                times[k].append((time.perf_counter() - began) * 1000)
        index.close()
        out[str(store)] = {"vectors": n, "shortlist_size": shortlist_size(n),
                           "ms": {str(k): percentiles(t[2:]) for k, t in times.items()},
                           "load_average": round(os.getloadavg()[0], 1)}
        print(json.dumps(out[str(store)]), file=sys.stderr, flush=True)
    return out


def locomo_questions(count: int) -> list[str]:
    items = [json.loads(line) for line in (EVAL / "qa.jsonl").open() if line.strip()]
    return [it["question"] for it in items[::max(1, len(items) // count)][:count]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=HELD_OUT, help="LoCoMo questions used (every n-th)")
    ap.add_argument("--pad", default="1000000", help="store sizes to pad the real vectors to")
    ap.add_argument("--embed-only", action="store_true", help="fill the cache and stop")
    ap.add_argument("--backwards", action="store_true", help="with --embed-only: a second process, "
                    "filling the cache from its other end")
    ap.add_argument("--cost", default="", help="stores (comma-separated, e.g. bench/latency.py's) "
                    "to time the vector half on with the short-list sizes of --sizes instead")
    ap.add_argument("--sizes", default="400,1000,2000", help="short-list sizes timed by --cost")
    ap.add_argument("--runs", type=int, default=60, help="queries timed by --cost")
    ap.add_argument("--filtered", default="", help="shares of the 100k real vectors a filter keeps "
                    "(e.g. 0.25,0.5): the short list's recall among them instead")
    args = ap.parse_args()
    if args.cost:
        sizes = [int(k) for k in args.sizes.split(",")]
        print(json.dumps(cost([Path(p) for p in args.cost.split(",")], sizes, args.runs), indent=1))
        return
    embedder = build_embedder(Settings(), DEFAULT_EMBEDDING_MODEL)
    stored, held_out = corpus()
    if args.embed_only and args.backwards:
        for name, texts in reversed(stored.items()):
            cached_vectors(name, texts, embedder, backwards=True)
        return
    real = np.concatenate([cached_vectors(name, texts, embedder) for name, texts in stored.items()])
    queries = {"locomo questions": locomo_questions(args.queries),
               **{f"held-out {name}": texts for name, texts in held_out.items()}}
    qv = {name: cached_vectors(f"queries-{name.replace(' ', '-')}", texts, embedder, query=True)
          for name, texts in queries.items()}
    if args.embed_only:
        return
    if args.filtered:
        result = filtered_recall(real, qv, [float(x) for x in args.filtered.split(",")])
        print(json.dumps({**result, "load_average": round(os.getloadavg()[0], 1)}, indent=1))
        return
    out = {"model": embedder.name, "stored": {name: len(t) for name, t in stored.items()},
           "mean_chars": {name: round(sum(map(len, t)) / len(t)) for name, t in stored.items()},
           "queries": {name: len(v) for name, v in qv.items()}, "runs": []}
    runs = [(0, "none")] + [(int(s) - len(real), kind) for s in args.pad.split(",") if s
                            for kind in ("around", "uniform")]
    for pad, kind in runs:
        out["runs"].append(recall(real, qv, pad, kind))
        print(json.dumps(out["runs"][-1]), file=sys.stderr, flush=True)
    out["load_average"] = round(os.getloadavg()[0], 1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
