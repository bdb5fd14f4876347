"""The multilingual space: when a store searched by meaning with the English-only
all-MiniLM-L6-v2 holds a good share of other languages, its chunks told as another language also
get vectors of the multilingual multilingual-e5-small, searched beside MiniLM's and fused into the
hybrid as a third list (core/memory/ranking.py). An English question then finds its answer in a
Portuguese or Polish line ("Who told Inês to take the job in Berlin?" -> "Vai, filha. Berlim é uma
oportunidade"), which MiniLM scores close to at random.

Why not the multilingual model for the whole store: measured on the life archives and on chats
wholly in six other languages (README, "Other languages", "The store's model under auto"), the
two models side by side found as much or more than e5 alone at every share of other languages,
and the second space costs e5's time (about 5x MiniLM's a chunk) only for the chunks in other
languages; so "auto" keeps MiniLM for every store where the space is on offer
(core/memory/embedding_choice.py).

When: BIOGRAPHER_MULTILINGUAL_VECTORS "auto" (the default) turns it on for a store whose own model
is MiniLM once at least SHARE of its text of known language is not English, decided like auto's
choice from what is saved, and recorded (meta multilingual_model): it then stays on, for the
chunks told as another language. "all": every chunk of any MiniLM store (on LoCoMo, English only,
it found more too, at about six times the embedding time); "off": never (search ignores vectors
already there)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.config import DEFAULT_EMBEDDING_MODEL, MULTILINGUAL_EMBEDDING_MODEL
from core.memory.embedding_choice import LanguageMix, language_mix
from core.ports import Embedder, Progress, no_progress
from storage.meta import get_meta, set_meta
from storage import language_context
from storage import multilingual as space_store

if TYPE_CHECKING:
    from storage.db import Store

SETTINGS = ("auto", "all", "off")
#: the share of the text of known language not in English from which "auto" turns the space on:
#: a few French or German mails in an English life add little e5 time and nothing worth it, a
#: parent's or partner's whole chat in Portuguese does (the life archives: 33% and 44%)
SHARE = 0.15
BATCH = 64  # chunks embedded and committed at a time (e5 embeds about 2-10 a second on two busy cores)


@dataclass(frozen=True)
class SpaceState:
    """Whether the store has the multilingual space, and how far it is filled."""

    on: bool
    held: int
    waiting: int
    mix: LanguageMix

    cover: str = "told"
    store_model: str | None = None  # the store's own embedding model
    # chunks too short to tell a language whose context the next fill reads first (a store from
    # before that reading, or new chunks): some of them will wait for a vector then
    unread: int = 0

    @property
    def why_off(self) -> str:
        """Why a store has no space (doctor); "" when it has one."""
        if self.on:
            return ""
        if self.store_model not in (None, DEFAULT_EMBEDDING_MODEL):
            return f"the store's own model, {self.store_model}, is searched alone"
        return (f"{round(100 * self.mix.not_english)}% of the text of known language is not English, "
                f"under the {round(100 * SHARE)}% that turns it on")

    @property
    def note(self) -> str:
        """What the owner is told once it turns on (the import summary, doctor)."""
        if not self.on:
            return ""
        which = "every passage is" if self.cover == "all" else "those passages are"
        return (f"Part of your text is not in English ({self.mix.describe()}): {which} also searched by "
                f"meaning with the multilingual model {MULTILINGUAL_EMBEDDING_MODEL}, beside "
                f"{DEFAULT_EMBEDDING_MODEL}.")


def wanted(mix: LanguageMix, *, setting: str, recorded: bool) -> bool:
    """Whether a MiniLM store gets the space: see the module's docstring."""
    if setting == "off":
        return False
    return setting == "all" or recorded or mix.not_english >= SHARE


def cover(setting: str) -> str:
    """Which chunks the space holds (storage.multilingual.COVERS)."""
    return "all" if setting == "all" else "told"


class MultilingualSpace:
    """Fills the space for the indexer: the covered chunks without a vector, batch by batch,
    each batch committed (a kill loses nothing done; the next run resumes). `embedder`: the
    bundled multilingual model (its vectors are recorded under MULTILINGUAL_EMBEDDING_MODEL)."""

    def __init__(self, conn: Store, embedder: Embedder, *, setting: str = "auto", batch_size: int = BATCH) -> None:
        self.conn = conn
        self.embedder = embedder
        self.setting = setting
        self.batch_size = batch_size
        self.turned_on = False  # this run turned it on (the import summary says so once)
        self.filled = 0  # chunks the last fill embedded (reindex says so)

    async def state(self) -> SpaceState:
        mix = await language_mix(self.conn)
        on = await self._on(mix)
        counts = await space_store.counts(self.conn, cover=self.cover)
        unread = await language_context.unread(self.conn) if on and self.cover == "told" else 0
        return SpaceState(on=on, held=counts.held, waiting=counts.waiting if on else 0, mix=mix, cover=self.cover,
                          store_model=await get_meta(self.conn, "embedding_model"), unread=unread)

    @property
    def cover(self) -> str:
        return cover(self.setting)

    async def _on(self, mix: LanguageMix) -> bool:
        if await get_meta(self.conn, "embedding_model") != DEFAULT_EMBEDDING_MODEL:
            return False  # a multilingual model (or another) embeds the whole store already
        recorded = await get_meta(self.conn, space_store.MODEL_KEY) == MULTILINGUAL_EMBEDDING_MODEL
        return wanted(mix, setting=self.setting, recorded=recorded)

    async def fill(self, *, progress: Progress = no_progress) -> int:
        """Embed what waits, when the store should have the space; returns how many chunks."""
        self.filled = 0
        if not await self._on(await language_mix(self.conn)):
            return 0
        if await get_meta(self.conn, space_store.MODEL_KEY) != MULTILINGUAL_EMBEDDING_MODEL:
            async with self.conn.transaction():
                await set_meta(self.conn, space_store.MODEL_KEY, MULTILINGUAL_EMBEDDING_MODEL)
            self.turned_on = True
        from core.memory.chunking import embedding_text  # stats and doctor read the state without it

        if self.cover == "told":  # which of the chunks too short to tell it covers
            await language_context.read_in_context(self.conn)
        total = (await space_store.counts(self.conn, cover=self.cover)).waiting
        done, after = 0, 0
        while batch := await space_store.waiting(self.conn, cover=self.cover, after=after, limit=self.batch_size):
            if done == 0:
                progress("multilingual vectors", 0, total)
            known = await space_store.vectors_by_text_hash(self.conn, [c.text_hash for c in batch])
            todo = {c.text_hash: embedding_text(c.text) for c in batch if c.text_hash not in known}
            if todo:
                import numpy as np  # stats and doctor read the state without it

                vectors = np.asarray(await asyncio.to_thread(self.embedder.embed, list(todo.values())),
                                     dtype=np.float32)
                known.update((h, v.tobytes()) for h, v in zip(todo, vectors))
            async with self.conn.transaction():
                await space_store.store(self.conn, [(c.id, known[c.text_hash]) for c in batch])
            done += len(batch)
            self.filled = done
            after = batch[-1].id
            progress("multilingual vectors", done, total)
        return done
