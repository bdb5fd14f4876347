"""The real Telegram and Discord front ends over a real store whose owner is Lena (the front-end
fixtures' store belongs to Ana, who is someone Lena writes to here)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path

from bot.telegram import TelegramFrontend
from core.agent.config import AgentConfig
from core.config import Settings
from core.ports import LLM
from bot.compose import Facets
from core.service.parts import Parts
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder
from tests.frontends.conftest import commands_for, service_options, telegram_settings
from tests.ledger.conftest import LISBON, OWNER

LENA = {"id": 4242, "is_bot": False, "first_name": "Lena", "last_name": "Fischer", "username": "lena"}


def lena_settings(data_dir: Path, api_url: str, **overrides: object) -> Settings:
    return telegram_settings(data_dir, api_url, **{"owner_aliases": OWNER, **overrides})


@asynccontextmanager
async def lena_service(settings: Settings, *, llm: LLM | None = None, clock=None) -> AsyncIterator[Facets]:
    async with memory_at(settings.data_dir, HashEmbedder(), owner="Lena") as memory:
        options = {"clock": clock} if clock else {}
        yield Facets.over(Parts(memory=memory, llm=llm, config=AgentConfig(owner="Lena", zone=LISBON),
                                **service_options(settings), **options))


@asynccontextmanager
async def lena_on_telegram(settings: Settings, **kwargs) -> AsyncIterator[tuple[TelegramFrontend, Facets]]:
    async with lena_service(settings, **kwargs) as facets:
        frontend = TelegramFrontend(settings, commands_for(settings, facets))
        async with frontend.running():
            yield frontend, facets


def command(text: str) -> dict:
    """The entities Telegram sends with a /command."""
    return {"text": text, "entities": [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]}


class Clock:
    def __init__(self, *args: int) -> None:
        self.now = datetime(*args, tzinfo=LISBON)

    def __call__(self) -> datetime:
        return self.now
