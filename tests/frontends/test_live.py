"""Telegram chats recorded live through a business connection, with the real python-telegram-bot
Application against the local fake Bot API: the owner's connection and a stranger's, messages from
both sides, an edit, a deletion, a paused chat, a disconnection; nothing ever sent into the chats."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.chat.live import LiveRecorder
from core.service.parts import Parts
from tests.frontends.conftest import OWNER, STRANGER, running_bot, telegram_settings
from tests.frontends.test_voice_and_run import needs_speech_tools, speech_ogg, with_whisper

pytestmark = pytest.mark.asyncio

MAYA = {"id": 5151, "is_bot": False, "first_name": "Maya", "last_name": "Costa"}
MAY_5 = int(datetime(2024, 5, 5, 18, 0, tzinfo=timezone.utc).timestamp())


def live_service(settings):
    def factory(memory, **options):
        recorder = LiveRecorder(memory, owner_ids=frozenset(settings.telegram_owner_ids), quiet_seconds=0.3)
        return Parts(memory=memory, live=recorder, **options)
    return factory


async def live_messages(facets) -> list[tuple]:
    async with facets.admin.memory.conn.execute(
            "SELECT m.platform_id, m.sender, m.is_owner, m.time, m.text, m.reply_to, d.name FROM messages m"
            " JOIN documents d ON d.id = m.document_id WHERE m.conversation_key = ? ORDER BY m.time",
            (f"telegram:{MAYA['id']}",)) as cur:
        return [tuple(row) for row in await cur.fetchall()]


async def until(condition, timeout: float = 10.0):
    deadline = asyncio.get_running_loop().time() + timeout
    while not (result := await condition()):
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.1)
    return result


def nothing_sent_into_the_chats(api) -> None:
    for call in api.calls:
        assert "business_connection_id" not in call.params, call
        assert str(call.params.get("chat_id")) != str(MAYA["id"]), call


async def test_the_owners_chats_are_recorded_edited_and_erased_and_nothing_is_sent_into_them(tmp_path: Path,
                                                                                            telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url)
    async with running_bot(settings, service_factory=live_service(settings)) as (frontend, facets):
        # a stranger connecting the bot to their account is ignored: no message, nothing kept
        await telegram_api.push_business_connection(user=STRANGER, connection_id="stranger-conn")
        stranger = await telegram_api.push_business_message(connection_id="stranger-conn", contact=MAYA,
                                                            sender=MAYA, text="hello stranger")
        await telegram_api.push_business_connection(user=OWNER, connection_id="c1", rights={"can_reply": True})
        await telegram_api.wait_for(lambda: telegram_api.texts())
        [started] = telegram_api.sent()
        assert started.params["chat_id"] == str(OWNER["id"])
        assert "Settings → Telegram Business → Chatbots" in started.params["text"]
        assert "these rights, which I never use: reply." in started.params["text"]
        first = await telegram_api.push_business_message(connection_id="c1", contact=MAYA, sender=MAYA,
                                                         text="Are we still on for the ferry?", date=MAY_5)
        mine = await telegram_api.push_business_message(connection_id="c1", contact=MAYA, sender=OWNER,
                                                        text="Yes, Saturday at nine", date=MAY_5 + 60,
                                                        reply_to_message=first)
        await telegram_api.push_business_message(connection_id="c1", contact=MAYA, sender=MAYA,
                                                 text="Bring the blue umbrella", date=MAY_5 + 120)
        # the window closes once the chat is quiet (0.3 s here, 30 minutes by default)
        await until(lambda: _count_is(facets, 3))
        rows = await live_messages(facets)
        assert rows == [
            (str(first["message_id"]), "Maya Costa", 0, "2024-05-05T18:00:00Z", "Are we still on for the ferry?",
             None, "Telegram with Maya Costa (live)"),
            (str(mine["message_id"]), "Ana Lind", 1, "2024-05-05T18:01:00Z", "Yes, Saturday at nine",
             str(first["message_id"]), "Telegram with Maya Costa (live)"),
            (str(mine["message_id"] + 1), "Maya Costa", 0, "2024-05-05T18:02:00Z", "Bring the blue umbrella", None,
             "Telegram with Maya Costa (live)"),
        ]
        assert stranger["message_id"] not in [int(r[0]) for r in rows]
        hits = await facets.admin.memory.grep("umbrella")
        assert hits.total == 1
        # an edit replaces the text; the earlier text is kept beside it
        await telegram_api.push_edited_business_message(message=mine, text="Yes, Saturday at ten")
        await until(lambda: _text_is(facets, mine["message_id"], "Yes, Saturday at ten"))
        async with facets.admin.memory.conn.execute("SELECT old_text FROM live_edits") as cur:
            assert [r[0] for r in await cur.fetchall()] == ["Yes, Saturday at nine"]
        assert (await facets.admin.memory.grep("nine")).total == 0 and (await facets.admin.memory.grep("ten")).total == 1
        # a deletion erases the message, as forget erases
        await telegram_api.push_deleted_business_messages(connection_id="c1", contact=MAYA,
                                                          message_ids=[mine["message_id"] + 1])
        await until(lambda: _count_is(facets, 2))
        assert (await facets.admin.memory.grep("umbrella")).total == 0
        # /live lists the chat; a paused chat's messages are not stored at all
        await telegram_api.push(user=OWNER, text="/live", entities=[{"type": "bot_command", "offset": 0, "length": 5}])
        await telegram_api.wait_for(lambda: any("Maya Costa · 2 messages · recording" in t for t in telegram_api.texts()))
        await telegram_api.push(user=OWNER, text="/live pause 1",
                                entities=[{"type": "bot_command", "offset": 0, "length": 5}])
        await telegram_api.wait_for(lambda: any(t.startswith("Paused Maya Costa") for t in telegram_api.texts()))
        await telegram_api.push_business_message(connection_id="c1", contact=MAYA, sender=MAYA, text="secret plan")
        await asyncio.sleep(0.8)
        assert (await facets.admin.memory.grep("secret")).total == 0
        async with facets.admin.memory.conn.execute("SELECT COUNT(*) FROM live_messages WHERE text = 'secret plan'") as cur:
            assert (await cur.fetchone())[0] == 0
        # disconnected: recording stops at once
        await telegram_api.push(user=OWNER, text="/live resume 1",
                                entities=[{"type": "bot_command", "offset": 0, "length": 5}])
        await telegram_api.wait_for(lambda: any(t.startswith("Recording Maya Costa") for t in telegram_api.texts()))
        await telegram_api.push_business_connection(user=OWNER, connection_id="c1", enabled=False)
        await telegram_api.wait_for(lambda: any("disconnected" in t for t in telegram_api.texts()))
        await telegram_api.push_business_message(connection_id="c1", contact=MAYA, sender=MAYA, text="after the end")
        await asyncio.sleep(0.8)
        assert (await facets.admin.memory.grep("after the end")).total == 0
        nothing_sent_into_the_chats(telegram_api)

        # the export of the same chat, imported later, adds nothing twice
        export = tmp_path / "result.json"
        export.write_text(json.dumps({"name": "Maya Costa", "type": "personal_chat", "id": MAYA["id"], "messages": [
            {"id": first["message_id"], "type": "message", "date": "2024-05-05T19:00:00",
             "date_unixtime": str(MAY_5), "from": "Maya Costa", "from_id": f"user{MAYA['id']}",
             "text": "Are we still on for the ferry?"},
            {"id": mine["message_id"], "type": "message", "date": "2024-05-05T19:01:00",
             "date_unixtime": str(MAY_5 + 60), "from": "Ana Lind", "from_id": f"user{OWNER['id']}",
             "text": "Yes, Saturday at ten", "edited": "2024-05-05T19:05:00"},
        ]}))
        report = await facets.admin.memory.ingest([export], index=False)
        assert (report.messages_added, report.errors) == (0, [])


async def _text_is(facets, message_id: int, text: str) -> bool:
    async with facets.admin.memory.conn.execute("SELECT text FROM messages WHERE platform_id = ?", (str(message_id),)) as cur:
        row = await cur.fetchone()
    return row is not None and row[0] == text


async def _count_is(facets, count: int) -> bool:
    return len(await live_messages(facets)) == count


async def test_a_window_open_at_shutdown_is_saved_then(tmp_path: Path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url)

    def slow(memory, **options):
        return Parts(memory=memory, live=LiveRecorder(memory, owner_ids=frozenset(settings.telegram_owner_ids)),
                       **options)

    async with running_bot(settings, service_factory=slow) as (frontend, facets):
        await telegram_api.push_business_connection(user=OWNER, connection_id="c1")
        await telegram_api.wait_for(lambda: telegram_api.texts())
        await telegram_api.push_business_message(connection_id="c1", contact=MAYA, sender=MAYA, text="see you soon")
        await until(lambda: _kept(facets))
        assert await live_messages(facets) == []  # kept, but its window is open: not a source yet
    async with running_bot(settings, service_factory=slow) as (frontend, facets):
        assert [r[4] for r in await live_messages(facets)] == ["see you soon"]


async def _kept(facets) -> bool:
    async with facets.admin.memory.conn.execute("SELECT COUNT(*) FROM live_messages") as cur:
        return (await cur.fetchone())[0] == 1


@pytest.mark.model
@needs_speech_tools
async def test_a_voice_note_in_a_recorded_chat_is_transcribed(tmp_path: Path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url)

    def factory(memory, **options):
        parts = with_whisper(memory, **options)
        parts.live = LiveRecorder(memory, owner_ids=frozenset(settings.telegram_owner_ids), quiet_seconds=0.3)
        return parts

    audio = speech_ogg(tmp_path, "Today I went swimming with Maya in the morning.")
    telegram_api.add_file("voice-7", "voice/file_7.oga", audio)
    voice = {"file_id": "voice-7", "file_unique_id": "u-voice-7", "duration": 4, "mime_type": "audio/ogg",
             "file_size": len(audio)}
    async with running_bot(settings, service_factory=factory) as (frontend, facets):
        await telegram_api.push_business_connection(user=OWNER, connection_id="c1")
        await telegram_api.wait_for(lambda: telegram_api.texts())
        await telegram_api.push_business_message(connection_id="c1", contact=MAYA, sender=MAYA, voice=voice,
                                                 date=MAY_5)
        await until(lambda: _count_is(facets, 1), timeout=120)
        [row] = await live_messages(facets)
    assert row[4].startswith("[voice message] (transcript) ") and "swimming" in row[4].lower()
    nothing_sent_into_the_chats(telegram_api)
