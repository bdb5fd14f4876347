"""How long each picture takes over ten years of data: store queries and drawing, no model.

    python bench/pictures.py build /tmp/pic10y --messages 1000000
    python bench/pictures.py time /tmp/pic10y --runs 5
    python bench/pictures.py inserts --messages 200000

`build` writes a synthetic store through the storage layer: ten years (2015-2024) of chat
messages from 300 people (Zipf-distributed, so a few write most; 40 % of the messages are the
owner's), at random times of day, texts naming someone now and then; 300 timeline events; 400
questions. `time` runs in a fresh process: the first picture of each kind pays matplotlib's
import (as the first picture after a start does), then the median of `--runs` more, and how much
of that is reading the store (the rest is drawing and PNG encoding). `inserts` is what the
activity index (migration 130) costs an import: the same chats, each in time order as an export
is, inserted by turns into a store with it and one with the sender index it replaced.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from storage import documents as document_store  # noqa: E402
from storage import messages as message_store  # noqa: E402
from storage import people as people_store  # noqa: E402
from storage import questions as question_store  # noqa: E402
from storage import timeline as timeline_store  # noqa: E402
from storage.db import open_database  # noqa: E402

SEED = 11
PEOPLE = 300
START = datetime(2015, 1, 1, tzinfo=timezone.utc)
YEARS_SECONDS = 3653 * 86400
BATCH = 50_000
TITLES = ("Moved to {}", "Started at {} company", "Knee surgery in {}", "Married in {}", "Trip to {}",
          "New flat in {}", "Graduated in {}", "Daughter born in {}")
PLACES = ("Lisbon", "Porto", "Coimbra", "Faro", "Braga", "Madeira", "Berlin", "Tavira")


async def build(path: Path, n: int) -> None:
    rng = random.Random(SEED)
    names = [f"Person{i} Surname{i}" for i in range(PEOPLE)]
    weights = [1 / (i + 1) ** 1.1 for i in range(PEOPLE)]
    path.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    async with open_database(path / "biographer.sqlite3") as conn:
        async with conn.transaction():
            doc = await document_store.insert_document(
                conn, kind="whatsapp", name="synthetic chats", identity="synthetic", source_path=None,
                content_hash=None, byte_size=None, raw_path=None, platform="whatsapp", conversation_key="all")
        moments = sorted(rng.random() * YEARS_SECONDS for _ in range(n))
        senders = rng.choices(names, weights, k=n)
        for first in range(0, n, BATCH):
            rows = []
            for j in range(first, min(n, first + BATCH)):
                mine = rng.random() < 0.4
                sender = "Ana" if mine else senders[j]
                text = f"met {rng.choice(names).split()[0]} today" if rng.random() < 0.1 else "fine, see you"
                at = (START + timedelta(seconds=moments[j])).strftime("%Y-%m-%dT%H:%M:%SZ")
                rows.append(message_store.MessageRecord(
                    doc, "whatsapp", "all", None, sender, None, mine, at, None, "text", None, None, text, "[]",
                    f"synthetic|{j}", 0, 0))
            async with conn.transaction():
                await message_store.insert_messages(conn, rows)
        await people_store.sync_from_messages(conn)
        async with conn.transaction():
            for i in range(300):
                day = START + timedelta(seconds=rng.random() * YEARS_SECONDS)
                date = day.strftime(rng.choice(("%Y", "%Y-%m", "%Y-%m-%d")))
                await timeline_store.add_event(conn, date=date, title=rng.choice(TITLES).format(rng.choice(PLACES)),
                                               detail="", locators=[f"doc{doc}:0-10"] * rng.randint(1, 4),
                                               run_id=None, at="2025-01-01T00:00:00Z")
            for i in range(400):
                qid = await question_store.add_question(conn, text=f"question {i}", why="", priority=3, run_id=None,
                                                        locators=[], at="2024-01-01T00:00:00Z")
                if i % 3 == 0:
                    await question_store.resolve(conn, qid, status="answered", resolution="",
                                                 at=f"2024-12-{1 + i % 28:02d}T12:00:00Z")
        await conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    print(json.dumps({"messages": n, "build_s": round(time.perf_counter() - started, 1),
                      "db_mb": round((path / "biographer.sqlite3").stat().st_size / 2**20)}))


async def measure(path: Path, runs: int) -> dict:
    from core.importers import ImportContext
    from core.memory.facade import Memory
    from core.service.admin import AdminFacet
    from core.service.parts import Parts

    zone = ZoneInfo("Europe/Lisbon")

    class _NoEmbedder:
        name, dim, max_tokens, remote = "none", 384, 256, False

        def embed(self, texts, *, query=False):  # pragma: no cover - pictures never embed
            raise AssertionError("pictures do not embed")

    out: dict = {"store": str(path), "runs": runs}
    async with open_database(path / "biographer.sqlite3") as conn:
        memory = Memory(conn, embedder=_NoEmbedder(), raw_dir=path / "raw",
                        context=ImportContext(timezone=zone, owner_aliases=frozenset({"ana"})))
        service = AdminFacet(Parts(memory=memory, clock=lambda: datetime(2024, 12, 31, 20, tzinfo=zone)))
        gather = {"week": service.pictures.week_data, "people": service.pictures.contact_data,
                  "timeline": service.pictures.timeline_data}
        for kind in ("week", "people", "timeline"):
            timings, data_s = [], []
            for _ in range(runs + 1):
                started = time.perf_counter()
                picture = await service.pictures.make(kind)
                timings.append(time.perf_counter() - started)
                started = time.perf_counter()
                await gather[kind]()
                data_s.append(time.perf_counter() - started)
            out[kind] = {"first_s": round(timings[0], 2), "median_s": round(statistics.median(timings[1:]), 2),
                         "of_which_data_s": round(statistics.median(data_s[1:]), 2),
                         "png_kb": len(picture.png) // 1024}
    return out


async def inserts(n: int) -> dict:
    import tempfile
    from contextlib import AsyncExitStack

    rng = random.Random(SEED)
    senders = [f"Person{i}" for i in range(50)]
    seconds = {"activity index": 0.0, "sender index only": 0.0}
    async with AsyncExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        stores = {}
        for name in seconds:
            conn = await stack.enter_async_context(open_database(folder / f"{len(stores)}.sqlite3"))
            if name == "sender index only":  # the index as it was before migration 130
                await conn.execute("DROP INDEX messages_activity")
                await conn.execute("CREATE INDEX messages_sender ON messages(sender COLLATE NOCASE)")
                await conn.commit()
            async with conn.transaction():
                doc = await document_store.insert_document(conn, kind="whatsapp", name="x", identity="x",
                                                           source_path=None, content_hash=None, byte_size=None,
                                                           raw_path=None)
            stores[name] = (conn, doc)
        for chat in range(n // 5000):  # chats of 5,000 messages, each over a year, in time order
            year = rng.randint(2010, 2024)
            rows = [(rng.choice(senders), f"{year}-{1 + j * 12 // 5000:02d}-{1 + j % 28:02d}T{j % 24:02d}:{j % 60:02d}:00Z")
                    for j in range(5000)]
            order = list(stores)
            rng.shuffle(order)
            for name in order:
                conn, doc = stores[name]
                records = [message_store.MessageRecord(doc, "whatsapp", f"c{chat}", None, sender, None, False, at, None,
                                                       "text", None, None, "a message of ordinary length, say", "[]",
                                                       f"{chat}|{j}", 0, 0) for j, (sender, at) in enumerate(rows)]
                started = time.perf_counter()
                async with conn.transaction():
                    await message_store.insert_messages(conn, records)
                seconds[name] += time.perf_counter() - started
    return {name: round(value, 2) for name, value in seconds.items()} | {
        "ratio": round(seconds["activity index"] / seconds["sender index only"], 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("path", type=Path)
    b.add_argument("--messages", type=int, default=1_000_000)
    t = sub.add_parser("time")
    t.add_argument("path", type=Path)
    t.add_argument("--runs", type=int, default=5)
    i = sub.add_parser("inserts")
    i.add_argument("--messages", type=int, default=200_000)
    args = parser.parse_args()
    if args.cmd == "build":
        asyncio.run(build(args.path, args.messages))
    elif args.cmd == "inserts":
        print(json.dumps(asyncio.run(inserts(args.messages))))
    else:
        print(json.dumps(asyncio.run(measure(args.path, args.runs))))


if __name__ == "__main__":
    main()
