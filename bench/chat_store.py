"""A store holding one big generated WhatsApp chat, with vectors: the input of bench/forget.py
and bench/grep.py.

    python bench/chat_store.py /tmp/chat300k --messages 300000

The chat is written by bench/ingest.py's generator (two people, 4-30 words from a 70-word
vocabulary per message) and imported through the real ingest path, with a second chat of 1% of
its size (to forget a small source from a big store). Every chunk then gets a
random unit vector through the real indexer (the local model would take about an hour here and
is not what these benchmarks measure), so the vec0 index and the float vectors are as full as in
a real store.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ingest import write_whatsapp  # noqa: E402
from bot.compose import open_memory  # noqa: E402
from core.config import Settings  # noqa: E402

CHAT_NAME = "WhatsApp Chat with Tom Berg.txt"
SMALL_CHAT_NAME = "WhatsApp Chat with Ada Moss.txt"  # 1% of the big one, to forget from a big store


class RandomEmbedder:
    """Random unit vectors, fast: for benchmarks of everything around the model."""

    name, remote = "bench-random", False
    dim = 384

    def __init__(self, seed: int = 3) -> None:
        self.rng = np.random.default_rng(seed)

    def embed(self, texts, *, query=False):
        v = self.rng.standard_normal((len(texts), self.dim), dtype=np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


async def build(data: Path, messages: int) -> dict:
    """Import a generated chat of `messages` messages into a new store at `data`."""
    work = Path(tempfile.mkdtemp(prefix="biographer-chat-"))
    try:
        chat, small = work / CHAT_NAME, work / SMALL_CHAT_NAME
        write_whatsapp(chat, messages)
        write_whatsapp(small, max(messages // 100, 1), seed=5)
        started = time.perf_counter()
        async with open_memory(Settings(data_dir=data), embedder=RandomEmbedder()) as memory:
            report = await memory.ingest([chat, small], index=False)
            saved = time.perf_counter() - started
            await memory.index_pending()
            await memory.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return {"messages": report.messages_added, "chunks": report.chunks_added,
                "save_s": round(saved, 1), "total_s": round(time.perf_counter() - started, 1),
                "db_mb": round(Settings(data_dir=data).database_path.stat().st_size / 2**20)}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def bench_arguments(doc: str, *, runs: int, backups: bool = False) -> argparse.Namespace:
    """The options every benchmark over this store takes."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--messages", type=int, default=300_000)
    ap.add_argument("--store", type=Path, help="a store built by bench/chat_store.py (built here if absent)")
    ap.add_argument("--runs", type=int, default=runs)
    if backups:
        ap.add_argument("--backups", type=int, default=0, help="backups to take before forgetting")
    return ap.parse_args()


def ensure_store(args: argparse.Namespace, work: Path) -> tuple[Path, dict | None]:
    """The store named by --store, or one built in `work`; and the build's figures if built."""
    source = args.store or work / "built"
    if (source / "biographer.sqlite3").exists():
        return source, None
    return source, asyncio.run(build(source, args.messages))


def copy_store(source: Path, target: Path) -> None:
    """A fresh copy of a built store (each timed run starts from the same state)."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", type=Path)
    ap.add_argument("--messages", type=int, default=300_000)
    args = ap.parse_args()
    print(json.dumps(asyncio.run(build(args.data, args.messages))))


if __name__ == "__main__":
    main()
