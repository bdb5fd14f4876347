"""The biographer against the fake OpenAI server, over a real store with the hash embedder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.compose import agent_config, open_facets
from core.config import Settings
from core.providers.openai_chat import OpenAIChat
from core.service.admin import AdminFacet
from core.service.parts import Parts
from core.service.schedule import ScheduleFacet
from core.types import Conversation, Message, SourceDocument
from tests.fakes.openai_server import FakeOpenAIServer

LISBON = ZoneInfo("Europe/Lisbon")
MAYA_CHAT = [
    ("Maya", "Are you still thinking about moving to Porto?", datetime(2024, 3, 12, 9, 15)),
    ("Ana", "Yes, I signed the lease for the flat in Porto yesterday!", datetime(2024, 3, 12, 9, 17)),
    ("Maya", "Amazing. When do you start at the bakery?", datetime(2024, 3, 12, 9, 20)),
    ("Ana", "In April. I am nervous but happy.", datetime(2024, 3, 12, 9, 22)),
]


def maya_document(lines=MAYA_CHAT, *, key: str = "maya") -> SourceDocument:
    return SourceDocument(
        kind="whatsapp", name="WhatsApp with Maya", identity=f"test:{key}",
        conversation=Conversation(platform="whatsapp", key=key, name="WhatsApp with Maya",
                                  participants=("Maya", "Ana")),
        messages=iter([Message(sender=s, text=t, time=when.replace(tzinfo=LISBON), is_owner=s == "Ana")
                       for s, t, when in lines]),
    )


def journal_document(text: str, when: datetime, *, name: str = "journal.md") -> SourceDocument:
    return SourceDocument(kind="markdown", name=name, identity=f"test:{name}:{when}", text=text,
                          time_start=when.replace(tzinfo=LISBON))


class Clock:
    """A settable clock, so 'asked in the last N days' and daily caps are testable."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2024, 6, 1, 12, 0, tzinfo=LISBON))


@pytest.fixture
def agent_settings(settings: Settings) -> Settings:
    return settings


@pytest.fixture
async def llm(fake_openai: FakeOpenAIServer):
    client = OpenAIChat(base_url=fake_openai.base_url, api_key="test-key",
                        models={"chat": "fake-chat", "analysis": "fake-analysis"}, timeout=10, max_retries=2)
    yield client
    await client.close()


@pytest.fixture
async def parts(agent_settings: Settings, embedder, llm, clock) -> AsyncIterator[Parts]:
    """The service's parts over the test's store, with a settable clock (the composition root uses
    the wall clock)."""
    async with open_facets(agent_settings, llm=llm, embedder=embedder) as built:
        yield Parts(memory=built.admin.memory, llm=llm, config=agent_config(agent_settings), clock=clock)


@pytest.fixture
def service(parts: Parts) -> AdminFacet:
    """The CLI's facet: most of what these tests drive."""
    return AdminFacet(parts)


@pytest.fixture
def schedule(parts: Parts) -> ScheduleFacet:
    return ScheduleFacet(parts)


@pytest.fixture
async def seeded(service: AdminFacet) -> AdminFacet:
    await service.memory.save([maya_document()])
    return service
