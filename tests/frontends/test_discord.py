"""The real discord.py Client and CommandTree against a fake Discord (REST + gateway) on localhost:
DMs, slash commands in a DM, the same commands in a server channel, strangers, buttons."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import discord
import pytest

from bot.commands import COMMANDS
from bot.discord_bot import NOT_HERE, DiscordFrontend
from core.errors import UserFacingError
from core.types import SourceDocument
from tests.frontends.conftest import commands_for, service_at, telegram_settings
from tests.frontends.fake_discord import FakeDiscord, user
from tests.frontends import fakes

OWNER = user(1234, "Ana")
STRANGER = user(6666, "Eve")
EPHEMERAL = 64


@pytest.fixture
async def discord_api(monkeypatch) -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as server:
        monkeypatch.setattr(discord.http.Route, "BASE", server.api_base)
        monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", server.gateway_url)
        yield server


def discord_settings(tmp_path, **overrides):
    values = dict(telegram_token=None, discord_token="discord-test-token", discord_owner_ids=[OWNER["id"]])
    values.update(overrides)
    return telegram_settings(tmp_path / "data", "http://127.0.0.1:9", **values)


@asynccontextmanager
async def running(settings, discord_api: FakeDiscord, **kwargs):
    async with service_at(settings, **kwargs) as facets:
        frontend = DiscordFrontend(settings, commands_for(settings, facets))
        async with frontend.running():
            await discord_api.ready()
            yield frontend, facets


def scripted(*answers: str):
    return lambda memory, **options: fakes.scripted(memory, **options, answers=list(answers))


async def test_slash_commands_are_registered_from_the_shared_list(tmp_path, discord_api):
    async with running(discord_settings(tmp_path), discord_api):
        pass
    assert {c["name"] for c in discord_api.commands} == {c.name for c in COMMANDS}
    ask = next(c for c in discord_api.commands if c["name"] == "ask")
    assert [o["name"] for o in ask["options"]] == ["question"] and ask["options"][0]["required"]
    # offered in the bot's DM only (no server was allowed), never as a user-installed app
    assert all(c["contexts"] == [1] and c["integration_types"] == [0] for c in discord_api.commands)


async def test_owner_dm_is_answered_and_a_stranger_is_refused_once(tmp_path, discord_api):
    async with running(discord_settings(tmp_path), discord_api,
                       service_factory=scripted("You moved to Porto in 2019 [1].")) as (_, facets):
        await discord_api.direct_message(STRANGER, "what do you know about Ana?")
        await discord_api.direct_message(STRANGER, "hello?")
        await discord_api.direct_message(OWNER, "When did I move to Porto?")
        await discord_api.wait_for(lambda: "You moved to Porto in 2019 [1]." in discord_api.texts())
        stats = await facets.admin.memory.stats()
    texts = discord_api.texts()
    assert texts.count("This is a private bot. It only talks to its owner.") == 1
    assert facets.admin.biographer.asks == [("When did I move to Porto?", f"discord:{OWNER['id']}")]
    assert any(s.path.endswith("/typing") for s in discord_api.sent)
    assert stats["documents"] == 0 and stats["messages"] == 0  # nothing of the stranger's kept


async def test_an_answer_quoting_mentions_pings_nobody(tmp_path, discord_api):
    """An answer may quote a source holding "@everyone" or <@id>: sent with no mention allowed."""
    answer = 'Maya wrote "@everyone dinner at 8" and tagged <@6666> [1].'
    async with running(discord_settings(tmp_path), discord_api, service_factory=scripted(answer)):
        await discord_api.direct_message(OWNER, "What did Maya plan?")
        await discord_api.wait_for(lambda: answer in discord_api.texts())
    [sent] = [s for s in discord_api.sent if isinstance(s.body, dict) and s.content == answer]
    allowed = sent.body["allowed_mentions"]
    assert allowed["parse"] == [] and not allowed.get("users") and not allowed.get("roles")


async def test_slash_command_in_the_dm_answers(tmp_path, discord_api):
    async with running(discord_settings(tmp_path), discord_api) as (_, facets):
        await facets.admin.memory.save([SourceDocument(kind="journal", name="A day in Tavira", identity="j:1",
                                                  text="The ferry was late.")])
        await discord_api.slash(OWNER, "sources")
        await discord_api.wait_for(lambda: any("A day in Tavira" in t for t in discord_api.texts()))


async def test_slash_commands_in_a_server_channel_reveal_nothing(tmp_path, discord_api):
    async with running(discord_settings(tmp_path), discord_api) as (_, facets):
        await facets.admin.memory.save([SourceDocument(kind="journal", name="Secret diary", identity="j:1",
                                                  text="Something private.")])
        for name in ("sources", "export", "bio"):
            await discord_api.slash(OWNER, name, guild_id="4242")
        await discord_api.slash(OWNER, "stats", private_channel=True)  # a DM with a friend, user-installed
        await discord_api.wait_for(lambda: len(discord_api.replies()) >= 4)
    replies = discord_api.replies()
    assert all(r.path.startswith("/interactions/") for r in replies)
    assert all(r.body["data"]["content"] == NOT_HERE and r.body["data"]["flags"] & EPHEMERAL for r in replies)
    assert not any(r.files for r in discord_api.sent)
    assert "Secret diary" not in str([s.body for s in discord_api.sent])


async def test_a_server_the_owner_allowed_is_answered(tmp_path, discord_api):
    settings = discord_settings(tmp_path, discord_guild_ids=["4242"])
    async with running(settings, discord_api):
        await discord_api.slash(OWNER, "stats", guild_id="4242")
        await discord_api.slash(OWNER, "stats", guild_id="9999")
        await discord_api.wait_for(lambda: any(t.startswith("Sources: 0") for t in discord_api.texts()))
        await discord_api.wait_for(lambda: NOT_HERE in discord_api.texts())


async def test_a_stranger_s_slash_command_is_refused_privately(tmp_path, discord_api):
    async with running(discord_settings(tmp_path), discord_api) as (_, facets):
        await facets.admin.memory.save([SourceDocument(kind="journal", name="note", identity="j:1", text="x")])
        await discord_api.slash(STRANGER, "forget", source=1)
        await discord_api.wait_for(lambda: discord_api.replies())
        stats = await facets.admin.memory.stats()
    reply = discord_api.replies()[0]
    assert reply.body["data"]["flags"] & EPHEMERAL and "private bot" in reply.body["data"]["content"]
    assert stats["documents"] == 1


async def test_forget_asks_first_and_deletes_on_the_owners_click(tmp_path, discord_api):
    async with running(discord_settings(tmp_path), discord_api) as (_, facets):
        await facets.admin.memory.save([SourceDocument(kind="journal", name="note", identity="j:1", text="to forget")])
        await discord_api.slash(OWNER, "forget", source=1)
        question = await discord_api.wait_for(
            lambda: next((s for s in discord_api.replies() if s.body.get("components")), None))
        assert "Delete source #1 note" in question.content
        await discord_api.press(STRANGER, question, "Delete it")
        await discord_api.wait_for(lambda: any("private bot" in t for t in discord_api.texts()))
        assert (await facets.admin.memory.stats())["documents"] == 1
        await discord_api.press(OWNER, question, "Delete it")
        await discord_api.wait_for(lambda: "Forgot #1 note." in discord_api.texts())
        assert (await facets.admin.memory.stats())["documents"] == 0


async def test_errors_keep_their_hint_on_discord_too(tmp_path, discord_api):
    async with running(discord_settings(tmp_path), discord_api):
        await discord_api.slash(OWNER, "forget", source=99)
        await discord_api.wait_for(lambda: any("there is no source #99" in t for t in discord_api.texts()))
    text = next(t for t in discord_api.texts() if "#99" in t)
    assert "→" in text and "lists them" in text


async def test_a_rejected_token_is_one_clear_error(tmp_path, discord_api):
    settings = discord_settings(tmp_path, discord_token="wrong-token")
    with pytest.raises(UserFacingError, match="Discord refused the bot token"):
        async with running(settings, discord_api):
            pass
