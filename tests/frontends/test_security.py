"""Ways in and ways out, closed: forged webhook updates, link previews, secrets in logs."""

from __future__ import annotations

import asyncio
import json
import logging
import socket

import httpx

from bot.logs import MaskingFormatter, configure_logging
from tests.frontends.conftest import OWNER, running_bot, telegram_settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def command_update(update_id: int, text: str, chat_id: int) -> dict:
    return {"update_id": update_id, "message": {
        "message_id": 50 + update_id, "date": 1715000000, "text": text,
        "chat": {"id": chat_id, "type": "private"}, "from": OWNER,
        "entities": [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]}}


async def test_webhook_refuses_a_forged_update_and_takes_telegrams(tmp_path, telegram_api):
    port = free_port()
    settings = telegram_settings(tmp_path / "data", telegram_api.url,
                                 telegram_webhook_url="https://bio.example.org/tg-hook", telegram_webhook_port=port)
    async with running_bot(settings):
        registered = (await telegram_api.wait_for(lambda: telegram_api.sent("setWebhook")))[0].params
        secret = registered["secret_token"]
        url = f"http://127.0.0.1:{port}/tg-hook"
        async with httpx.AsyncClient() as client:
            # an attacker who knows the owner's id posts /export for their own chat: refused
            forged = await client.post(url, json=command_update(1, "/export", 6666))
            wrong = await client.post(url, json=command_update(2, "/export", 6666),
                                      headers={"X-Telegram-Bot-Api-Secret-Token": "guess"})
            real = await client.post(url, json=command_update(3, "/stats", OWNER["id"]),
                                     headers={"X-Telegram-Bot-Api-Secret-Token": secret})
        await telegram_api.wait_for(lambda: telegram_api.texts())
        await asyncio.sleep(0.3)
    assert (forged.status_code, wrong.status_code, real.status_code) == (403, 403, 200)
    assert registered["url"] == "https://bio.example.org/tg-hook"
    assert len(secret) >= 32
    assert telegram_api.texts()[0].startswith("Sources: 0")
    assert not telegram_api.sent("sendDocument")  # nothing went to the forged chat
    assert all(c.params.get("chat_id") != "6666" for c in telegram_api.calls)
    # the generated secret is kept (0600) so a restart registers the same one
    kept = settings.data_dir / "telegram-webhook-secret"
    assert kept.read_text().strip() == secret and kept.stat().st_mode & 0o777 == 0o600


async def test_webhook_listens_on_localhost_by_default(tmp_path):
    settings = telegram_settings(tmp_path / "data", "http://127.0.0.1:9")
    assert settings.telegram_webhook_listen == "127.0.0.1"


async def test_bot_messages_never_get_link_previews(tmp_path, telegram_api):
    async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url)):
        await telegram_api.push(user=OWNER, text="/help", entities=[{"type": "bot_command", "offset": 0, "length": 5}])
        await telegram_api.wait_for(lambda: telegram_api.texts())
    options = telegram_api.sent()[0].params["link_preview_options"]
    assert options == {"is_disabled": True}


async def test_no_secret_reaches_the_log_even_at_debug(tmp_path, telegram_api, capfd):
    token = "123456:TEST-TOKEN"
    settings = telegram_settings(tmp_path / "data", telegram_api.url, telegram_token=token,
                                 llm_api_key="sk-or-v1-planted-llm-key-0123456789",
                                 discord_token="planted.discord.token-value-xyz")
    configure_logging(verbose=True, secrets=settings.secret_values())
    try:
        async with running_bot(settings):
            await telegram_api.push(user=OWNER, text="/stats", entities=[{"type": "bot_command", "offset": 0, "length": 6}])
            await telegram_api.wait_for(lambda: telegram_api.texts())
        logging.getLogger("test").error("a provider said: bad key sk-or-v1-planted-llm-key-0123456789 for %s",
                                        "https://api.telegram.org/bot987654321:AAH-abcdefghijklmnopqrstuvwxyz0123/getMe")
    finally:
        configure_logging(verbose=False)
    err = capfd.readouterr().err
    assert "getUpdates" in err or "sendMessage" in err  # the debug log was written
    for secret in (token, "TEST-TOKEN", "planted-llm-key", "planted.discord.token", "AAH-abcdefghij"):
        assert secret not in err, secret


def test_masking_covers_token_shapes_it_was_not_told_about():
    formatter = MaskingFormatter(secrets=[])
    record = logging.LogRecord("x", logging.ERROR, __file__, 1,
                               "POST https://api.telegram.org/bot110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getMe "
                               "Authorization: Bearer abc.def.ghi-jkl key=sk-proj-abcdefghijklmnop1234", (), None)
    text = formatter.format(record)
    assert "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw" not in text and "abc.def.ghi-jkl" not in text
    assert "sk-proj-abcdefghijklmnop1234" not in text and text.count("***") == 3
    assert json.dumps(text)  # still one printable line


async def test_sql_parameters_never_reach_the_log_even_at_debug(tmp_path, capfd):
    from core.service.admin import AdminFacet
    from core.service.parts import Parts
    from tests.core.helpers import memory_at
    from tests.fakes.embedder import HashEmbedder
    from tests.frontends.conftest import service_options
    from core.config import Settings

    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "note.md").write_text("The planted word is quixotryzzle.\n", encoding="utf-8")
    configure_logging(verbose=True)
    try:
        logging.getLogger("test").debug("the debug log is on")
        async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
            service = AdminFacet(Parts(memory=memory, **service_options(Settings(data_dir=tmp_path / "data"))))
            await service.memory.ingest([folder])
            await service.memory.search("quixotryzzle", mode="keyword")
    finally:
        configure_logging(verbose=False)
    err = capfd.readouterr().err
    assert "the debug log is on" in err
    assert "quixotryzzle" not in err
