"""Telegram Desktop JSON exports (single chat and full account), shared/EXPORT_FORMATS.md §2."""

from __future__ import annotations

import io
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.errors import ImportFailed
from core.importers.base import ImportContext
from core.importers.jsonstream import EscapeRepairingReader
from core.importers.telegram import TelegramImporter
from tests.importers.conftest import parse_all

CHAT = {
    "name": "Teo Ramos",
    "type": "personal_chat",
    "id": 5550009876,
    "messages": [
        {"id": 9001, "type": "message", "date": "2024-03-05T21:07:44", "date_unixtime": "1709672864",
         "from": "Mara Lind", "from_id": "user5550001234", "text": "Flights are booked!",
         "text_entities": [{"type": "plain", "text": "Flights are booked!"}]},
        {"id": 9002, "type": "message", "date": "2024-03-05T21:08:10", "date_unixtime": "1709672890",
         "from": "Teo Ramos", "from_id": "user5550009876", "reply_to_message_id": 9001,
         "file": "voice_messages/audio_1@05-03-2024_21-08-10.ogg", "media_type": "voice_message",
         "mime_type": "audio/ogg", "duration_seconds": 6, "text": "", "text_entities": []},
        {"id": 9003, "type": "message", "date": "2024-03-05T21:09:30", "date_unixtime": "1709672970",
         "from": "Teo Ramos", "from_id": "user5550009876", "forwarded_from": "Lisbon Tram Tips",
         "text": ["Ride the ", {"type": "bold", "text": "28"}, " early: ",
                  {"type": "link", "text": "https://example.org/tram28"}],
         "text_entities": []},
        {"id": 9004, "type": "service", "date": "2024-03-05T21:15:02", "date_unixtime": "1709673302",
         "actor": "Mara Lind", "actor_id": "user5550001234", "action": "phone_call",
         "duration_seconds": 312, "discard_reason": "hangup", "text": "", "text_entities": []},
        {"id": 9005, "type": "message", "date": "2024-03-05T21:16:00", "date_unixtime": "1709673360",
         "from": "Teo Ramos", "from_id": "user5550009876",
         "photo": "(File not included. Change data exporting settings to download.)",
         "text": "the view", "text_entities": []},
        {"id": 9006, "type": "unsupported"},
    ],
}


class FakeTranscriber:
    def __init__(self) -> None:
        self.paths: list[Path] = []

    def transcribe(self, path: Path, *, hints=()) -> str:
        self.paths.append(path)
        return "see you at the tram"


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def test_single_chat(tmp_path: Path, context: ImportContext) -> None:
    folder = tmp_path / "ChatExport_2024-03-06"
    path = write_json(folder / "result.json", CHAT)
    voice = folder / "voice_messages" / "audio_1@05-03-2024_21-08-10.ogg"
    voice.parent.mkdir()
    voice.write_bytes(b"OggS fake")
    transcriber = FakeTranscriber()
    context = ImportContext(timezone=context.timezone, owner_aliases=context.owner_aliases,
                            transcriber=transcriber)
    [(document, messages)] = parse_all(path, context)
    assert document.conversation is not None
    assert document.conversation.key == "telegram:5550009876"
    assert document.conversation.name == "Telegram with Teo Ramos"
    assert document.conversation.participants == ("Mara Lind", "Teo Ramos")
    first, voice_msg, forwarded, call, photo = messages
    assert first.is_owner and first.sender_id == "user5550001234" and first.platform_id == "9001"
    assert first.time == datetime(2024, 3, 5, 21, 7, 44, tzinfo=timezone.utc)
    assert first.time.utcoffset() is not None
    assert voice_msg.reply_to == "9001" and not voice_msg.is_owner
    assert voice_msg.text == "[voice message] (transcript) see you at the tram"
    assert transcriber.paths == [voice]
    assert forwarded.text == "Ride the 28 early: https://example.org/tram28"
    assert forwarded.forwarded_from == "Lisbon Tram Tips"
    assert call.kind == "system" and call.text == "Mara Lind called (312 s, hangup)"
    assert photo.text == "[photo] the view" and photo.attachments == ()


FULL = {
    "about": "Here is the data you requested.",
    "personal_information": {"user_id": 5550001234, "first_name": "Mara", "last_name": "Lind",
                             "phone_number": "+44 7700 900123"},
    "contacts": {"about": "", "list": [{"first_name": "Teo", "last_name": "Ramos"}]},
    "chats": {"about": "", "list": [
        CHAT | {"messages": CHAT["messages"] + [
            {"id": 9010, "type": "message", "date": "2024-03-07T10:00:00", "date_unixtime": "1709805600",
             "from": "Mara", "from_id": "user5550001234", "text": "back home", "text_entities": []}]},
        {"name": "Lisbon trip", "type": "private_supergroup", "id": 1700000001, "messages": [
            {"id": 1, "type": "service", "date": "2024-03-01T09:00:00", "date_unixtime": "1709283600",
             "actor": "Mara", "actor_id": "user5550001234", "action": "create_group",
             "title": "Lisbon trip", "members": ["Teo Ramos", "Ana Sousa"], "text": ""},
            {"id": 2, "type": "message", "date": "2024-03-01T09:01:00", "date_unixtime": "1709283660",
             "from": "Ana Sousa", "from_id": "user5550004444", "text": "Oi! \x01 bell", "text_entities": []},
        ]},
    ]},
}


def test_full_export_and_overlap_with_single_chat(tmp_path: Path) -> None:
    # the owner is known from personal_information even without aliases
    context = ImportContext()
    single = parse_all(write_json(tmp_path / "single" / "result.json", CHAT), context)
    full = parse_all(write_json(tmp_path / "full" / "result.json", FULL), context)
    assert [d.conversation.key for d, _ in full] == ["telegram:5550009876", "telegram:1700000001"]
    (chat, chat_messages), (group, group_messages) = full
    assert group.conversation.is_group and group.name == "Lisbon trip"
    assert group_messages[0].text == 'Mara created the group "Lisbon trip"'
    assert group_messages[0].is_owner
    assert group_messages[1].sender == "Ana Sousa" and group_messages[1].text == "Oi! \x01 bell"
    assert chat_messages[-1].is_owner and chat_messages[-1].sender == "Mara"
    # same chat key and message ids: the store adds only message 9010
    ids_single = {m.platform_id for m in single[0][1]}
    ids_full = {m.platform_id for m in chat_messages}
    assert single[0][0].conversation.key == chat.conversation.key
    assert ids_full - ids_single == {"9010"}
    assert single[0][0].identity != chat.identity


def test_backslash_x_escapes_are_repaired(tmp_path: Path, context: ImportContext) -> None:
    raw = json.dumps(CHAT).replace("Flights are booked!", "Flights\\x07 booked \\\\x41 literal")
    path = tmp_path / "result.json"
    path.write_text(raw)
    [(_, messages)] = parse_all(path, context)
    assert messages[0].text == "Flights\x07 booked \\x41 literal"


@pytest.mark.parametrize("block", [1, 2, 3, 5, 7])
def test_escape_repair_across_block_boundaries(block: int) -> None:
    data = b'{"a": "x\\x01y\\\\x02z\\\\\\x03"}'
    reader = EscapeRepairingReader(io.BytesIO(data), block=block)
    out = b"".join(iter(lambda: reader.read(block), b""))
    assert json.loads(out) == {"a": "x\x01y\\x02z\\\x03"}


def test_truncated_json_fails_before_anything_is_yielded(tmp_path: Path, context: ImportContext) -> None:
    text = json.dumps(FULL)
    path = tmp_path / "result.json"
    path.write_text(text[: len(text) // 2])
    with pytest.raises(ImportFailed, match="result.json: is not valid JSON or is cut short"):
        list(TelegramImporter().parse(path, context))


def test_old_export_without_unixtime_uses_local_zone(tmp_path: Path, context: ImportContext) -> None:
    chat = {"name": "Teo", "type": "personal_chat", "id": 1, "messages": [
        {"id": 1, "type": "message", "date": "2020-07-01T12:00:00", "from": "Teo", "from_id": 42,
         "text": "summer", "text_entities": []}]}
    [(_, [message])] = parse_all(write_json(tmp_path / "result.json", chat), context)
    assert message.time.tzinfo is context.timezone
    assert message.time.utcoffset().total_seconds() == 3600  # Lisbon summer time
    assert message.sender_id == "42"
