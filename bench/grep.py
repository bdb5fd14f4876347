"""grep on a big store: how long a page takes, and how long the event loop stalls meanwhile.

    python bench/grep.py --messages 300000 [--store /tmp/chat300k] [--runs 5]

Builds (or reuses, with --store) the store of bench/chat_store.py and times `Memory.grep` (what
`biographer grep` and the agent's grep tool call) for a common word, a deep page of it, a
phrase, a rare word and two regular expressions. A task ticking every 10 ms on the same event
loop records the longest gap between its ticks: what a bot's polling, scheduler and Discord
heartbeat would have waited. Medians over --runs.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.chat_store import RandomEmbedder, bench_arguments, ensure_store  # noqa: E402
from bot.compose import open_memory  # noqa: E402
from core.config import Settings  # noqa: E402

CASES = [
    ("common word, page 1 of 5", dict(pattern="coffee", page_size=5)),
    ("common word, page 200 of 5", dict(pattern="coffee", page_size=5, page=200)),
    ("phrase, page 1 of 20", dict(pattern="coffee dinner")),
    ("rare word", dict(pattern="zebra")),
    ("regex coff?ee\\b, page 1 of 20", dict(pattern=r"coff?ee\b", regex=True)),
    ("regex (a+)+$", dict(pattern="(a+)+$", regex=True)),
]


async def ticker(stop: asyncio.Event, gaps: list[float]) -> None:
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0.01)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now


async def timed(memory, kwargs: dict) -> tuple[float, float, dict]:
    stop, gaps = asyncio.Event(), []
    tick = asyncio.create_task(ticker(stop, gaps))
    await asyncio.sleep(0.05)
    gaps.clear()
    started = time.perf_counter()
    page = await memory.grep(**kwargs)
    seconds = time.perf_counter() - started
    stop.set()
    await tick
    stall = max(gaps, default=seconds) if gaps else seconds
    return seconds, stall, {"total": page.total, "estimate": getattr(page, "total_is_estimate", False),
                            "shown": len(page.matches)}


async def run(data: Path, runs: int) -> dict:
    out = {}
    async with open_memory(Settings(data_dir=data), embedder=RandomEmbedder()) as memory:
        for name, kwargs in CASES:
            timings, stalls = [], []
            for _ in range(runs):
                seconds, stall, page = await timed(memory, kwargs)
                timings.append(seconds)
                stalls.append(stall)
            out[name] = {"median_s": round(statistics.median(timings), 3),
                         "loop_stall_ms": round(statistics.median(stalls) * 1000), **page}
    return out


def main() -> None:
    args = bench_arguments(__doc__, runs=5)
    work = Path(tempfile.mkdtemp(prefix="biographer-grep-"))
    try:
        source, built = ensure_store(args, work)
        print(json.dumps({"built": built, **asyncio.run(run(source, args.runs))}, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
