"""The ledger from every front end: "What did I promise Ana?" through the agent (the real client
against the scripted model) and /todo, /owed, /recs, /who with their buttons, on the real Telegram
and Discord adapters; and the CLI."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

import discord
import pytest

from bot.cli import main
from bot.discord_bot import DiscordFrontend
from core.ledger.book import LedgerQuery
from core.providers.openai_chat import OpenAIChat
from tests.fakes.openai_server import FakeOpenAIServer
from tests.frontends.conftest import commands_for
from tests.frontends.fake_discord import FakeDiscord, user
from tests.ledger.conftest import item, locator, proposals, whatsapp
from tests.ledger.harness import LENA, command, lena_on_telegram, lena_service, lena_settings

ANA_CHAT = [
    "06/05/2024, 09:00 - Ana: Could you send me the deck before the board meeting?",
    "06/05/2024, 09:02 - Lena: Sure, I'll send you the deck on Friday",
    "06/05/2024, 09:04 - Ana: And you have to read Tomorrow, and Tomorrow, and Tomorrow",
    "06/05/2024, 09:05 - Ana: I'll bring your blue umbrella back on Sunday",
]


async def seed(facets, model: FakeOpenAIServer, folder) -> dict[str, str]:
    """Ana's chat imported and read into the ledger by the (scripted) model."""
    await facets.admin.memory.ingest([whatsapp(folder, "Ana", ANA_CHAT)])
    where = {key: await locator(facets.admin, phrase) for key, phrase in (
        ("deck", "send you the deck"), ("book", "have to read"), ("umbrella", "umbrella back"))}
    proposals(model, [
        item("commitment", "Send Ana the deck", [(where["deck"], "I'll send you the deck on Friday")], person="Ana",
             due="2024-05-10"),
        item("recommendation", "Tomorrow, and Tomorrow, and Tomorrow", [(where["book"], "you have to read")],
             title="Tomorrow, and Tomorrow, and Tomorrow", category="book", person="Ana"),
        item("owed", "Bring back the blue umbrella", [(where["umbrella"], "bring your blue umbrella back")],
             person="Ana", due="2024-05-12")])
    result = await facets.admin.extract_ledger()
    assert result.added == 3, result.summary()
    [deck] = await facets.admin.ledger.items(LedgerQuery(kinds=("commitment",)))
    return {"deck": next(s.locator for s in deck.sources if s.role == "stated")}


def model_client(server: FakeOpenAIServer) -> OpenAIChat:
    return OpenAIChat(base_url=server.base_url, api_key="k", models={"chat": "fake-chat", "analysis": "fake-an"},
                      max_retries=0, timeout=10)


async def test_what_did_i_promise_ana_on_telegram(tmp_path, telegram_api, fake_openai):
    llm = model_client(fake_openai)
    try:
        async with lena_on_telegram(lena_settings(tmp_path / "data", telegram_api.url), llm=llm) as (_, facets):
            cited = await seed(facets, fake_openai, tmp_path)
            fake_openai.call("ledger_query", {"kind": "commitment", "person": "Ana", "status": ["open", "in_progress"]})
            fake_openai.reply(f'You promised Ana to send her the deck by Friday 10 May: "I\'ll send you the deck on '
                              f'Friday" [{cited["deck"]}].')
            await telegram_api.push(user=LENA, text="What did I promise Ana?")
            await telegram_api.wait_for(lambda: any("Sources:" in t for t in telegram_api.texts()), timeout=30)
    finally:
        await llm.close()
    [answer] = telegram_api.texts()
    assert answer.startswith("You promised Ana to send her the deck by Friday 10 May")
    assert "[1]" in answer and f"[1] WhatsApp with Ana, 2024-05-06 · {cited['deck']}" in answer
    tool_result = fake_openai.requests[-1]["messages"][-1]
    assert tool_result["role"] == "tool" and tool_result["content"].startswith("1 item: the complete list")
    assert "Send Ana the deck · to Ana · due Fri 10 May 2024 · open" in tool_result["content"]
    assert "umbrella" not in tool_result["content"]  # another kind
    assert "ledger_query" in {t["function"]["name"] for t in fake_openai.requests[-1]["tools"]}


async def test_todo_owed_recs_who_and_the_done_button_on_telegram(tmp_path, telegram_api, fake_openai):
    llm = model_client(fake_openai)
    try:
        async with lena_on_telegram(lena_settings(tmp_path / "data", telegram_api.url), llm=llm) as (_, facets):
            await seed(facets, fake_openai, tmp_path)
            for text in ("/todo", "/owed Ana", "/recs book", "/who Ana"):
                await telegram_api.push(user=LENA, **command(text))
            await telegram_api.wait_for(lambda: len(telegram_api.texts()) >= 4)
            todo = next(c for c in telegram_api.sent() if c.params["text"].startswith("Your promises still open"))
            buttons = todo.params["reply_markup"]["inline_keyboard"]
            message = {"message_id": 1, "date": 0, "chat": {"id": LENA["id"], "type": "private"}, "text": "x"}
            await telegram_api.push_callback(user=LENA, data=buttons[0][0]["callback_data"], message=message)
            await telegram_api.wait_for(lambda: telegram_api.texts("editMessageText"))
            [deck] = await facets.admin.ledger.items(LedgerQuery(kinds=("commitment",)))
    finally:
        await llm.close()
    texts = telegram_api.texts()
    assert "#1 Send Ana the deck · to Ana · due Fri 10 May 2024 · open" in todo.params["text"]
    assert "“I'll send you the deck on Friday” (Lena, WhatsApp with Ana, Mon 6 May 2024 · doc1:" in todo.params["text"]
    assert [[b["text"] for b in row] for row in buttons] == [["Done #1", "Drop #1"]]
    assert any(t.startswith("Owed to you (1):\n#3 Bring back the blue umbrella · from Ana") for t in texts)
    assert any(t.startswith("Recommended to you, still to do (1):\n#2 Tomorrow, and Tomorrow, and Tomorrow (book)")
               for t in texts)
    page = next(t for t in texts if t.startswith("Ana\n"))
    assert "Last contact: Mon 6 May 2024, WhatsApp with Ana" in page and "You promised them (1)" in page
    assert "They owe you (1)" in page and "Their recommendations still to do (1)" in page
    assert telegram_api.texts("editMessageText") == ["Marked done: #1 Send Ana the deck · to Ana · due Fri 10 May "
                                                     "2024 · done"]
    assert deck.status == "done" and deck.sources[-1].via == "button"


@pytest.fixture
async def discord_api(monkeypatch):
    async with FakeDiscord() as server:
        monkeypatch.setattr(discord.http.Route, "BASE", server.api_base)
        monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", server.gateway_url)
        yield server


DISCORD_LENA = user(1234, "Lena")


@asynccontextmanager
async def lena_on_discord(tmp_path, discord_api, **kwargs):
    settings = lena_settings(tmp_path / "data", "http://127.0.0.1:9", telegram_token=None,
                             discord_token="discord-test-token", discord_owner_ids=[DISCORD_LENA["id"]])
    async with lena_service(settings, **kwargs) as facets:
        frontend = DiscordFrontend(settings, commands_for(settings, facets))
        async with frontend.running():
            await discord_api.ready()
            yield frontend, facets


async def test_what_did_i_promise_ana_on_discord_by_dm_and_by_slash_command(tmp_path, discord_api, fake_openai):
    llm = model_client(fake_openai)
    try:
        async with lena_on_discord(tmp_path, discord_api, llm=llm) as (_, facets):
            cited = await seed(facets, fake_openai, tmp_path)
            fake_openai.call("ledger_query", {"kind": "commitment", "person": "Ana"})
            fake_openai.reply(f"You promised Ana the deck for Friday [{cited['deck']}].")
            await discord_api.direct_message(DISCORD_LENA, "What did I promise Ana?")
            await discord_api.wait_for(lambda: any("Sources:" in t for t in discord_api.texts()), timeout=30)
            await discord_api.slash(DISCORD_LENA, "todo", person="Ana")
            listed = await discord_api.wait_for(
                lambda: next((s for s in discord_api.replies() if s.body.get("components")), None))
            await discord_api.press(DISCORD_LENA, listed, "Drop #1")
            await discord_api.wait_for(lambda: any(t.startswith("Marked dropped") for t in discord_api.texts()))
            [deck] = await facets.admin.ledger.items(LedgerQuery(kinds=("commitment",)))
    finally:
        await llm.close()
    answer = next(t for t in discord_api.texts() if "Sources:" in t)
    assert answer.startswith("You promised Ana the deck for Friday [1].")
    assert f"WhatsApp with Ana, 2024-05-06 · {cited['deck']}" in answer
    assert "#1 Send Ana the deck · to Ana" in listed.content
    assert [[b["label"] for b in row["components"]] for row in listed.body["components"]] == [["Done #1", "Drop #1"]]
    assert deck.status == "dropped"


@pytest.fixture
def cli_env(monkeypatch, fake_openai: FakeOpenAIServer) -> FakeOpenAIServer:
    for key, value in {"LLM_BASE_URL": fake_openai.base_url, "LLM_MODEL": "fake-chat", "LLM_MAX_RETRIES": "0",
                       "EMBEDDING_BACKEND": "openai", "EMBEDDING_MODEL": "fake-embedding",
                       "OWNER_ALIASES": "Lena", "TIMEZONE": "Europe/Lisbon"}.items():
        monkeypatch.setenv(f"BIOGRAPHER_{key}", value)
    return fake_openai


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_what_did_i_promise_ana_from_the_command_line(cli_env, capsys, tmp_path):
    assert run(capsys, "ingest", str(whatsapp(tmp_path, "Ana", ANA_CHAT)))[0] == 0
    code, out, _ = run(capsys, "grep", "send you the deck", "--json")
    deck = json.loads(out)["matches"][0]["locator"]
    proposals(cli_env, [item("commitment", "Send Ana the deck", [(deck, "I'll send you the deck on Friday")],
                             person="Ana", due="2024-05-10")])
    code, out, err = run(capsys, "ledger", "extract")
    assert code == 0 and out.startswith("1 window of 1 conversation; 1 new"), err

    code, out, _ = run(capsys, "ledger", "commitments", "--person", "Ana")
    assert code == 0 and out.startswith("What you promised (1):\n#1 Send Ana the deck · to Ana · due Fri 10 May 2024")
    assert "“I'll send you the deck on Friday” (Lena, WhatsApp with Ana" in out

    cli_env.call("ledger_query", {"person": "Ana", "kind": "commitment"})
    cli_env.reply(f"You promised Ana the deck by Friday [{deck}].")
    code, out, _ = run(capsys, "ask", "What did I promise Ana?")
    assert code == 0 and out.startswith("You promised Ana the deck by Friday [1].")
    assert f"[1] WhatsApp with Ana, 2024-05-06 · {deck}" in out
