"""The memory core's facade: save sources, index them, search, grep and read them back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import aiosqlite

from core.importers import ImportContext, Importer, default_importers
from core.indexer import Indexer
from core.ingest import Ingestor
from core.ports import Embedder, Progress, no_progress
from core.search import PersonNames, Searcher
from core.types import GrepPage, IngestReport, Locator, SearchFilters, SearchHit, SourceDocument, SourceText
from core.spelling_hints import spelling_hints
from storage import chunks as chunk_store
from storage import messages as message_store
from storage import people as people_store
from storage import profile as profile_store
from storage.meta import get_meta


class Memory:
    def __init__(self, conn: aiosqlite.Connection, *, embedder: Embedder, context: ImportContext,
                 raw_dir: Path, importers: list[Importer] | None = None,
                 person_names: PersonNames | None = None) -> None:
        self.conn = conn
        self.embedder = embedder
        self.context = context
        self.ingestor = Ingestor(conn, importers=importers or default_importers(), context=context,
                                 raw_dir=raw_dir)
        self.indexer = Indexer(conn, embedder)
        # the person filter matches every name the people table knows for that person
        self.searcher = Searcher(conn, embedder,
                                 person_names=person_names or (lambda name: people_store.names_of(conn, name)))

    async def ingest(self, paths: Sequence[Path], *, progress: Progress = no_progress,
                     index: bool = True) -> IngestReport:
        """Save every file (each document in one transaction), then embed what is new.

        With `index=False` the model is not even loaded: saving needs none, and a model mismatch
        is reported when indexing runs."""
        if index:
            await self.indexer.check_model()
        if self.context.transcriber is not None or self.context.describer is not None:
            await self.refresh_spelling_hints()
        report = await self.ingestor.ingest_paths(paths, progress=progress)
        if report.messages_added:
            await people_store.sync_from_messages(self.conn)
        if index:
            await self.indexer.index_pending(progress=progress)
        return report

    async def save(self, documents: Sequence[SourceDocument], *, index: bool = True) -> IngestReport:
        """Save documents made elsewhere (forwarded messages, the owner's own words)."""
        await self.indexer.check_model()
        report = IngestReport()
        for document in documents:
            report.merge(await self.ingestor.save_document(document))
        if report.messages_added:
            await people_store.sync_from_messages(self.conn)
        if index:
            await self.indexer.index_pending()
        return report

    async def refresh_spelling_hints(self) -> Sequence[str]:
        """Names the transcriber and the vision model should spell right, from the profile
        (bio.md) and the people who write most, as they are now."""
        profile = await profile_store.get_profile(self.conn) or ""
        names = await message_store.frequent_senders(self.conn, limit=200)
        self.context = replace(self.context, spelling_hints=tuple(spelling_hints(profile, names)))
        self.ingestor.context = self.context
        return self.context.spelling_hints

    async def warm_up(self) -> None:
        """Load what searches keep in memory (the vector index) now, not at the first search:
        for long-running processes (the bots, the server)."""
        await self.searcher.warm_up()

    async def index_pending(self, *, progress: Progress = no_progress) -> int:
        return await self.indexer.index_pending(progress=progress)

    async def reindex(self, *, progress: Progress = no_progress) -> int:
        return await self.indexer.reindex(progress=progress)

    async def search(self, query: str, *, limit: int = 10, mode: str = "hybrid",
                     filters: SearchFilters = SearchFilters()) -> list[SearchHit]:
        if mode != "keyword":
            await self.indexer.check_model()
        return await self.searcher.search(query, limit=limit, mode=mode, filters=filters)

    async def grep(self, pattern: str, *, regex: bool = False, page: int = 1, page_size: int = 20,
                   newest_first: bool = True, filters: SearchFilters = SearchFilters()) -> GrepPage:
        return await self.searcher.grep(pattern, regex=regex, page=page, page_size=page_size,
                                        newest_first=newest_first, filters=filters)

    async def read(self, locator: Locator | str, *, window: int = 0) -> SourceText:
        return await self.searcher.read(locator, window=window)

    async def stats(self) -> dict:
        chunks, pending = await chunk_store.count_chunks(self.conn)
        async with self.conn.execute(
            "SELECT kind, COUNT(*), COALESCE(SUM(chunk_count), 0) FROM documents GROUP BY kind ORDER BY kind"
        ) as cur:
            kinds = {row[0]: {"documents": row[1], "chunks": row[2]} for row in await cur.fetchall()}
        async with self.conn.execute("SELECT COUNT(*) FROM messages") as cur:
            (messages,) = await cur.fetchone()
        return {
            "documents": sum(k["documents"] for k in kinds.values()),
            "chunks": chunks,
            "chunks_pending_index": pending,
            "messages": messages,
            "by_kind": kinds,
            "embedding_model": await get_meta(self.conn, "embedding_model"),
            "embedding_dim": int(await get_meta(self.conn, "embedding_dim") or 0) or None,
        }
