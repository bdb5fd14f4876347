"""Watched paths: a folder read when its files change (once they hold still), a database read in
place on its schedule, one summary per pass, errors one line each."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import sqlean

from core.errors import UserFacingError
from core.feeds.book import summary
from core.feeds.facade import Feeds
from core.feeds.watch import parse_duration
from tests.core.helpers import MAYA_CHAT, memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder
from tests.importers.test_imessage import NS_2024, make_chat_db

pytestmark = pytest.mark.asyncio

# MAYA_CHAT by hand: 5 messages from Ana and Maya (the encryption notice is nobody's message)
MAYA_MESSAGES = 5


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2024, 6, 1, 12, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now


def feeds_over(memory, clock: Clock | None = None) -> Feeds:
    feeds = Feeds(memory, secrets=lambda _name: None, clock=clock or Clock(), watch_settle_seconds=0.0)
    return feeds


async def message_count(memory) -> int:
    async with memory.conn.execute("SELECT COUNT(*) FROM messages") as cur:
        return (await cur.fetchone())[0]


async def test_a_new_export_in_a_watched_folder_is_read_once_and_an_overlapping_one_adds_only_the_new(
        tmp_path: Path):
    inbox = tmp_path / "exports"
    inbox.mkdir()
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        feeds = feeds_over(memory)
        await feeds.add_watch(inbox)
        assert await feeds.watch_pass() == []  # nothing there yet: no run, no message
        whatsapp_export(inbox / "WhatsApp Chat with Maya.txt", MAYA_CHAT)
        runs = await feeds.watch_pass()
        assert summary(runs) == f"{MAYA_MESSAGES} new messages in 1 chat"
        assert await feeds.watch_pass() == []  # unchanged: not read again
        # the phone exports the chat again a week later, with two more messages
        later = [*MAYA_CHAT, "21/03/2024, 10:00 - Maya: Physio said rest two weeks", "21/03/2024, 10:01 - Ana: Ugh"]
        whatsapp_export(inbox / "WhatsApp Chat with Maya (1).txt", later)
        runs = await feeds.watch_pass()
        assert summary(runs) == "2 new messages in 1 chat"
        assert await message_count(memory) == MAYA_MESSAGES + 2
        [feed] = await feeds.watched()
        assert feed.last_added == 2 and feed.last_error is None


async def test_a_file_still_being_written_waits_for_the_next_pass(tmp_path: Path):
    inbox = tmp_path / "exports"
    inbox.mkdir()
    chat = inbox / "WhatsApp Chat with Maya.txt"
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        feeds = feeds_over(memory)
        await feeds.add_watch(inbox)
        whatsapp_export(chat, MAYA_CHAT[:3])

        async def still_writing(_seconds: float) -> None:  # the sync client appends while we wait
            with chat.open("a", encoding="utf-8") as f:
                f.write("\n".join(MAYA_CHAT[3:]) + "\n")

        feeds.watcher.sleep = still_writing
        assert await feeds.watch_pass() == [] and await message_count(memory) == 0
        feeds.watcher.sleep = asyncio.sleep
        assert summary(await feeds.watch_pass()) == f"{MAYA_MESSAGES} new messages in 1 chat"


async def test_a_broken_file_is_one_line_and_the_rest_of_the_pass_goes_on(tmp_path: Path):
    inbox = tmp_path / "exports"
    inbox.mkdir()
    other = tmp_path / "gone-soon"
    other.mkdir()
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        feeds = feeds_over(memory)
        await feeds.add_watch(other)
        await feeds.add_watch(inbox)
        other.rmdir()
        (inbox / "notes.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
        whatsapp_export(inbox / "WhatsApp Chat with Maya.txt", MAYA_CHAT)
        gone, read = await feeds.watch_pass()
        assert gone.error == f"{other} is gone"
        assert read.messages_added == MAYA_MESSAGES and len(read.file_errors) == 1
        assert read.file_errors[0].startswith("notes.pdf") and "\n" not in read.file_errors[0]
        assert summary([gone, read]) == f"{MAYA_MESSAGES} new messages in 1 chat"
        watched = {f.name: f for f in await feeds.watched()}
        assert watched[str(inbox)].last_error == read.file_errors[0]
        # the broken file is reported once, not on every pass
        assert [r.feed.name for r in await feeds.watch_pass()] == [str(other)]


def add_imessage(path: Path, rowid: int, text: str) -> None:
    """Messages writes a new message the way it does: in WAL mode, left in the -wal file."""
    conn = sqlean.connect(str(path))
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("INSERT INTO message VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                 (rowid, f"NEW-{rowid}", text, None, 1, NS_2024 + rowid * 10**9, 0, 0, 0, None, None))
    conn.execute("INSERT INTO chat_message_join VALUES (1, ?, 0)", (rowid,))
    conn.commit()
    return conn  # kept open: closing the last connection would checkpoint the -wal into the file


async def test_a_database_is_read_in_place_on_its_schedule_adding_only_what_is_new(tmp_path: Path):
    database = make_chat_db(tmp_path / "chat.db")  # 4 messages in 2 chats, counted by hand
    clock = Clock()
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        feeds = feeds_over(memory, clock)
        feed = await feeds.add_watch(database)
        assert feed.config == {"path": str(database), "database": True, "every": "1h"}
        assert summary(await feeds.watch_pass()) == "4 new messages in 2 chats"
        writer = add_imessage(database, 9001, "Landed in Lisbon")
        try:
            assert await feeds.watch_pass() == []  # not due yet
            clock.now += timedelta(hours=1)
            main_before = database.read_bytes()
            assert summary(await feeds.watch_pass()) == "1 new message in 1 chat"
            assert database.read_bytes() == main_before  # read, never written: still only in the -wal
            clock.now += timedelta(hours=1)
            [unchanged] = await feeds.watch_pass()
            assert unchanged.messages_added == 0
        finally:
            writer.close()
        assert await message_count(memory) == 5
        assert not (tmp_path / "data" / "raw").exists() or not any((tmp_path / "data" / "raw").iterdir())


async def test_durations_and_paths_are_checked(tmp_path: Path):
    assert parse_duration("1h30m") == 5400 and parse_duration("2d") == 172800
    for bad in ("soon", "10s", "1h 2x"):
        with pytest.raises(UserFacingError):
            parse_duration(bad)
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        feeds = feeds_over(memory)
        with pytest.raises(UserFacingError, match="does not exist"):
            await feeds.add_watch(tmp_path / "nowhere")
        await feeds.add_watch(tmp_path, every="30m")
        with pytest.raises(UserFacingError, match="set up already"):
            await feeds.add_watch(tmp_path)
        with pytest.raises(UserFacingError, match="no watched path 2"):
            await feeds.remove_watch(2)
        assert (await feeds.remove_watch(1)).name == str(tmp_path.resolve())
