"""Fixtures for the front ends: a real store, the real Application against a fake Bot API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot.commands import Commands
from bot.outbound import Outbound
from bot.scheduler import build_runner
from bot.telegram import TelegramFrontend
from core.config import Settings
from core.schedule.jobs import JobRunner
from core.schedule.preferences import ScheduleDefaults
from bot.compose import Facets
from core.service.parts import Parts
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


def service_options(settings: Settings) -> dict:
    """What the composition root gives the service's Parts besides the memory and the model."""
    return dict(schedule=ScheduleDefaults.from_settings(settings), data_dir=settings.data_dir)


@asynccontextmanager
async def service_at(settings: Settings, *, service_factory=None) -> AsyncIterator[Facets]:
    """The real facets over a real store; `service_factory(memory, **options)` returns the Parts
    (tests/frontends/fakes.scripted to script the model)."""
    async with memory_at(settings.data_dir, HashEmbedder(), owner="Ana") as memory:
        factory = service_factory or (lambda memory, **options: Parts(memory=memory, **options))
        yield Facets.over(factory(memory, **service_options(settings)))


def commands_for(settings: Settings, facets: Facets) -> Commands:
    return Commands(facets.chat, forward_quiet=settings.telegram_forward_burst_seconds)


@pytest.fixture
async def telegram_api() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


@asynccontextmanager
async def running_bot(settings: Settings, **kwargs: object) -> AsyncIterator[tuple[TelegramFrontend, Facets]]:
    async with service_at(settings, **kwargs) as facets:
        frontend = TelegramFrontend(settings, commands_for(settings, facets))
        async with frontend.running():
            yield frontend, facets


def runner_for(settings: Settings, frontend: TelegramFrontend, facets: Facets, **options: object) -> JobRunner:
    """The scheduler's runner, sending through `frontend` as the runtime does."""
    return build_runner(settings, facets.schedule, frontend.commands.gate, Outbound([frontend], facets.chat.prompts),
                        **options)
