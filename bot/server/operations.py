"""The four operations and capabilities, once, for both interfaces: REST and MCP parse their
input into the same models (bot/server/schemas.py), call these, and send back the same JSON."""

from __future__ import annotations

from dataclasses import dataclass

from bot.server.indexing import BackgroundIndexer
from bot.server.schemas import DeleteRequest, ListRequest, ReadRequest, SaveRequestBody, SearchRequest
from core.serving.clients import Client
from core.serving.memory_api import MAX_LIMIT, MAX_LIST_LIMIT, Filters
from core.serving.saves import MAX_SAVE_CHARS, SaveRequest
from core.service.serving import ServingFacet


@dataclass(frozen=True)
class Limits:
    rate_per_minute: int
    max_body_bytes: int

    def to_json(self) -> dict:
        return {"rate_per_minute": self.rate_per_minute, "max_body_bytes": self.max_body_bytes,
                "max_search_limit": MAX_LIMIT, "max_list_limit": MAX_LIST_LIMIT, "max_save_chars": MAX_SAVE_CHARS}


def _filters(body: SearchRequest | ListRequest) -> Filters:
    return Filters(kinds=body.kinds(), person=body.person, since=body.since, until=body.until)


class Operations:
    def __init__(self, service: ServingFacet, *, limits: Limits, version: str) -> None:
        self.service = service
        self.limits = limits
        self.version = version
        self.indexer = BackgroundIndexer(service)

    async def search(self, client: Client, body: SearchRequest) -> dict:
        answer = await self.service.memory_api.search(client, body.query, limit=body.limit, mode=body.mode,
                                               filters=_filters(body))
        return answer.to_json()

    async def read(self, client: Client, body: ReadRequest) -> dict:
        answer = await self.service.memory_api.read(client, body.locator, generation=body.generation,
                                             expected_hash=body.expected_hash, window=body.window)
        return answer.to_json()

    async def list(self, client: Client, body: ListRequest) -> dict:
        page = await self.service.memory_api.list(client, filters=_filters(body), section=body.section,
                                             status=body.status, cursor=body.cursor, limit=body.limit)
        return page.to_json()

    async def save(self, client: Client, body: SaveRequestBody, *, idempotency_key: str | None) -> dict:
        request = SaveRequest(
            text=body.text, kind=body.kind, section=body.section, date=body.date, source=body.source, url=body.url,
            person=body.person, replaces=str(body.replaces) if body.replaces is not None else None,
            expected_hash=body.expected_hash)
        saved = await self.service.saves.save(client, request, idempotency_key=idempotency_key)
        if not saved.searchable:
            self.indexer.kick()
        return saved.to_json()

    async def delete(self, client: Client, body: DeleteRequest) -> dict:
        return (await self.service.save_shelf.delete(client, body.record)).to_json()

    async def capabilities(self, client: Client) -> dict:
        return {**await self.service.memory_api.capabilities(client), "limits": self.limits.to_json(), "version": self.version}
