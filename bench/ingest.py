"""Ingest throughput and memory.

    python bench/ingest.py pipeline --messages 200000   # parse + chunk + write + FTS, no embedding
    python bench/ingest.py big --gb 1                    # `biographer ingest --no-index` on a 1 GB text file: peak RSS
    python bench/ingest.py model --messages 3000         # with the real local model: chunks/s, share of time in it

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
        else:
            chat = work / "WhatsApp Chat with Tom Berg.txt"
            write_whatsapp(chat, args.messages)
            out = asyncio.run(timed_ingest([chat], work / "s", index=True))
        print(json.dumps(out))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
