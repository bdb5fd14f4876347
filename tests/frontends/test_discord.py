"""The Discord adapter at its boundary: discord.py's own command tree and attachment types."""

from __future__ import annotations

import types

import discord

from bot.common import COMMANDS
from bot.discord_bot import DiscordFrontend, attachment_kind
from tests.frontends.conftest import deps_at, telegram_settings


def attachment(**fields) -> discord.Attachment:
    data = {"id": 1, "filename": "x", "size": 10, "url": "https://cdn.invalid/x", "proxy_url": "https://cdn.invalid/x"}
    data.update(fields)
    return discord.Attachment(data=data, state=types.SimpleNamespace(http=None))


async def test_slash_commands_mirror_telegram(tmp_path):
    settings = telegram_settings(tmp_path / "data", "http://127.0.0.1:9", discord_token="discord-token",
                                 discord_owner_ids=["1234"])
    async with deps_at(settings) as deps:
        frontend = DiscordFrontend(deps)
        names = {command.name for command in frontend.client.tree.get_commands()}
        ask = frontend.client.tree.get_command("ask")
        assert frontend.client.intents.message_content and frontend.client.intents.dm_messages
    assert names == {name for name, _ in COMMANDS}
    assert [p.name for p in ask.parameters] == ["question"]


def test_attachments_are_told_apart_by_discords_own_fields():
    assert attachment_kind(attachment(filename="voice-message.ogg", content_type="audio/ogg", flags=1 << 13,
                                      duration_secs=3.2, waveform="AAAA")) == "recording"
    assert attachment_kind(attachment(filename="walk.mp3", content_type="audio/mpeg")) == "recording"
    assert attachment_kind(attachment(filename="beach.jpg", content_type="image/jpeg")) == "photo"
    assert attachment_kind(attachment(filename="result.json", content_type="application/json")) == "file"


async def test_forget_on_discord_deletes_only_on_the_owners_click(tmp_path):
    from bot.discord_bot import ForgetConfirmation
    from core.types import SourceDocument

    settings = telegram_settings(tmp_path / "data", "http://127.0.0.1:9", discord_token="discord-token",
                                 discord_owner_ids=["1234"])
    async with deps_at(settings) as deps:
        await deps.memory.save([SourceDocument(kind="journal", name="note", identity="j:1", text="to forget")])
        frontend = DiscordFrontend(deps)
        view = ForgetConfirmation(frontend, 1)
        assert [item.label for item in view.children] == ["Delete it", "Keep it"]
        edits: list[str] = []

        def click(user_id: int):
            async def edit_message(*, content, view):
                edits.append(content)

            async def send_message(text, **_):
                edits.append(text)

            response = types.SimpleNamespace(edit_message=edit_message, send_message=send_message,
                                             is_done=lambda: False)
            return types.SimpleNamespace(user=types.SimpleNamespace(id=user_id), response=response)

        await view.delete.callback(click(999))  # a stranger's click changes nothing
        kept = (await deps.memory.stats())["documents"]
        await view.delete.callback(click(1234))
        stats = await deps.memory.stats()
    assert kept == 1 and stats["documents"] == 0
    assert edits[-1] == "Forgot #1 note."
