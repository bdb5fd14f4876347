"""Embedding saved chunks in batches, resumable: each batch commits, so a kill loses nothing done."""

from __future__ import annotations

import asyncio
import re

import aiosqlite
import numpy as np

from core.errors import EmbeddingModelMismatch
from core.ports import Embedder, Progress, no_progress
from storage import chunks as chunk_store
from storage import vectors as vector_store
from storage.db import transaction
from storage.meta import get_meta, set_meta

_STAMP = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d\] ", re.M)


def embedding_text(chunk_text: str) -> str:
    """Chunk text without the per-line timestamps: they carry no meaning for the model and would
    use up its short window (MiniLM reads 256 tokens)."""
    return _STAMP.sub("", chunk_text)


class Indexer:
    def __init__(self, conn: aiosqlite.Connection, embedder: Embedder, *, batch_size: int = 64) -> None:
        self.conn = conn
        self.embedder = embedder
        self.batch_size = batch_size

    async def check_model(self) -> None:
        """Record the model on first use; refuse to mix vectors of two models afterwards."""
        recorded = await get_meta(self.conn, "embedding_model")
        if recorded is None:
            async with transaction(self.conn):
                await set_meta(self.conn, "embedding_model", self.embedder.name)
                await set_meta(self.conn, "embedding_dim", str(self.embedder.dim))
                await vector_store.ensure_vector_index(self.conn, self.embedder.dim)
            return
        if recorded != self.embedder.name:
            raise EmbeddingModelMismatch(
                f"this store was indexed with embedding model {recorded!r}, "
                f"but {self.embedder.name!r} is configured",
                hint="set BIOGRAPHER_EMBEDDING_MODEL back, or run `biographer reindex` to re-embed everything",
            )
        await vector_store.ensure_vector_index(self.conn, self.embedder.dim)

    async def index_pending(self, *, progress: Progress = no_progress) -> int:
        await self.check_model()
        total, pending = await chunk_store.count_chunks(self.conn)
        done = 0
        if pending:
            progress("indexing", 0, pending)
        while True:
            batch = await vector_store.pending_chunks(self.conn, limit=self.batch_size)
            if not batch:
                break
            # the same text is embedded once: reuse stored vectors, and embed each new text once
            by_hash = await vector_store.vectors_by_text_hash(self.conn, [h for _, _, h in batch])
            todo = {h: text for _, text, h in batch if h not in by_hash}
            if todo:
                embedded = await asyncio.to_thread(
                    self.embedder.embed, [embedding_text(t) for t in todo.values()]
                )
                for h, vector in zip(todo, np.asarray(embedded, dtype=np.float32)):
                    by_hash[h] = vector.tobytes()
            vectors = {cid: by_hash[h] for cid, _, h in batch}
            async with transaction(self.conn):
                await vector_store.store_vectors(self.conn, list(vectors.items()))
            done += len(batch)
            progress("indexing", done, pending)
        return done

    async def reindex(self, *, progress: Progress = no_progress) -> int:
        """Throw every vector away and embed all chunks with the configured model."""
        async with transaction(self.conn):
            await vector_store.drop_vector_index(self.conn)
            await set_meta(self.conn, "embedding_model", self.embedder.name)
            await set_meta(self.conn, "embedding_dim", str(self.embedder.dim))
            await vector_store.ensure_vector_index(self.conn, self.embedder.dim)
        return await self.index_pending(progress=progress)
