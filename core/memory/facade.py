"""The memory core's facade: save sources, index them, search, grep and read them back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING

from core.importers.base import ImportContext, Importer
from core.ports import Embedder, Progress, no_progress
from core.memory.reading import PersonNames, SourceReader
from core.memory.sources import Forgotten, clean_raw_copies, forget_source
from core.types import GrepPage, Locator, SearchFilters, SearchHit, SourceText
from core.errors import UserFacingError
from storage import chunks as chunk_store
from storage import documents as document_store
from storage import messages as message_store
from storage.db import Store, busy_notice, open_database
from storage.encryption import StoreKey
from storage.meta import get_meta
from storage.uploads import FOLDER as UPLOADS_FOLDER, StagedFolder, UploadStaging

if TYPE_CHECKING:
    from core.imported import IngestReport, SourceDocument
    from core.memory.search import Searcher
    from core.memory.embedding_choice import EmbeddingAdvice
    from core.memory.indexer import Indexer
    from core.memory.ingest import Ingestor
    from core.memory.multilingual import MultilingualSpace, SpaceState
    from core.memory.translation import Translator


__all__ = ["Forgotten", "Memory", "StagedFolder", "open_store"]  # StagedFolder: what the page's uploads wait in


@asynccontextmanager
async def open_store(path: Path, *, key: StoreKey | None = None, busy_seconds: float,
                     private_folders: Sequence[Path] = ()) -> AsyncIterator[Store]:
    """The store at `path` (created and migrated if needed; opened with `key` when encrypted),
    whose writes wait up to `busy_seconds` for another process's write lock; it and
    `private_folders` are made owner-only."""
    async with open_database(path, key=key, private_folders=private_folders, busy_deadline=busy_seconds) as store:
        yield store


# the people table is read by a person filter (and written by imports): `grep` and `read` without
# one never import it (bench/startup.py)
async def _names_of(conn: Store, name: str) -> list[str]:
    from storage import people as people_store

    return await people_store.names_of(conn, name)


class Memory:
    def __init__(self, conn: Store, *, embedder: Embedder, context: ImportContext,
                 raw_dir: Path, backup_dir: Path | None = None, importers: list[Importer] | None = None,
                 person_names: PersonNames | None = None, multilingual: Embedder | None = None,
                 multilingual_setting: str = "auto", translator: Translator | None = None) -> None:
        """`multilingual`: the model of the multilingual space (core/memory/multilingual.py),
        loaded on first use; None: no space is filled or searched. `translator`: the bilingual
        dictionaries hybrid searches translate the question with (core/memory/translation.py)."""
        self.conn = conn
        self.translator = translator
        self.multilingual_embedder = multilingual
        self.multilingual_setting = multilingual_setting
        self.raw_dir = raw_dir
        self.backup_dir = backup_dir
        self.embedder = embedder
        # files dropped on the page wait in the data folder (storage/uploads.py), beside raw/, and
        # importers unpack archives there too, never in the system's temporary folder
        self.uploads = UploadStaging(raw_dir.parent / UPLOADS_FOLDER)
        self.context = replace(context, scratch=self.uploads.scratch)
        self._importers = importers
        # the person filter matches every name the people table knows for that person
        self._person_names = person_names or partial(_names_of, conn)
        self.sources = SourceReader(conn, person_names=self._person_names)

    @property
    def file_key(self) -> bytes | None:
        """The key that seals files beside an encrypted store (uploads waiting, kept copies)."""
        return self.conn.key.files if self.conn.key else None

    @cached_property
    def searcher(self) -> Searcher:
        """Made, and its module imported, on the first search: `grep`, `read` and `stats` never
        do (bench/startup.py)."""
        from core.memory.search import Searcher

        return Searcher(self.conn, self.embedder, person_names=self._person_names,
                        owner_aliases=self.context.owner_aliases, multilingual=self.multilingual_embedder,
                        sources=self.sources, translator=self.translator)

    # importing and embedding load the importers and numpy: only the commands that need them pay
    @cached_property
    def ingestor(self) -> Ingestor:
        from core.importers import default_importers
        from core.memory.ingest import Ingestor

        return Ingestor(self.conn, importers=self._importers or default_importers(), context=self.context,
                        raw_dir=self.raw_dir)

    @cached_property
    def indexer(self) -> Indexer:
        from core.memory.indexer import Indexer

        return Indexer(self.conn, self.embedder, multilingual=self.multilingual)

    @cached_property
    def multilingual(self) -> MultilingualSpace | None:
        if self.multilingual_embedder is None:
            return None
        from core.memory.multilingual import MultilingualSpace

        return MultilingualSpace(self.conn, self.multilingual_embedder, setting=self.multilingual_setting)

    # what an import runs on is made, its modules loaded, in a worker thread the first time: loaded
    # on the loop, they would stall every request a server or a bot answers meanwhile (seconds on
    # a busy machine; tests/server/test_page_import_off_loop.py)
    async def _ready_to_import(self) -> tuple[Ingestor, Indexer]:
        if "ingestor" not in self.__dict__:  # where cached_property keeps what it made
            await asyncio.to_thread(self._load_import_modules)
        return self.ingestor, await self._ready_to_index()

    def _load_import_modules(self) -> None:
        """The importers (icalendar, dateutil, the e-mail parser...), the ingest, and the keyword
        postings that saving folds (storage/chunks.py imports them on the first insert)."""
        import numpy.ma  # noqa: F401 - np.unique imports it on its first call (the postings' fold)

        from storage.keyword import postings  # noqa: F401

        self.ingestor  # noqa: B018 - made, and cached, here

    async def _ready_to_index(self) -> Indexer:
        """The indexer, its module (numpy, the vector store) loaded in a worker thread the first time."""
        if "indexer" not in self.__dict__:
            await asyncio.to_thread(lambda: (self.indexer, self.multilingual))
        return self.indexer

    async def multilingual_state(self) -> SpaceState | None:
        """Whether the store has the multilingual space and how far it is filled (None: not offered here)."""
        return await self.multilingual.state() if self.multilingual is not None else None

    async def ingest(self, paths: Sequence[Path], *, progress: Progress = no_progress, index: bool = True,
                     keep_raw: bool = True, on_busy: Callable[[float], object] | None = None) -> IngestReport:
        """Save every file or folder (each document in one transaction; one bad file never stops
        the others, see report.errors), then embed what is new.

        With `index=False` the model is not even loaded: saving needs none, and a model mismatch
        is reported when indexing runs. `keep_raw=False` keeps no copy of the files. While another
        process holds the store's write lock, `on_busy(seconds waited)` is called now and then (a
        note for the owner) and the import waits instead of failing."""
        token = busy_notice.set(on_busy) if on_busy else None
        try:
            return await self._ingest(paths, progress=progress, index=index, keep_raw=keep_raw)
        finally:
            if token is not None:
                busy_notice.reset(token)

    async def _ingest(self, paths: Sequence[Path], *, progress: Progress, index: bool,
                      keep_raw: bool) -> IngestReport:
        ingestor, indexer = await self._ready_to_import()
        if index:
            await indexer.check_model()
        if self.context.transcriber is not None or self.context.describer is not None:
            await self.refresh_spelling_hints()
        report = await ingestor.ingest_paths(paths, progress=progress, keep_raw=keep_raw)
        if report.messages_added:
            from storage import people as people_store

            await people_store.sync_from_messages(self.conn)
        if index:
            await indexer.index_pending(progress=progress)
        if report.chunks_added:
            report.notes.extend(await self.embedding_notes())
            if index:  # with the slow work left for later (--no-index), the first search compiles them
                await self._prepare_translation()
        return report

    async def translation_coverage(self) -> tuple[list[str], list[str]] | None:
        """The store's other languages than English (core/memory/translation.py other_languages)
        that an English question is translated into, and those no dictionary here covers; None
        where translation is off."""
        if self.translator is None:
            return None
        from core.memory.translation import other_languages

        others = other_languages(await self._chunks_per_language(), "en")
        covered = [language for language in others if self.translator.can_translate("en", language)]
        return covered, [language for language in others if language not in covered]

    async def _prepare_translation(self) -> None:
        """Compile the dictionaries of the store's languages now (English-German takes about 40 s
        once per machine), so that no search waits for it."""
        if self.translator is None:
            return
        await asyncio.to_thread(self.translator.prepare, await self._chunks_per_language())

    async def _chunks_per_language(self) -> dict[str, int]:
        """Chunks per language ("" undetermined), as translation weighs the store's languages."""
        return {language: tally.chunks for language, tally in (await chunk_store.language_counts(self.conn)).items()}

    async def embedding_notes(self) -> list[str]:
        """What the owner should hear about the embedding model after an import: the model "auto"
        just picked for their languages, or that the store's model no longer suits its text."""
        from core.memory.embedding_choice import chosen_note, language_mix

        notes = []
        if self.indexer.chose:
            notes.append(chosen_note(self.indexer.chose, await language_mix(self.conn)))
            self.indexer.chose = None
        notes.append((await self.indexer.advice()).note)
        if self.multilingual is not None and self.multilingual.turned_on:
            notes.append((await self.multilingual.state()).note)
            self.multilingual.turned_on = False
        return [note for note in notes if note]

    async def save(self, documents: Sequence[SourceDocument], *, index: bool = True,
                   then: Callable[[int], Awaitable[None]] | None = None) -> IngestReport:
        """Save documents made elsewhere (forwarded messages, the owner's own words); `then`: see
        Ingestor.save_document (runs in each document's own transaction)."""
        from core.imported import IngestReport

        ingestor, indexer = await self._ready_to_import()
        await indexer.check_model()
        report = IngestReport()
        for document in documents:
            report.merge(await ingestor.save_document(document, then=then))
        if report.messages_added:
            from storage import people as people_store

            await people_store.sync_from_messages(self.conn)
        if index:
            await indexer.index_pending()
        return report

    async def refresh_spelling_hints(self) -> Sequence[str]:
        """Names the transcriber and the vision model should spell right, from the profile
        (bio.md) and the people who write most, as they are now."""
        from core.providers.spelling_hints import spelling_hints
        from storage import profile as profile_store

        profile = await profile_store.get_profile(self.conn) or ""
        names = await message_store.frequent_senders(self.conn, limit=200)
        self.context = replace(self.context, spelling_hints=tuple(spelling_hints(profile, names)))
        self.ingestor.context = self.context
        return self.context.spelling_hints

    async def forget(self, document_id: int) -> Forgotten:
        """Delete a source and everything taken from it, here and in every backup (see
        core.memory.sources.forget_source). A version of an agent's saved record takes every
        version with it: an earlier one left behind would still be listed, read and in the bytes."""
        from storage import saves as save_store  # the agents' saved records: only forget reads them here

        for other in await save_store.versions_beside(self.conn, document_id):
            await forget_source(self.conn, other, raw_dir=self.raw_dir, backup_dir=self.backup_dir)
        forgotten = await forget_source(self.conn, document_id, raw_dir=self.raw_dir, backup_dir=self.backup_dir)
        async with self.conn.transaction():
            await save_store.delete_records_without_versions(self.conn)
        # what a killed import left waiting may hold the very source being forgotten
        await asyncio.to_thread(self.uploads.sweep)
        return forgotten

    async def clean_raw_copies(self) -> int:
        """Delete the raw copies no source refers to, and the uploads of imports that did not
        finish (a server killed mid-import); returns how many raw copies went."""
        await asyncio.to_thread(self.uploads.sweep)
        return await clean_raw_copies(self.conn, self.raw_dir)

    async def policy_changed(self, document_ids: list[int], policy: str) -> int:
        """A disclosure policy changed for these sources (see Indexer.policy_changed)."""
        return await (await self._ready_to_index()).policy_changed(document_ids, policy)

    async def embedding_advice(self) -> EmbeddingAdvice:
        """The store's languages, its embedding model and the one its languages call for."""
        return await (await self._ready_to_index()).advice()

    async def warm_up(self, *, vector_memory_mb: int | None = None) -> None:
        """Load what searches keep in memory now, not at the first search, so a long-running
        process (the bots, the server) answers its first question as fast as its hundredth; its
        vectors too while they fit `vector_memory_mb` (None: the index's default)."""
        await self.searcher.warm_up(
            vector_budget_bytes=None if vector_memory_mb is None else vector_memory_mb << 20)

    async def index_pending(self, *, progress: Progress = no_progress) -> int:
        return await (await self._ready_to_index()).index_pending(progress=progress)

    async def reindex(self, *, progress: Progress = no_progress) -> int:
        return await (await self._ready_to_index()).reindex(progress=progress)

    async def others_than(self, person: str) -> list[str] | None:
        """None when the store knows `person`; else the people it does know, most messages first
        (at most eight), to say instead of an empty result."""
        from storage import people as people_store

        if await people_store.knows_person(self.conn, person):
            return None
        return [p.name for p in (await people_store.list_people(self.conn))[:8]]

    async def check_filters(self, filters: SearchFilters) -> None:
        """A kind or a person the store does not hold is a mistake to point out, not an empty result."""
        known = await self.others_than(filters.person) if filters.person else None
        if known is not None:
            raise UserFacingError(f"no one called {filters.person!r} in your store",
                                  hint="people with the most messages: " + (", ".join(known) or "none yet")
                                       + " (all of them: biographer people)")
        if not filters.kinds:
            return
        held = await document_store.kinds(self.conn)
        unknown = [k for k in filters.kinds if k not in held]
        if unknown:
            raise UserFacingError(f"no sources of kind {', '.join(map(repr, unknown))}",
                                  hint="kinds in your store: " + (", ".join(held) or "none yet"))

    async def search(self, query: str, *, limit: int = 10, mode: str = "hybrid",
                     filters: SearchFilters = SearchFilters(), explain_filters: bool = True) -> list[SearchHit]:
        """`explain_filters`: an unknown kind or person is an error naming what the store holds, for
        the owner; other agents and the model get an empty result instead, which tells them nothing."""
        if explain_filters:
            await self.check_filters(filters)
        if mode != "keyword":
            await (await self._ready_to_index()).check_model()
        return await self.searcher.search(query, limit=limit, mode=mode, filters=filters)

    async def grep(self, pattern: str, *, regex: bool = False, page: int = 1, page_size: int = 20,
                   newest_first: bool = True, filters: SearchFilters = SearchFilters(),
                   explain_filters: bool = True) -> GrepPage:
        if explain_filters:  # as in search
            await self.check_filters(filters)
        return await self.sources.grep(pattern, regex=regex, page=page, page_size=page_size,
                                       newest_first=newest_first, filters=filters)

    async def read(self, locator: Locator | str, *, window: int = 0) -> SourceText:
        return await self.sources.read(locator, window=window)

    async def token_usage(self, *, days: int = 30) -> dict[str, dict[str, dict[str, int]]]:
        """Model tokens per day and role, newest day first, from the runs table the store keeps
        (storage/runs.py): `stats` prints them beside the counts without making the service."""
        from storage.runs import usage_table

        return await usage_table(self.conn, days=days)

    async def stats(self) -> dict:
        counted = await chunk_store.count_chunks(self.conn)
        kinds = {k.kind: {"documents": k.documents, "chunks": k.chunks}
                 for k in await document_store.count_by_kind(self.conn)}
        messages = await message_store.count_messages(self.conn)
        space = await self.multilingual_state()
        return {
            "documents": sum(k["documents"] for k in kinds.values()),
            "chunks": counted.total,
            "chunks_pending_index": counted.waiting,
            # the multilingual space (core/memory/multilingual.py): vectors held, chunks waiting for one
            "multilingual_vectors": space.held if space else 0,
            "chunks_pending_multilingual": space.waiting if space else 0,
            # ... and chunks too short to tell a language whose context it reads first
            "chunks_unread_language": space.unread if space else 0,
            "messages": messages,
            "by_kind": kinds,
            "embedding_model": await get_meta(self.conn, "embedding_model"),
            "embedding_dim": int(await get_meta(self.conn, "embedding_dim") or 0) or None,
        }
