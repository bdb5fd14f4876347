"""Embedding saved chunks in batches, resumable: each batch commits, so a kill loses nothing done.
A reindex replaces vectors batch by batch: until a chunk's turn comes, its old vector serves."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import numpy as np

from core.privacy.disclosure import DENY, Shown, descriptor, model_sees, provider_safe
from core.memory import small_talk
from core.memory.chunking import embedding_text
from core.memory.embedding_choice import AUTO_MODELS, EmbeddingAdvice, language_mix, pick_model
from core.errors import EmbeddingModelMismatch
from core.ports import Embedder, Progress, no_progress
from core.providers.lazy import AutoEmbedder
from core.config import DEFAULT_EMBEDDING_MODEL
from storage import chunks as chunk_store
from storage import disclosure as disclosure_store
from storage import multilingual as space_store
from storage.vectors import store as vector_store
from storage.db import Store
from storage.meta import delete_meta, get_meta, set_meta

if TYPE_CHECKING:
    from core.memory.multilingual import MultilingualSpace

REINDEX_KEY = "reindex_model"  # set while a full reindex with this model is unfinished

MEASURE_BATCH = 20  # documents whose small talk is measured in one transaction


async def measure_small_talk(conn: Store) -> int:
    """Each chunk's share of small talk (core/memory/small_talk.py), measured over its whole
    document, for every document with chunks not measured yet (new ones, or all of a store made
    before migration 180); no embedding. Returns how many documents were measured."""
    done = 0
    while documents := await chunk_store.unmeasured_documents(conn, limit=MEASURE_BATCH):
        texts = [await chunk_store.document_texts(conn, d) for d in documents]
        shares = await asyncio.to_thread(small_talk.measured, texts)
        async with conn.transaction():
            await chunk_store.set_small_talk(conn, shares)
        done += len(documents)
    return done


class Indexer:
    # chunks read, embedded and committed at a time: enough for the local model to group them by
    # token count (padding ~3% of the work at 256, ~13% at 64, on LoCoMo's chunks), few enough that
    # a batch commits every half minute or so at ~10 chunks/s
    def __init__(self, conn: Store, embedder: Embedder, *, batch_size: int = 256,
                 multilingual: MultilingualSpace | None = None) -> None:
        """`multilingual`: fills the store's multilingual space after its own vectors, where
        the store should have one (core/memory/multilingual.py)."""
        self.conn = conn
        self.embedder = embedder
        self.multilingual = multilingual
        self.batch_size = batch_size
        self.chose: str | None = None  # the model "auto" picked for this store, when it just did

    @property
    def space_offered(self) -> bool:
        """Whether this store can have the multilingual space: then auto keeps MiniLM whatever the
        store's languages (core/memory/embedding_choice.py)."""
        return self.multilingual is not None and self.multilingual.setting != "off"

    @property
    def automatic(self) -> bool:
        return isinstance(self.embedder, AutoEmbedder)

    async def check_model(self) -> None:
        """Record the model on first use; refuse to mix vectors of two models afterwards. With
        "auto", the store's own model, or for a store with none yet the one its text calls for,
        recorded once there is text to tell by."""
        recorded = await get_meta(self.conn, "embedding_model")
        if isinstance(self.embedder, AutoEmbedder):
            if recorded is not None:
                self.embedder.choose(recorded if recorded in AUTO_MODELS else AUTO_MODELS[0])
            else:
                mix = await language_mix(self.conn)
                self.embedder.choose(pick_model(mix, with_space=self.space_offered))
                if not mix.chars:
                    return  # nothing saved yet: chosen when there is
                self.chose = self.embedder.name
        name = await self._model_name()
        if recorded is None:
            dim = await self._model_dim()
            async with self.conn.transaction():
                await set_meta(self.conn, "embedding_model", name)
                await set_meta(self.conn, "embedding_dim", str(dim))
            return
        if recorded != name:
            raise EmbeddingModelMismatch(
                f"this store was indexed with embedding model {recorded!r}, "
                f"but {name!r} is configured",
                hint="set BIOGRAPHER_EMBEDDING_MODEL back, or run `biographer reindex` to re-embed everything",
            )

    # a lazy embedder loads its model to tell its name or size: seconds of work, in a worker
    # thread, never on the loop, where a server's or a bot's every request would wait meanwhile;
    # once loaded (every search asks), the name is read here, without a thread's round trip
    async def _model_name(self) -> str:
        if getattr(self.embedder, "loads_to_name", False):
            return await asyncio.to_thread(lambda: self.embedder.name)
        return self.embedder.name

    async def _model_dim(self) -> int:
        return await asyncio.to_thread(lambda: self.embedder.dim)

    async def index_pending(self, *, progress: Progress = no_progress) -> int:
        await measure_small_talk(self.conn)
        await self.check_model()
        pending = (await chunk_store.count_chunks(self.conn)).waiting
        generation = await vector_store.generation(self.conn)
        done = 0
        if pending:
            progress("indexing", 0, pending)
        while True:
            batch = await vector_store.pending_chunks(self.conn, limit=self.batch_size)
            if not batch:
                await self._nothing_waits()
                break
            withheld, descriptors = await self._withheld(batch) if self.embedder.remote else ([], {})
            apart = set(withheld) | set(descriptors)
            texts = [chunk for chunk in batch if chunk.id not in apart]
            # the same text is embedded once: reuse stored vectors, and embed each new text once
            by_hash = await vector_store.vectors_by_text_hash(self.conn, [c.text_hash for c in texts])
            todo = {c.text_hash: self._outgoing(embedding_text(c.text)) for c in texts if c.text_hash not in by_hash}
            if todo or descriptors:
                embedded = np.asarray(await asyncio.to_thread(
                    self.embedder.embed, [*todo.values(), *descriptors.values()]), dtype=np.float32)
                for h, vector in zip(todo, embedded):
                    by_hash[h] = vector.tobytes()
                described = {cid: vector.tobytes() for cid, vector in zip(descriptors, embedded[len(todo):])}
            else:
                described = {}
            vectors = {c.id: by_hash[c.text_hash] for c in texts}
            async with self.conn.transaction():
                if await vector_store.generation(self.conn) != generation:
                    break  # another process began a reindex with another model: it embeds these
                await vector_store.store_vectors(self.conn, list(vectors.items()), generation=generation)
                await vector_store.store_vectors(self.conn, list(described.items()), generation=generation,
                                                 state=vector_store.OF_DESCRIPTOR)
                await vector_store.withhold(self.conn, withheld)
            done += len(batch)
            progress("indexing", done, pending)
        if self.multilingual is not None:
            await self.multilingual.fill(progress=progress)
        return done

    def _outgoing(self, text: str) -> str:
        """What is sent for a text: provider-safe when it leaves the machine."""
        return provider_safe(text) if self.embedder.remote else text

    async def _withheld(self, batch: list[vector_store.UnembeddedChunk]) -> tuple[list[int], dict[int, str]]:
        """For a remote endpoint, by the owner's policy: the chunks that get no vector, and those
        embedded from their descriptor (with the descriptor's text)."""
        disclosures = await disclosure_store.chunk_disclosures(self.conn, [c.id for c in batch])
        withheld, descriptors = [], {}
        for cid in (c.id for c in batch):
            found = disclosures.get(cid)  # None: the chunk went meanwhile
            seen = model_sees(found.policy if found else None, remote=self.embedder.remote)
            if seen is Shown.NOTHING:
                withheld.append(cid)
            elif seen is Shown.DESCRIPTOR:
                descriptors[cid] = descriptor(found.kind, found.speakers, found.time_start)
        return withheld, descriptors

    async def policy_changed(self, document_ids: list[int], policy: str) -> int:
        """A policy changed for these sources: with a remote endpoint their passages are embedded
        again under it at the next indexing (their old vectors serve meanwhile), or, denied, lose
        their vectors now. Returns how many passages changed."""
        if not self.embedder.remote or not document_ids:
            return 0
        async with self.conn.transaction():
            if policy == DENY:
                return await vector_store.withhold_documents(self.conn, document_ids)
            return await vector_store.mark_documents_pending(self.conn, document_ids)

    async def _nothing_waits(self) -> None:
        """A reindex is complete, and vectors deleted meanwhile (a forgotten source) get folded."""
        finished = await get_meta(self.conn, REINDEX_KEY) is not None
        if finished or await vector_store.fold_due(self.conn):
            async with self.conn.transaction():
                await delete_meta(self.conn, REINDEX_KEY)
                if await vector_store.fold_due(self.conn):
                    await vector_store.fold_log(self.conn)

    async def advice(self) -> EmbeddingAdvice:
        mix = await language_mix(self.conn)
        return EmbeddingAdvice(recorded=await get_meta(self.conn, "embedding_model"),
                               recommended=pick_model(mix, with_space=self.space_offered),
                               mix=mix, automatic=self.automatic)

    async def reindex(self, *, progress: Progress = no_progress) -> int:
        """Embed every chunk again with the configured model ("auto": the one the store's
        languages call for), batch by batch; a rerun after an interruption resumes. With the same
        model the old vectors serve searches until each is replaced; with another model its
        vectors start a new generation, searched alone (the old model's vectors cannot be
        compared with its queries), and grow batch by batch."""
        if isinstance(self.embedder, AutoEmbedder):
            self.embedder.choose(await get_meta(self.conn, REINDEX_KEY)
                                 or pick_model(await language_mix(self.conn), with_space=self.space_offered))
        name = await self._model_name()
        if await get_meta(self.conn, REINDEX_KEY) != name:
            dim = await self._model_dim()
            async with self.conn.transaction():
                if (await get_meta(self.conn, "embedding_model") != name
                        or await get_meta(self.conn, "embedding_dim") != str(dim)):
                    await vector_store.start_generation(self.conn)
                await vector_store.mark_all_for_reindex(self.conn)
                if name != DEFAULT_EMBEDDING_MODEL:
                    await space_store.clear(self.conn)  # the new model embeds every language itself
                await set_meta(self.conn, "embedding_model", name)
                await set_meta(self.conn, "embedding_dim", str(dim))
                await set_meta(self.conn, REINDEX_KEY, name)
        return await self.index_pending(progress=progress)
