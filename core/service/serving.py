"""The memory server's facet (bot/server/: REST, MCP and the owner's page): clients and their
tokens, the memory API other agents call, saves, page sessions, and what the page shows of the
biographer (bio.md and its history, questions, the timeline, people, pictures, imports)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.service.parts import Facet, Parts, Person
from core.serving.clients import ClientBook
from core.serving.memory_api import MemoryApi
from core.serving.oauth import OAuthBook
from core.serving.page_sessions import PageSessions
from core.serving.saves import SaveBook, SaveShelf

if TYPE_CHECKING:
    from core.ledger.people import PersonPage


class ServingFacet(Facet):
    """`clients` checks bearer tokens; `memory_api` searches, reads and lists for a client (the
    page passes core.serving.clients.OWNER); `saves` keeps what agents save and `save_shelf` lists and deletes it; `page_sessions` are
    the page's logins; `memory` imports and indexes; `biographer` and `pictures` as named."""

    def __init__(self, parts: Parts) -> None:
        super().__init__(parts)
        self.clients: ClientBook = parts.clients
        self.memory_api: MemoryApi = parts.memory_api
        self.saves: SaveBook = parts.saves
        self.save_shelf: SaveShelf = parts.save_shelf
        self.page_sessions: PageSessions = parts.page_sessions
        self.oauth: OAuthBook = parts.oauth  # grants to remote connectors (bot/server/oauth.py)

    @property
    def model_configured(self) -> bool:
        """Whether a language model answers (questions need one to be folded into bio.md)."""
        return self._parts.llm is not None

    async def people(self) -> list[Person]:
        return await self._parts.people()

    async def person_page(self, name: str) -> PersonPage:
        return await self._parts.person_page(name)
