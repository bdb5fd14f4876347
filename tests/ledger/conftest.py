"""The ledger over a real store, the real importers and the real `openai` client against the
scripted OpenAI-compatible server. The owner is Lena; Ana, Maya, Rui and the others are people she
writes to."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core.config import Settings
from core.service.admin import AdminFacet
from tests.agent.conftest import Clock, llm, parts, schedule, service  # noqa: F401 (fixtures)
from tests.fakes.openai_server import FakeOpenAIServer

LISBON = ZoneInfo("Europe/Lisbon")
OWNER = ["Lena", "Lena Fischer", "lena@example.com"]


@pytest.fixture
def ledger_settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", timezone="Europe/Lisbon", owner_aliases=OWNER)


@pytest.fixture
def agent_settings(ledger_settings: Settings) -> Settings:
    """The agent tests' `service` and `llm` fixtures (imported above), over Lena's settings."""
    return ledger_settings


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2024, 5, 20, 12, 0, tzinfo=LISBON))  # a Monday


def whatsapp(folder: Path, name: str, lines: list[str]) -> Path:
    """A WhatsApp (Android) export: `05/03/2024, 21:07 - Sender: text` per line."""
    path = folder / f"WhatsApp Chat with {name}.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def email(folder: Path, name: str, *, sender: str, to: str, subject: str, date: str, body: str,
          message_id: str, reply_to: str | None = None) -> Path:
    path = folder / name
    headers = [f"From: {sender}", f"To: {to}", f"Subject: {subject}", f"Date: {date}", f"Message-ID: <{message_id}>"]
    if reply_to:
        headers.append(f"In-Reply-To: <{reply_to}>")
    path.write_text("\n".join(headers) + "\n\n" + body + "\n", encoding="utf-8")
    return path


async def locator(service: AdminFacet, phrase: str) -> str:
    """Where a phrase was said (a grep hit inside its line), as the model would cite it."""
    page = await service.memory.grep(phrase)
    assert page.total == 1, f"{phrase!r} found {page.total} times"
    return str(page.matches[0].locator)


def item(kind: str, text: str, evidence: list[tuple[str, str]], **extra) -> dict:
    return {"kind": kind, "text": text, "evidence": [{"locator": l, "quote": q} for l, q in evidence], **extra}


def proposals(server: FakeOpenAIServer, items: list[dict] = (), updates: list[dict] = ()) -> None:
    server.call("record_ledger", {"items": list(items), "updates": list(updates)})


def shown_to_model(server: FakeOpenAIServer, n: int = -1) -> str:
    """The window text of the n-th extraction request."""
    return server.requests[n]["messages"][1]["content"]


def tool_names(server: FakeOpenAIServer, n: int) -> list[str]:
    return [t["function"]["name"] for t in server.requests[n].get("tools", [])]


def arguments(server: FakeOpenAIServer, n: int) -> dict:
    return json.loads(server.requests[n]["messages"][-1]["content"])


@pytest.fixture
async def telegram_api():
    from tests.frontends.fake_telegram import FakeTelegram

    async with FakeTelegram() as server:
        yield server
