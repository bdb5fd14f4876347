"""Forgetting a big source, and what a chat sees meanwhile.

    python bench/forget.py --messages 300000 [--store /tmp/chat300k] [--runs 3] [--backups 2]

Builds (or reuses, with --store) a store holding a generated WhatsApp chat of N messages and one
of N/100, with vectors (bench/chat_store.py), copies it, and forgets the big chat, then (in a
fresh copy) the small one, through `Memory.forget` on the shared connection, as `biographer
forget` does (with --backups N, after taking N backups, which the forget rewrites too).
Meanwhile a chat-like task on the same connection runs a keyword search and reads the store's
statistics (what the agent's tools and /stats do) every 100 ms, and records how long each took. Prints the forget's wall time, the
chat's latencies during it, and the store's file sizes before and after.
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

from bench.chat_store import RandomEmbedder, bench_arguments, copy_store, ensure_store  # noqa: E402
from bot.compose import open_memory  # noqa: E402
from core.config import Settings  # noqa: E402
from core.privacy.backups import take_backup  # noqa: E402


def _sizes(settings: Settings) -> dict:
    db = settings.database_path
    wal = db.with_name(db.name + "-wal")
    return {"db_mb": round(db.stat().st_size / 2**20, 1),
            "wal_mb": round(wal.stat().st_size / 2**20, 1) if wal.exists() else 0.0}


async def chat_meanwhile(memory, stop: asyncio.Event, latencies: list[float]) -> None:
    """A keyword search and a look at the sources every 100 ms, each timed from the caller's side."""
    while not stop.is_set():
        started = time.perf_counter()
        await memory.search("coffee dinner", limit=8, mode="keyword")
        await memory.stats()
        latencies.append(time.perf_counter() - started)
        await asyncio.sleep(0.1)


async def timed_forget(data: Path, which: str, backups: int) -> dict:
    settings = Settings(data_dir=data)
    before = _sizes(settings)
    async with open_memory(settings, embedder=RandomEmbedder()) as memory:
        for _ in range(backups):
            await take_backup(memory.conn, backup_dir=settings.backup_dir, raw_dir=settings.raw_dir, keep=backups)
        order = "DESC" if which == "big" else "ASC"
        document_id, messages = (await memory.conn.execute_fetchall(
            f"SELECT d.id, COUNT(m.id) FROM documents d JOIN messages m ON m.document_id = d.id "
            f"GROUP BY d.id ORDER BY COUNT(m.id) {order} LIMIT 1"))[0]
        stop, latencies = asyncio.Event(), []
        chat = asyncio.create_task(chat_meanwhile(memory, stop, latencies))
        await asyncio.sleep(0.5)
        quiet = list(latencies)
        latencies.clear()
        started = time.perf_counter()
        forgotten = await memory.forget(document_id)
        seconds = time.perf_counter() - started
        stop.set()
        await chat
        left = (await memory.conn.execute_fetchall("SELECT COUNT(*) FROM chunks"))[0][0]
    during = sorted(latencies)
    return {
        "forgotten": f"{which}: {messages} messages",
        "forget_s": round(seconds, 2),
        "backups_rewritten": forgotten.backups,
        "chunks_left": left,
        "chat_requests_during_forget": len(during),
        "chat_p50_ms_idle": round(statistics.median(quiet) * 1000, 1) if quiet else None,
        "chat_p50_ms_during": round(statistics.median(during) * 1000, 1) if during else None,
        "chat_max_ms_during": round(during[-1] * 1000, 1) if during else None,
        "before": before,
        "after": _sizes(settings),
    }


def main() -> None:
    args = bench_arguments(__doc__, runs=1, backups=True)
    work = Path(tempfile.mkdtemp(prefix="biographer-forget-"))
    try:
        source, built = ensure_store(args, work)
        runs = []
        for _ in range(args.runs):
            for which in ("big", "small"):
                copy_store(source, work / "run")
                runs.append(asyncio.run(timed_forget(work / "run", which, args.backups)))
        print(json.dumps({"built": built, "runs": runs}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
