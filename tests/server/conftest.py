"""Fixtures for the memory server: a real store and service, the real server on a free port,
driven by a real HTTP client (httpx) and the SDK's real MCP client over Streamable HTTP."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import httpx2
import numpy as np
from mcp import Client as McpClient
from mcp.client.streamable_http import streamable_http_client

from bot.server.run import serving
from core.serving.clients import OPERATIONS
from core.biographer.gate import AgentGate
from core.config import Settings
from core.ports import LLM
from core.times import Clock
from bot.compose import Facets
from core.service.admin import AdminFacet
from core.service.parts import Parts
from core.service.serving import ServingFacet
from tests.core.helpers import MAYA_CHAT, memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder
from tests.frontends.conftest import service_options


class GatedEmbedder(HashEmbedder):
    """The hash embedder, held at a gate: indexing waits until the test opens it (a save is then
    readable but not yet searchable, as with a slow model)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.gate.set()

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        self.gate.wait(timeout=30)
        return super().embed(texts, query=query)


@dataclass
class Running:
    url: str
    service: AdminFacet  # the test's own hands on the store (the server has only its serving facet)
    serving: ServingFacet
    parts: Parts  # what both are built over (a test sets up feeds there)
    embedder: GatedEmbedder
    settings: Settings

    async def token(self, name: str = "agent", *, allow: Sequence[str] = OPERATIONS,
                    sections: Sequence[str] = ()) -> str:
        issued = await self.service.clients.add(name, operations=tuple(allow), sections=tuple(sections))
        return issued.token

    def http(self, token: str | None) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.AsyncClient(base_url=self.url, headers=headers, timeout=30)

    async def indexer_idle(self) -> None:
        """Wait until the server's background indexing has embedded everything saved."""
        for _ in range(500):
            if (await self.serving.memory_api.index_state()).pending == 0:
                return
            await asyncio.sleep(0.02)
        raise AssertionError("indexing did not catch up")

    def mcp(self, token: str) -> McpClient:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
        return McpClient(streamable_http_client(f"{self.url}/mcp", http_client=http))


async def seed(service: AdminFacet, folder: Path) -> None:
    """A WhatsApp chat with Maya and two journal entries, indexed."""
    folder.mkdir(parents=True, exist_ok=True)
    whatsapp_export(folder / "WhatsApp Chat with Maya.txt", MAYA_CHAT)
    (folder / "2024-04-02 journal.md").write_text("# Physio\n\nThe physio said the knee needs rest until May.\n",
                                                  encoding="utf-8")
    (folder / "2024-05-20 journal.md").write_text("# Books\n\nStarted reading Piranesi on the train to Porto.\n",
                                                  encoding="utf-8")
    report = await service.memory.ingest([folder])
    assert not report.errors, report.errors


@asynccontextmanager
async def running_server(settings: Settings, tmp_path: Path, *, seeded: bool = True,
                         llm: LLM | None = None, key=None, clock: Clock | None = None,
                         gate: AgentGate | None = None) -> AsyncIterator[Running]:
    """`clock`: what the server takes for now (OAuth's expiries are tested by moving it on);
    `gate`: the agent's one-run-at-a-time, held by the test as another run would."""
    embedder = GatedEmbedder()
    async with memory_at(settings.data_dir, embedder, key=key) as memory:
        parts = Parts(memory=memory, llm=llm, **service_options(settings), **({"clock": clock} if clock else {}),
                      oauth_client_hosts=settings.oauth_client_hosts)
        facets = Facets.over(parts)
        if seeded:
            await seed(facets.admin, tmp_path / "exports")
        async with serving(facets.serving, settings, host="127.0.0.1", port=0, gate=gate) as url:
            yield Running(url=url, service=facets.admin, serving=facets.serving, parts=parts, embedder=embedder,
                          settings=settings)
        embedder.gate.set()
