"""Watched paths: a folder where exports land (a synced folder), read when a file changes, and a
database read in place (a Mac's chat.db, WhatsApp's ChatStorage.sqlite, a signal-export folder),
read again on its schedule (hourly by default). Each read adds only what is new: a file already
imported is skipped by its identity, an overlapping export by the message-level dedup.

A changed file is read only once its size and modification time have held for the settle time,
so a file still being written (a sync client, an export in progress) waits for the next pass. A
database is read from a snapshot taken with SQLite's online backup: consistent while its program
writes it, and holding what is still in its -wal file; no copy of it is kept (it stays where it is).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from core.errors import UserFacingError
from core.feeds.book import Feed, FeedBook, FeedRun
from core.importers.sqlite_files import SQLITE_MAGIC, snapshot
from core.memory.facade import Memory
from core.times import Clock, utc_now

log = logging.getLogger(__name__)

KIND = "watch"
_DURATION = re.compile(r"(\d+)\s*(d|h|m|s)", re.I)
_UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
SHORTEST_EVERY = 60  # the scheduler looks once a minute


def parse_duration(text: str) -> int:
    """Seconds in "90m", "1h30m", "2h", "1d", "45s" (at least a minute)."""
    compact = text.replace(" ", "").lower()
    parts = _DURATION.findall(compact)
    if not parts or "".join(f"{n}{u}" for n, u in parts) != compact:
        raise UserFacingError(f"{text!r} is not a duration", hint="write it like 30m, 1h, 6h or 1d")
    seconds = sum(int(n) * _UNIT_SECONDS[u] for n, u in parts)
    if seconds < SHORTEST_EVERY:
        raise UserFacingError(f"{text} is too often", hint="a minute (1m) is the shortest: the scheduler looks once a minute")
    return seconds


def duration_text(seconds: int) -> str:
    for unit in ("d", "h", "m"):
        if seconds % _UNIT_SECONDS[unit] == 0:
            return f"{seconds // _UNIT_SECONDS[unit]}{unit}"
    return f"{seconds}s"


def is_database(path: Path) -> bool:
    """A SQLite file (chat.db, ChatStorage.sqlite), or a signal-export folder (one folder per chat,
    each with its chat.md or data.json): read again on a schedule rather than on each change."""
    if path.is_file():
        with path.open("rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    return path.is_dir() and any((chat / "chat.md").is_file() or (chat / "data.json").is_file()
                                 for chat in path.iterdir() if chat.is_dir())


def watch_config(path: Path, every: str | None, *, database_every: int) -> dict[str, Any]:
    """What `watch add PATH [--every D]` sets up, checked: the path must exist now."""
    path = path.expanduser()
    if not path.exists():
        raise UserFacingError(f"{path} does not exist", hint="watch a folder where exports land, or a database file")
    path = path.resolve()
    database = is_database(path)
    seconds = parse_duration(every) if every else (database_every if database else None)
    return {"path": str(path), "database": database, "every": duration_text(seconds) if seconds else None}


def _state(path: Path) -> dict[str, int] | None:
    """What says a file changed: its size and modification time (None when it is gone)."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _database_state(path: Path) -> dict[str, Any]:
    """A database changes in its -wal file first: both count."""
    wal = path.with_name(path.name + "-wal")
    return {"main": _state(path), "wal": _state(wal)}


@dataclass
class Watcher:
    book: FeedBook
    memory: Memory
    settle_seconds: float = 5.0
    clock: Clock = utc_now
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    async def run_pass(self) -> list[FeedRun]:
        """Read every watched path that changed or is due; one run per path that was read. A path
        that cannot be read is one line in its run, and the others go on."""
        runs = []
        for feed in await self.book.list(KIND):
            try:
                run = await self._feed(feed)
            except UserFacingError as error:
                run = FeedRun(feed=feed, error=error.message)
            except OSError as error:
                run = FeedRun(feed=feed, error=f"{feed.name}: cannot be read ({error.strerror or error})")
            if run is None:
                continue
            for line in run.file_errors + ((run.error,) if run.error else ()):
                log.warning("watch: %s", line)
            await self.book.record(run)
            runs.append(run)
        if any(r.documents_added for r in runs):
            await self.memory.index_pending()
        return runs

    async def _feed(self, feed: Feed) -> FeedRun | None:
        path = Path(feed.config["path"])
        if not path.exists():
            raise UserFacingError(f"{path} is gone", hint="`biographer watch remove` stops watching it")
        every = parse_duration(feed.config["every"]) if feed.config.get("every") else None
        if every is not None and not self._due(feed, every):
            return None
        if feed.config.get("database") and path.is_file():
            return await self._database(feed, path)
        return await self._files(feed, path, scheduled=every is not None)

    def _due(self, feed: Feed, every: int) -> bool:
        if feed.last_run_at is None:
            return True
        last = datetime.fromisoformat(feed.last_run_at.replace("Z", "+00:00"))
        return self.clock() - last >= timedelta(seconds=every)

    async def _files(self, feed: Feed, root: Path, *, scheduled: bool) -> FeedRun | None:
        """The files under `root` that changed since they were last read, once they hold still."""
        # here, not at the top: it brings every importer, and every command builds the feeds
        from core.memory.ingest import expand_paths

        cursors = await self.book.cursors(feed)
        files = await asyncio.to_thread(lambda: list(expand_paths([root], skip=self.memory.raw_dir.parent)))
        changed = {f: s for f in files if (s := _state(f)) is not None and cursors.get(str(f)) != s}
        if not changed:
            return FeedRun(feed=feed) if scheduled else None
        await self.sleep(self.settle_seconds)
        still = [f for f, s in changed.items() if _state(f) == s]
        if not still:
            return FeedRun(feed=feed) if scheduled else None  # all still being written: the next pass
        before = await self.book.highest_document_id()
        report = await self.memory.ingest(still, index=False)
        for path in still:  # failed ones too: a broken file is reported once, not every minute
            await self.book.set_cursor(feed, str(path), changed[path])
        chats = await self.book.link_new_files(feed, after_id=before, under=str(root))
        return FeedRun(feed=feed, messages_added=report.messages_added, documents_added=report.documents_added,
                       chats=chats, file_errors=tuple(report.errors))

    async def _database(self, feed: Feed, path: Path) -> FeedRun:
        state = _database_state(path)
        if (await self.book.cursors(feed)).get("database") == state:
            return FeedRun(feed=feed)  # not touched since the last read: nothing to read
        with self.memory.uploads.scratch("watch-") as folder:  # inside the data folder: the owner's messages
            copy = folder / path.name  # the same name: iMessage's chat.db is known by it
            await asyncio.to_thread(snapshot, path, copy)
            before = await self.book.highest_document_id()
            report = await self.memory.ingest([copy], index=False, keep_raw=False)
            chats = await self.book.link_new_files(feed, after_id=before, under=str(folder))
        await self.book.set_cursor(feed, "database", state)
        return FeedRun(feed=feed, messages_added=report.messages_added, documents_added=report.documents_added,
                       chats=chats, file_errors=tuple(report.errors))
