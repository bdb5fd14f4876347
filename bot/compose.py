"""Composition root: settings -> store -> providers -> services. The one place that picks
concrete classes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.config import Settings
from core.errors import UserFacingError
from core.importers import ImportContext
from core.memory import Memory
from core.ports import Embedder
from core.providers.lazy import LazyEmbedder
from storage.db import open_database


def build_embedder(settings: Settings) -> Embedder:
    if settings.embedding_backend == "openai":
        from core.providers.openai_embedder import OpenAIEmbedder

        return OpenAIEmbedder(
            model=settings.embedding_model,
            base_url=settings.embedding_base_url or settings.llm_base_url,
            api_key=(settings.embedding_api_key or settings.llm_api_key).get_secret_value()
            if (settings.embedding_api_key or settings.llm_api_key) else None,
            batch_size=settings.embedding_batch_size,
        )
    from core.providers.local_embedder import load_local_embedder

    return load_local_embedder(settings.embedding_model, batch_size=settings.embedding_batch_size,
                               threads=settings.embedding_threads)


def timezone_of(settings: Settings) -> ZoneInfo:
    try:
        return ZoneInfo(settings.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise UserFacingError(f"unknown time zone {settings.timezone!r}",
                              hint="set BIOGRAPHER_TIMEZONE to a name like Europe/Lisbon") from None


def import_context(settings: Settings) -> ImportContext:
    return ImportContext(
        timezone=timezone_of(settings),
        owner_aliases=frozenset(a.lower() for a in settings.owner_aliases),
    )


@asynccontextmanager
async def open_memory(settings: Settings, *, embedder: Embedder | None = None) -> AsyncIterator[Memory]:
    """The memory core over the configured store, closed on exit."""
    async with open_database(settings.database_path) as conn:
        yield Memory(conn, embedder=embedder or LazyEmbedder(lambda: build_embedder(settings)),
                     context=import_context(settings), raw_dir=settings.raw_dir)
