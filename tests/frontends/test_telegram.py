"""The real python-telegram-bot Application against a fake Bot API on localhost."""

from __future__ import annotations

from datetime import datetime, timezone

from tests.frontends.conftest import OWNER, STRANGER, running_bot, telegram_settings

MAYA = {"id": 777, "is_bot": False, "first_name": "Maya", "last_name": "Costa"}


def epoch(*args: int) -> int:
    return int(datetime(*args, tzinfo=timezone.utc).timestamp())


async def test_commands_registered_and_help(tmp_path, telegram_api):
    async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url)):
        await telegram_api.push(user=OWNER, text="/help", entities=[{"type": "bot_command", "offset": 0, "length": 5}])
        await telegram_api.wait_for(lambda: telegram_api.texts())
    commands = telegram_api.sent("setMyCommands")[0].params["commands"]
    assert {c["command"] for c in commands} >= {"start", "help", "ask", "bio", "forget", "settings", "pause"}
    assert "/forget" in telegram_api.texts()[0]


async def test_stranger_refused_once_and_nothing_stored(tmp_path, telegram_api):
    async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url)) as (_, facets):
        await telegram_api.push(user=STRANGER, text="hello, what do you know about Ana?")
        await telegram_api.push(user=STRANGER, text="anything?")
        await telegram_api.push(user=STRANGER, text="fwd", forward_origin={
            "type": "user", "date": epoch(2024, 5, 3), "sender_user": MAYA})
        await telegram_api.wait_for(lambda: telegram_api.texts())
        await telegram_api.push(user=OWNER, text="/stats", entities=[{"type": "bot_command", "offset": 0, "length": 6}])
        await telegram_api.wait_for(lambda: len(telegram_api.texts()) >= 2)
        stats = await facets.admin.memory.stats()
    texts = telegram_api.texts()
    assert texts[0] == "This is a private bot. It only talks to its owner."
    assert [c.params["chat_id"] for c in telegram_api.sent()].count(str(STRANGER["id"])) == 1
    assert stats["documents"] == 0 and stats["messages"] == 0
    assert "Ana" not in texts[0]


async def test_no_owner_configured_refuses_everyone(tmp_path, telegram_api, caplog):
    settings = telegram_settings(tmp_path / "data", telegram_api.url, telegram_owner_ids=[])
    async with running_bot(settings):
        await telegram_api.push(user=OWNER, text="hi")
        await telegram_api.wait_for(lambda: telegram_api.texts())
    assert telegram_api.texts() == ["This is a private bot. It only talks to its owner."]
    assert f"BIOGRAPHER_TELEGRAM_OWNER_IDS={OWNER['id']}" in caplog.text


async def test_burst_of_forwards_saved_with_original_senders_and_dates(tmp_path, telegram_api):
    origins = [
        ({"type": "user", "date": epoch(2024, 5, 3, 18, 0), "sender_user": MAYA}, "Are you coming to Tavira?"),
        ({"type": "user", "date": epoch(2024, 5, 3, 18, 5),
          "sender_user": {k: OWNER[k] for k in ("id", "is_bot", "first_name", "last_name")}}, "Yes, Saturday"),
        ({"type": "hidden_user", "date": epoch(2024, 5, 4, 9, 0), "sender_user_name": "Rui"}, "Bring the umbrella"),
        ({"type": "channel", "date": epoch(2024, 5, 5, 12, 0), "message_id": 55,
          "chat": {"id": -100123, "type": "channel", "title": "Tavira News"}}, "Ferry strike on Saturday"),
    ]
    async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url)) as (_, facets):
        for origin, text in origins:
            await telegram_api.push(user=OWNER, text=text, forward_origin=origin)
        await telegram_api.wait_for(lambda: telegram_api.texts())
        async with facets.admin.memory.conn.execute(
                "SELECT sender, sender_id, is_owner, time, text FROM messages ORDER BY id") as cur:
            rows = [tuple(r) for r in await cur.fetchall()]
        stats = await facets.admin.memory.stats()
        hits = await facets.admin.memory.grep("umbrella")
    assert telegram_api.texts() == ["Saved 4 messages from Maya Costa, Ana Lind, Rui and Tavira News, 3–5 May 2024."]
    assert len(telegram_api.texts()) == 1  # one acknowledgement for the burst
    assert rows == [
        ("Maya Costa", "777", 0, "2024-05-03T18:00:00Z", "Are you coming to Tavira?"),
        ("Ana Lind", "4242", 1, "2024-05-03T18:05:00Z", "Yes, Saturday"),
        ("Rui", None, 0, "2024-05-04T09:00:00Z", "Bring the umbrella"),
        ("Tavira News", "chat:-100123", 0, "2024-05-05T12:00:00Z", "Ferry strike on Saturday"),
    ]
    assert stats["documents"] == 1 and stats["by_kind"]["telegram_forward"]["documents"] == 1
    assert hits.total == 1


async def test_export_document_ingested_with_progress_edits(tmp_path, telegram_api):
    lines = [f"05/03/2024, 21:{m:02d} - {'Ana' if m % 2 else 'Maya'}: message number {m} about the ferry"
             for m in range(40)]
    telegram_api.add_file("doc-1", "documents/file_1.txt", ("\n".join(lines) + "\n").encode())
    document = {"file_id": "doc-1", "file_unique_id": "u-doc-1", "file_name": "WhatsApp Chat with Maya.txt",
                "mime_type": "text/plain", "file_size": 3000}
    async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url)) as (_, facets):
        await telegram_api.push(user=OWNER, document=document)
        await telegram_api.wait_for(lambda: any(t.startswith("Imported") for t in telegram_api.texts("editMessageText")))
        stats = await facets.admin.memory.stats()
    assert telegram_api.texts()[0] == "Importing WhatsApp Chat with Maya.txt…"
    edits = telegram_api.texts("editMessageText")
    assert any("[" in e and "/" in e for e in edits[:-1]), edits  # a text progress bar with counts
    assert edits[-1].startswith("Imported WhatsApp Chat with Maya.txt: 1 new source, 40 messages")
    status_id = telegram_api.sent("editMessageText")[0].params["message_id"]
    assert all(c.params["message_id"] == status_id for c in telegram_api.sent("editMessageText"))
    assert stats["messages"] == 40


async def test_file_over_the_cloud_limit_gets_a_clear_answer(tmp_path, telegram_api):
    document = {"file_id": "big", "file_unique_id": "u-big", "file_name": "result.json", "file_size": 60 * 1024 * 1024}
    async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url)):
        await telegram_api.push(user=OWNER, document=document)
        await telegram_api.wait_for(lambda: telegram_api.texts())
    answer = telegram_api.texts()[0]
    assert "20 MB" in answer and "BIOGRAPHER_TELEGRAM_API_URL" in answer and "biographer ingest" in answer
    assert not telegram_api.sent("getFile")


async def test_forget_asks_for_confirmation_then_deletes(tmp_path, telegram_api):
    async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url)) as (_, facets):
        await telegram_api.push(user=OWNER, text="hi", forward_origin={
            "type": "user", "date": epoch(2024, 5, 3), "sender_user": MAYA})
        await telegram_api.wait_for(lambda: telegram_api.texts())
        await telegram_api.push(user=OWNER, text="/forget 1", entities=[{"type": "bot_command", "offset": 0, "length": 7}])
        await telegram_api.wait_for(lambda: len(telegram_api.texts()) >= 2)
        prompt = telegram_api.sent()[1]
        buttons = prompt.params["reply_markup"]["inline_keyboard"][0]
        assert [b["callback_data"] for b in buttons] == ["forget:1", "forget:keep"]
        assert (await facets.admin.memory.stats())["documents"] == 1
        message = {"message_id": 1, "date": 0, "chat": {"id": OWNER["id"], "type": "private"}, "text": "x"}
        await telegram_api.push_callback(user=OWNER, data="forget:1", message=message)
        await telegram_api.wait_for(lambda: telegram_api.texts("editMessageText"))
        stats = await facets.admin.memory.stats()
    assert telegram_api.texts("editMessageText") == ["Forgot #1 Forwarded from Maya Costa."]
    assert stats["documents"] == 0 and stats["messages"] == 0 and stats["chunks"] == 0


async def test_settings_and_pause_persist(tmp_path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url)
    async with running_bot(settings) as (_, facets):
        for text in ("/settings quiet_hours 23:00-07:00", "/pause", "/settings question_time 25:00"):
            await telegram_api.push(user=OWNER, text=text,
                                    entities=[{"type": "bot_command", "offset": 0, "length": text.index(" ") if " " in text else len(text)}])
        await telegram_api.wait_for(lambda: len(telegram_api.texts()) >= 3)
    async with running_bot(settings) as (_, facets):
        preferences = await facets.admin.preferences.load()
    assert preferences.quiet_hours == "23:00-07:00" and preferences.paused
    assert preferences.question_time == "19:00"
    assert any("not a time" in t and "HH:MM" in t for t in telegram_api.texts())
