"""Albums, edited captions and start-up failures on Telegram, through the real Application."""

from __future__ import annotations

import pytest

from bot.commands import Commands
from bot.telegram import TelegramFrontend
from core.errors import UserFacingError
from tests.frontends.conftest import OWNER, running_bot, service_at, telegram_settings

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000000000200015c0a2d8a0000000049454e44ae426082")


def photo(file_id: str) -> list[dict]:
    return [{"file_id": file_id, "file_unique_id": f"u-{file_id}", "width": 1, "height": 1, "file_size": len(PNG)}]


async def test_an_album_of_exports_is_one_import(tmp_path, telegram_api):
    for n in (1, 2):
        lines = [f"05/0{n}/2024, 21:0{m} - Maya: album message {n}.{m}" for m in range(3)]
        telegram_api.add_file(f"doc-{n}", f"documents/file_{n}.txt", ("\n".join(lines) + "\n").encode())
    async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url)) as (_, facets):
        for n in (1, 2):
            await telegram_api.push(user=OWNER, media_group_id="album-1", document={
                "file_id": f"doc-{n}", "file_unique_id": f"u-doc-{n}", "file_name": f"WhatsApp Chat with Maya {n}.txt",
                "mime_type": "text/plain", "file_size": 200})
        await telegram_api.wait_for(lambda: any(t.startswith("Imported") for t in telegram_api.texts("editMessageText")))
        stats = await facets.admin.stats()
    assert telegram_api.texts() == ["Importing 2 files…"]  # one status message for the album
    assert telegram_api.texts("editMessageText")[-1].startswith("Imported 2 files: 2 new sources, 6 messages")
    assert stats["messages"] == 6


async def test_an_album_of_photos_is_one_journal_entry(tmp_path, telegram_api):
    for n in (1, 2):
        telegram_api.add_file(f"ph-{n}", f"photos/file_{n}.jpg", PNG)
    async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url)) as (_, facets):
        await telegram_api.push(user=OWNER, media_group_id="album-2", photo=photo("ph-1"), caption="Tavira beach")
        await telegram_api.push(user=OWNER, media_group_id="album-2", photo=photo("ph-2"))
        await telegram_api.wait_for(lambda: telegram_api.texts())
        stats = await facets.admin.stats()
    assert telegram_api.texts()[0].startswith("Saved the 2 photos of")
    assert "Tavira beach" in telegram_api.texts()[0]
    assert stats["by_kind"]["journal"]["documents"] == 1


async def test_an_edited_caption_replaces_the_entry_it_made(tmp_path, telegram_api):
    telegram_api.add_file("ph-1", "photos/file_1.jpg", PNG)
    async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url)) as (_, facets):
        sent = await telegram_api.push(user=OWNER, photo=photo("ph-1"), caption="Lunch with Rui")
        await telegram_api.wait_for(lambda: telegram_api.texts())
        await telegram_api.push_edit(user=OWNER, message=sent, caption="Lunch with Rita")
        await telegram_api.wait_for(lambda: len(telegram_api.texts()) >= 2)
        stats = await facets.admin.stats()
        old, new = await facets.admin.memory.grep("Rui"), await facets.admin.memory.grep("Rita")
    assert telegram_api.texts()[1].startswith("Updated the photo of")
    assert stats["by_kind"]["journal"]["documents"] == 1
    assert (old.total, new.total) == (0, 1)


async def test_a_rejected_token_is_one_clear_line(tmp_path, telegram_api):
    settings = telegram_settings(tmp_path / "data", telegram_api.url, telegram_token="999:WRONG")
    async with service_at(settings) as facets:
        frontend = TelegramFrontend(settings, Commands(facets.chat))
        with pytest.raises(UserFacingError, match="Telegram refused the bot token"):
            async with frontend.running():
                pass
