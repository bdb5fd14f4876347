"""Nothing is lost when another process holds the store's write lock: forwards wait in an inbox on
disk and are saved when it is free; a second import waits with a note instead of dying."""

from __future__ import annotations

import asyncio
import threading
from contextlib import contextmanager
from datetime import datetime, timezone

import sqlean

from bot.cli import main
from tests.frontends.conftest import OWNER, running_bot, telegram_settings

MAYA = {"id": 777, "is_bot": False, "first_name": "Maya"}


@contextmanager
def another_process_writing(path, *, seconds: float):
    """A second connection (as another process would have) holding the write lock for `seconds`."""
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        conn = sqlean.connect(str(path), isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        held.set()
        done.wait(seconds)
        conn.execute("ROLLBACK")
        conn.close()

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait()
    try:
        yield done
    finally:
        thread.join()


def epoch(*args: int) -> int:
    return int(datetime(*args, tzinfo=timezone.utc).timestamp())


async def test_forwards_wait_in_the_inbox_while_the_store_is_busy_then_are_saved(tmp_path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url)
    async with running_bot(settings) as (_, facets):
        facets.admin.memory.conn.busy_deadline = 0.5
        with another_process_writing(settings.database_path, seconds=30) as release:
            for n in range(3):
                await telegram_api.push(user=OWNER, text=f"ferry note {n}", forward_origin={
                    "type": "user", "date": epoch(2024, 5, 3, 18, n), "sender_user": MAYA})
            await telegram_api.wait_for(lambda: telegram_api.texts())
            waiting = [p.stat().st_mode & 0o777 for p in (settings.data_dir / "inbox").glob("*.json")]
            release.set()
        saved = await facets.schedule.forwards.replay_inbox()
        hits = await facets.admin.memory.grep("ferry note")
        again = await facets.schedule.forwards.replay_inbox()
    assert "wait in the inbox" in telegram_api.texts()[0] and "3 forwarded messages" in telegram_api.texts()[0]
    assert waiting == [0o600]  # one burst, readable by the owner only
    assert saved == 3 and hits.total == 3 and again == 0
    assert not list((settings.data_dir / "inbox").glob("*.json"))


async def test_forwards_saved_after_a_wait_longer_than_sqlites_own_timeout(tmp_path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url)
    async with running_bot(settings) as (_, facets):
        with another_process_writing(settings.database_path, seconds=2.5):
            await telegram_api.push(user=OWNER, text="the umbrella", forward_origin={
                "type": "user", "date": epoch(2024, 5, 3, 18, 0), "sender_user": MAYA})
            await asyncio.sleep(0.1)
        await telegram_api.wait_for(lambda: telegram_api.texts(), timeout=20)
        hits = await facets.admin.memory.grep("umbrella")
    assert telegram_api.texts() == ["Saved 1 message from Maya, 3 May 2024."]
    assert hits.total == 1


def test_a_second_import_waits_for_the_first_with_a_note(tmp_path, capsys):
    note = tmp_path / "note.md"
    note.write_text("# A day\n\nThe ferry to Tavira was late again.\n", encoding="utf-8")
    data = tmp_path / "store"
    assert main(["--data-dir", str(data), "ingest", "--no-index", str(note)]) == 0  # creates the store
    other = tmp_path / "other.md"
    other.write_text("# Another day\n\nSwimming at nine.\n", encoding="utf-8")
    with another_process_writing(data / "biographer.sqlite3", seconds=2.0):
        code = main(["--data-dir", str(data), "ingest", "--no-index", str(other)])
    out = capsys.readouterr()
    assert code == 0 and "added 1 document " in out.out
    assert "waiting for the store" in out.err
