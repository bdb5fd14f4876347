"""Discord: DiscordChatExporter JSON and Discord's own data package (shared/EXPORT_FORMATS.md §4)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.errors import ImportFailed
from core.importers.base import ImportContext
from tests.importers.conftest import parse_all

DCE = {
    "guild": {"id": "0", "name": "Direct Messages", "iconUrl": "https://cdn.example/0.png"},
    "channel": {"id": "1102233445566778899", "type": "DirectTextChat", "categoryId": None,
                "category": None, "name": "teo.ramos", "topic": None},
    "dateRange": {"after": None, "before": None},
    "messages": [
        {"id": "1214680773165068345", "type": "Default", "timestamp": "2024-03-05T21:07:44.123+00:00",
         "timestampEdited": None, "isPinned": False, "content": "Flights are booked!",
         "author": {"id": "305566778899001122", "name": "mara.lind", "discriminator": "0000",
                    "nickname": "Mara", "isBot": False, "roles": []},
         "attachments": [], "embeds": [], "reactions": [], "mentions": []},
        {"id": "1214680773165068999", "type": "Reply", "timestamp": "2024-03-05T22:08:00+01:00",
         "content": "", "author": {"id": "405566778899001122", "name": "teo.ramos", "nickname": None},
         "attachments": [{"id": "1", "url": "media/boarding.jpg", "fileName": "boarding.jpg",
                          "fileSizeBytes": 1000}],
         "reference": {"messageId": "1214680773165068345", "channelId": "1102233445566778899"}},
        {"id": "1214680773165069000", "type": "ChannelPinnedMessage",
         "timestamp": "2024-03-05T21:09:00+00:00", "content": "Mara pinned a message.",
         "author": {"id": "305566778899001122", "name": "mara.lind", "nickname": "Mara"}},
    ],
    "messageCount": 3,
}


def test_discord_chat_exporter(tmp_path: Path, context: ImportContext) -> None:
    context = ImportContext(owner_aliases=context.owner_aliases | {"mara.lind"})
    path = tmp_path / "Direct Messages - teo.ramos [1102233445566778899].json"
    path.write_text(json.dumps(DCE))
    [(document, messages)] = parse_all(path, context)
    assert document.conversation.key == "discord:1102233445566778899"
    assert document.conversation.participants == ("Mara", "teo.ramos")
    assert not document.conversation.is_group
    first, reply, pinned = messages
    assert first.sender == "Mara" and first.is_owner and first.sender_id == "305566778899001122"
    assert first.platform_id == "1214680773165068345"
    assert first.time == datetime(2024, 3, 5, 21, 7, 44, 123000, tzinfo=timezone.utc)
    assert first.time.tzinfo is context.timezone
    assert reply.reply_to == first.platform_id and reply.kind == "media"
    assert reply.text == "[attachments: boarding.jpg]" and not reply.is_owner
    assert reply.time == datetime(2024, 3, 5, 21, 8, tzinfo=timezone.utc)
    assert pinned.kind == "system"


def test_discord_chat_exporter_truncated(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "chan.json"
    path.write_text(json.dumps(DCE)[:300])
    with pytest.raises(ImportFailed, match="chan.json: is not valid JSON"):
        parse_all(path, context)


def make_package(tmp_path: Path) -> Path:
    messages = tmp_path / "package" / "Messages"
    channel = messages / "c1102233445566778899"
    channel.mkdir(parents=True)
    (messages / "index.json").write_text(json.dumps(
        {"1102233445566778899": "Direct Message with teo.ramos#0"}))
    (channel / "channel.json").write_text(json.dumps(
        {"id": "1102233445566778899", "type": "DM", "recipients": ["1", "2"]}))
    account = tmp_path / "package" / "Account"
    account.mkdir()
    (account / "user.json").write_text(json.dumps({"id": "305566778899001122", "username": "mara.lind"}))
    return channel


def test_discord_package_json_and_csv(tmp_path: Path, context: ImportContext) -> None:
    channel = make_package(tmp_path)
    (channel / "messages.json").write_text(
        '[{"ID": 1214680773165068345, "Timestamp": "2024-03-05 21:07:44", '
        '"Contents": "see you at the gate", "Attachments": ""},'
        '{"ID": 1214681100000000001, "Timestamp": "2024-03-05 21:09:02", "Contents": "", '
        '"Attachments": "https://cdn.example/a/1/boarding.jpg?ex=0&is=0&hm=0"}]')
    [(document, messages)] = parse_all(channel / "messages.json", context)
    assert document.name == "Discord: Direct Message with teo.ramos#0"
    assert document.conversation.key == "discord:1102233445566778899"
    assert [m.sender for m in messages] == ["mara.lind", "mara.lind"]
    assert all(m.is_owner for m in messages)
    assert messages[0].platform_id == "1214680773165068345"  # beyond 2**53, kept exact
    assert messages[0].time == datetime(2024, 3, 5, 21, 7, 44, tzinfo=timezone.utc)
    assert messages[1].text == "[attachments: boarding.jpg]"
    (channel / "messages.json").unlink()
    (channel / "messages.csv").write_text(
        'ID,Timestamp,Contents,Attachments\n'
        '1214680773165068345,2024-03-05 21:07:44.123000+00:00,"first line\nsecond line",\n')
    [(csv_doc, [row])] = parse_all(channel / "messages.csv", context)
    assert row.text == "first line\nsecond line"
    assert row.platform_id == "1214680773165068345"
    assert csv_doc.conversation.key == document.conversation.key


async def test_discord_package_folder_imports_only_messages(tmp_path: Path, embedder) -> None:
    from tests.core.helpers import memory_at

    channel = make_package(tmp_path)
    (channel / "messages.json").write_text(
        '[{"ID": 1, "Timestamp": "2024-03-05 21:07:44", "Contents": "hello", "Attachments": ""}]')
    async with memory_at(tmp_path / "data", embedder) as memory:
        report = await memory.ingest([tmp_path / "package" / "Messages"], index=False)
    assert report.errors == [] and report.documents_added == 1 and report.messages_added == 1


async def test_the_package_zip_as_downloaded_imports_only_its_messages(tmp_path: Path, embedder) -> None:
    """Discord sends `package.zip`; it was refused as an unknown format. Read as it is, it gives
    each channel's messages and nothing of the account, activity or servers folders."""
    import zipfile

    from core.importers import default_importers, pick_importer
    from core.importers.discord import DiscordPackageZipImporter
    from tests.core.helpers import memory_at

    channel = make_package(tmp_path)
    (channel / "messages.json").write_text(
        '[{"ID": 1, "Timestamp": "2024-03-05 21:07:44", "Contents": "see you at the gate", "Attachments": ""}]')
    activity = tmp_path / "package" / "Activity" / "analytics"
    activity.mkdir(parents=True)
    (activity / "events-2024-00000-of-00001.json").write_text('{"event_type": "app_opened"}\n' * 50)
    archive = tmp_path / "package.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for file in (tmp_path / "package").rglob("*"):
            if file.is_file():
                z.write(file, file.relative_to(tmp_path / "package").as_posix())
    assert isinstance(pick_importer(archive, default_importers()), DiscordPackageZipImporter)
    async with memory_at(tmp_path / "data", embedder) as memory:
        report = await memory.ingest([archive], index=False)
        hits = await memory.search("gate", mode="keyword")
    assert report.errors == [] and report.documents_added == 1 and report.messages_added == 1
    assert [h.document for h in hits] == ["Discord: Direct Message with teo.ramos#0"]
    assert hits[0].speakers == ("mara.lind",)


def test_a_sticker_only_message_is_kept_and_an_empty_one_counted(tmp_path: Path,
                                                                 context: ImportContext) -> None:
    """A sticker as DiscordChatExporter writes it (JsonMessageWriter.cs, WriteStickerAsync: id,
    name, format, sourceUrl): the message that is only a sticker is what its sender said."""
    export = json.loads(json.dumps(DCE))
    sticker = {"id": "749054660769218631", "name": "Wumpus Wave", "format": "Lottie",
               "sourceUrl": "https://cdn.discordapp.com/stickers/749054660769218631.json"}
    export["messages"] += [
        {"id": "1214680773165069001", "type": "Default", "timestamp": "2024-03-05T21:10:00+00:00",
         "content": "", "author": {"id": "405566778899001122", "name": "teo.ramos", "nickname": None},
         "attachments": [], "embeds": [], "stickers": [sticker], "reactions": [], "mentions": []},
        {"id": "1214680773165069002", "type": "Default", "timestamp": "2024-03-05T21:11:00+00:00",
         "content": "see you", "author": {"id": "405566778899001122", "name": "teo.ramos"},
         "attachments": [], "embeds": [], "stickers": [dict(sticker, name="Thumbs Up")]},
        {"id": "1214680773165069003", "type": "Default", "timestamp": "2024-03-05T21:12:00+00:00",
         "content": "", "author": {"id": "405566778899001122", "name": "teo.ramos"},
         "attachments": [], "embeds": [], "stickers": []},
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(export))
    [(document, messages)] = parse_all(path, context)
    wave, words = messages[-2:]
    assert (wave.sender, wave.text, wave.kind) == ("teo.ramos", "[sticker: Wumpus Wave]", "media")
    assert (words.text, words.kind) == ("see you [sticker: Thumbs Up]", "text")
    assert document.skipped == {"empty messages": 1}
