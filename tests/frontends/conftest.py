"""Fixtures for the front ends: a real store, the real Application against a fake Bot API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot.common import FrontendDeps
from bot.telegram import TelegramFrontend
from core.config import Settings
from core.service import Service
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder
from tests.frontends.fake_telegram import FakeTelegram

OWNER = {"id": 4242, "is_bot": False, "first_name": "Ana", "last_name": "Lind", "username": "ana"}
STRANGER = {"id": 6666, "is_bot": False, "first_name": "Eve"}


def telegram_settings(data_dir: Path, api_url: str, **overrides: object) -> Settings:
    values = dict(data_dir=data_dir, timezone="Europe/Lisbon", owner_aliases=["Ana", "Ana Lind"],
                  telegram_token="123456:TEST-TOKEN", telegram_owner_ids=[str(OWNER["id"])],
                  telegram_api_url=api_url, telegram_forward_burst_seconds=0.3, progress_edit_seconds=0.0)
    values.update(overrides)
    return Settings(**values)


@asynccontextmanager
async def deps_at(settings: Settings, *, service_factory=None) -> AsyncIterator[FrontendDeps]:
    async with memory_at(settings.data_dir, HashEmbedder(), owner="Ana") as memory:
        service = service_factory(memory) if service_factory else Service(memory=memory)
        yield FrontendDeps.build(settings, service)


@pytest.fixture
async def telegram_api() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


@asynccontextmanager
async def running_bot(settings: Settings, **kwargs: object) -> AsyncIterator[tuple[TelegramFrontend, FrontendDeps]]:
    async with deps_at(settings, **kwargs) as deps:
        frontend = TelegramFrontend(deps)
        async with frontend.running():
            yield frontend, deps
