"""Re-reading a watched chat.db: what an hourly pass costs when nothing or little changed.

    python bench/watch_reread.py [--messages 100000] [--chats 50] [--runs 3]

Generates an iMessage chat.db (the real iOS 10.2 schema of tests/importers/data/imessage/)
of N messages in C chats, watches it, reads it once
(into a fresh store, keyword index only: embedding is measured by bench/ingest.py), then times
the pass over it three ways, each the median of --runs:
  untouched   the file and its -wal unchanged since the last read (the usual hour)
  same bytes  the same content read again in full (its state forgotten): snapshot, hash, skip
  one new     one message added, left in the -wal as Messages leaves it: snapshot, read every
              message, skip the known ones by their keys, save the one new
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sqlean  # noqa: E402

from bench.chat_store import RandomEmbedder  # noqa: E402
from bot.compose import build_feeds, open_memory  # noqa: E402
from core.config import Settings  # noqa: E402

NS_2020 = 599616000 * 10**9  # 2020-01-01 in Apple-epoch nanoseconds
WORDS = ("coffee tomorrow ferry Lisbon dinner marathon physio knee umbrella booked flights gate snacks "
         "birthday mum train late meeting project draft call weekend beach rain movie tickets").split()


SCHEMA = ROOT / "tests" / "importers" / "data" / "imessage" / "sms-ios10.2-schema.sql"
INSERT_MESSAGE = ("INSERT INTO message (ROWID, guid, text, handle_id, date, is_from_me, item_type,"
                  " associated_message_type) VALUES (?, ?, ?, ?, ?, ?, 0, 0)")


def make_chat_db(path: Path, messages: int, chats: int, seed: int = 7) -> None:
    """A Messages database with the real iOS 10.2 tables (and their indexes), filled with N
    generated messages over C one-to-one chats."""
    rng = random.Random(seed)
    conn = sqlean.connect(str(path))
    # sqlite_sequence is SQLite's own (AUTOINCREMENT makes it); the dump lists it with the tables
    conn.executescript(SCHEMA.read_text().replace("CREATE TABLE sqlite_sequence( name, seq);", ""))
    conn.executemany("INSERT INTO handle (ROWID, id, service) VALUES (?, ?, 'iMessage')",
                     [(c, f"+1555000{c:04d}") for c in range(1, chats + 1)])
    conn.executemany("INSERT INTO chat (ROWID, guid, chat_identifier, style, display_name) VALUES (?, ?, ?, 45, '')",
                     [(c, f"iMessage;-;+1555000{c:04d}", f"+1555000{c:04d}") for c in range(1, chats + 1)])
    conn.executemany("INSERT INTO chat_handle_join VALUES (?, ?)", [(c, c) for c in range(1, chats + 1)])
    rows, joins = [], []
    for n in range(1, messages + 1):
        chat = rng.randint(1, chats)
        rows.append((n, f"G-{n}", " ".join(rng.choices(WORDS, k=rng.randint(3, 18))), chat,
                     NS_2020 + n * 37 * 10**9, int(rng.random() < 0.45)))
        joins.append((chat, n))
    conn.executemany(INSERT_MESSAGE, rows)
    conn.executemany("INSERT INTO chat_message_join VALUES (?, ?)", joins)
    conn.commit()
    conn.close()


async def timed_pass(feeds, clock) -> tuple[float, int]:
    clock.now += timedelta(hours=1)  # the database is due again
    started = time.perf_counter()
    runs = await feeds.watch_pass()
    return time.perf_counter() - started, sum(r.messages_added for r in runs)


class Clock:
    def __init__(self) -> None:
        from datetime import datetime, timezone

        self.now = datetime.now(timezone.utc)

    def __call__(self):
        return self.now


async def main(messages: int, chats: int, runs: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        database = folder / "Messages" / "chat.db"
        database.parent.mkdir()
        started = time.perf_counter()
        make_chat_db(database, messages, chats)
        made = time.perf_counter() - started
        settings = Settings(data_dir=folder / "data")
        async with open_memory(settings, embedder=RandomEmbedder()) as memory:
            clock = Clock()
            feeds = build_feeds(settings, memory)
            feeds.book.clock = feeds.watcher.clock = clock
            feed = await feeds.add_watch(database)
            first, added = await timed_pass(feeds, clock)
            assert added == messages, (added, messages)
            untouched = [await timed_pass(feeds, clock) for _ in range(runs)]
            same = []
            for _ in range(runs):
                await feeds.book.set_cursor(feed, "database", {})  # forget its state: read it in full
                same.append(await timed_pass(feeds, clock))
            one_new = []
            writer = sqlean.connect(str(database))
            writer.execute("PRAGMA journal_mode=WAL")
            writer.execute("PRAGMA wal_autocheckpoint=0")
            for n in range(runs):
                rowid = messages + 1 + n
                writer.execute(INSERT_MESSAGE, (rowid, f"G-{rowid}", "one more message", 1,
                                                NS_2020 + rowid * 37 * 10**9, 0))
                writer.execute("INSERT INTO chat_message_join VALUES (1, ?)", (rowid,))
                writer.commit()
                one_new.append(await timed_pass(feeds, clock))
            writer.close()
        assert all(a == 0 for _, a in untouched + same) and all(a == 1 for _, a in one_new)
        return {
            "messages": messages, "chats": chats, "chat_db_mb": round(database.stat().st_size / 2**20, 1),
            "generate_s": round(made, 1), "first_read_s": round(first, 1),
            "untouched_s": round(statistics.median(t for t, _ in untouched), 3),
            "same_bytes_s": round(statistics.median(t for t, _ in same), 2),
            "one_new_s": round(statistics.median(t for t, _ in one_new), 2),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}",
        }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--chats", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    print(json.dumps(asyncio.run(main(options.messages, options.chats, options.runs)), indent=1))
