"""The multilingual space (core/memory/multilingual.py): when it turns on, what the indexer fills
(only the chunks told as another language, batch by batch, resumable, counted in stats), that
search embeds the question with its model only where it holds vectors, and that forget and a
reindex to a multilingual model leave no vector behind. The models here are hashed bags of words
(tests/fakes/embedder.py); tests/core/test_multilingual_real.py runs the real ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.config import DEFAULT_EMBEDDING_MODEL, MULTILINGUAL_EMBEDDING_MODEL
from core.memory.embedding_choice import LanguageMix
from core.memory.indexer import Indexer
from core.memory.multilingual import SHARE, wanted
from tests.core.helpers import memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder


class FakeMiniLM(HashEmbedder):
    name = DEFAULT_EMBEDDING_MODEL


class FakeE5(HashEmbedder):
    name = MULTILINGUAL_EMBEDDING_MODEL


class FailingE5(FakeE5):
    """Embeds one batch, then fails as a killed process would stop."""

    def embed(self, texts, *, query: bool = False):
        if self.calls:
            raise KeyboardInterrupt
        return super().embed(texts, query=query)


PORTUGUESE = [f"{d:02d}/03/2024, 21:00 - Mãe: Não sei se queres ir para a praia no sábado, está muito frio {d}"
              for d in range(1, 13)]
ENGLISH = [f"{d:02d}/04/2024, 10:00 - Maya: I think that the ferry leaves at nine and we should be there early {d}"
           for d in range(1, 13)]


async def space_rows(memory) -> int:
    async with memory.conn.execute("SELECT COUNT(*) FROM multilingual_vectors") as cur:
        return (await cur.fetchone())[0]


def test_auto_turns_the_space_on_from_a_share_of_other_languages_and_keeps_it():
    assert wanted(LanguageMix({"en": 80, "pt": 20, "": 900}), setting="auto", recorded=False)
    assert not wanted(LanguageMix({"en": 95, "pt": 5}), setting="auto", recorded=False)
    assert SHARE > 0.05
    assert wanted(LanguageMix({"en": 95, "pt": 5}), setting="auto", recorded=True)  # on once, on for good
    assert wanted(LanguageMix({"en": 100}), setting="all", recorded=False)
    assert not wanted(LanguageMix({"pt": 100}), setting="off", recorded=True)


async def test_the_space_holds_the_chunks_in_other_languages_and_search_asks_its_model(tmp_path: Path):
    e5 = FakeE5()
    mae = whatsapp_export(tmp_path / "WhatsApp Chat with Mãe.txt", PORTUGUESE)
    maya = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", ENGLISH)
    async with memory_at(tmp_path / "data", FakeMiniLM(), multilingual=e5) as memory:
        report = await memory.ingest([mae, maya])
        async with memory.conn.execute(
                "SELECT COUNT(*), SUM(language = 'pt'), SUM(language = 'en') FROM chunks") as cur:
            total, portuguese, english = await cur.fetchone()
        assert portuguese and english and total == portuguese + english
        stats = await memory.stats()
        assert stats["multilingual_vectors"] == portuguese and stats["chunks_pending_multilingual"] == 0
        embedded = [text for call in e5.calls for text in call]
        assert embedded and all("Mãe" in text for text in embedded)  # never an English chunk
        assert any(MULTILINGUAL_EMBEDDING_MODEL in note for note in report.notes)
        hits = await memory.search("is it cold for the beach?")
        assert e5.queries == ["is it cold for the beach?"] and hits


async def test_an_english_store_never_loads_the_model(tmp_path: Path):
    e5 = FakeE5()
    maya = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", ENGLISH)
    async with memory_at(tmp_path / "data", FakeMiniLM(), multilingual=e5) as memory:
        report = await memory.ingest([maya])
        await memory.search("when does the ferry leave?")
        stats = await memory.stats()
        state = await memory.multilingual_state()
    assert e5.calls == [] and e5.queries == []
    assert stats["multilingual_vectors"] == 0 and stats["chunks_pending_multilingual"] == 0
    assert not any(MULTILINGUAL_EMBEDDING_MODEL in note for note in report.notes)
    assert not state.on and state.why_off.startswith("0% of the text")  # what doctor says


async def test_off_fills_nothing_and_all_fills_every_chunk(tmp_path: Path):
    mae = whatsapp_export(tmp_path / "WhatsApp Chat with Mãe.txt", PORTUGUESE)
    maya = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", ENGLISH)
    off = FakeE5()
    async with memory_at(tmp_path / "off", FakeMiniLM(), multilingual=off, multilingual_setting="off") as memory:
        await memory.ingest([mae, maya])
        assert await space_rows(memory) == 0 and off.calls == []
    async with memory_at(tmp_path / "all", FakeMiniLM(), multilingual=FakeE5(), multilingual_setting="all") as memory:
        await memory.ingest([mae, maya])
        assert await space_rows(memory) == (await memory.stats())["chunks"]


async def test_an_interrupted_fill_is_counted_as_waiting_and_resumes(tmp_path: Path):
    mae = whatsapp_export(tmp_path / "WhatsApp Chat with Mãe.txt", PORTUGUESE)
    async with memory_at(tmp_path / "data", FakeMiniLM(), multilingual=FailingE5()) as memory:
        memory.multilingual.batch_size = 4
        with pytest.raises(KeyboardInterrupt):
            await memory.ingest([mae])
        stats = await memory.stats()
        assert stats["multilingual_vectors"] == 4 and stats["chunks_pending_multilingual"] == stats["chunks"] - 4
        memory.multilingual.embedder = FakeE5()
        await memory.index_pending()
        assert memory.multilingual.filled == stats["chunks"] - 4  # what `reindex --pending` reports
        stats = await memory.stats()
        assert stats["multilingual_vectors"] == stats["chunks"] and stats["chunks_pending_multilingual"] == 0


async def test_forget_and_a_reindex_to_a_multilingual_model_leave_no_vector_behind(tmp_path: Path):
    mae = whatsapp_export(tmp_path / "WhatsApp Chat with Mãe.txt", PORTUGUESE)
    maya = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", ENGLISH)
    async with memory_at(tmp_path / "data", FakeMiniLM(), multilingual=FakeE5()) as memory:
        await memory.ingest([mae, maya])
        assert await space_rows(memory)
        async with memory.conn.execute("SELECT id FROM documents WHERE name LIKE '%Mãe%'") as cur:
            (mae_id,) = await cur.fetchone()
        await memory.forget(mae_id)
        assert await space_rows(memory) == 0
        await memory.ingest([mae])
        assert await space_rows(memory)
        await Indexer(memory.conn, FakeE5()).reindex()
        assert await space_rows(memory) == 0


async def test_kept_vectors_rank_as_sqlite_vec_does_through_forgets_and_reused_ids(tmp_path: Path):
    """A long-running search keeps the space in memory and follows its change log: after a
    forget, and after new chunks take the forgotten ones' ids, it ranks exactly as sqlite-vec
    over the table does."""
    from storage.db import database_path, load_sqlite_vec, open_reader
    from storage.multilingual import SpaceReader, nearest_sync

    e5 = FakeE5()
    later = [line.replace("03/2024", "05/2024").replace("praia", "serra") for line in PORTUGUESE]
    mae = whatsapp_export(tmp_path / "WhatsApp Chat with Mãe.txt", PORTUGUESE)
    avo = whatsapp_export(tmp_path / "WhatsApp Chat with Avó.txt", later)
    queries = e5.embed(["está frio na praia?", "vamos à serra no sábado", "sábado"], query=True)
    async with memory_at(tmp_path / "data", FakeMiniLM(), multilingual=e5) as memory:
        await memory.ingest([mae])
        path = await database_path(memory.conn)
        kept, exact = SpaceReader(path), open_reader(path, cache_mb=8)
        load_sqlite_vec(exact)
        kept.keep()

        def same() -> None:
            for q in queries:  # every vector (the fake model ties many: no cut-off to fall between)
                ours, theirs = dict(kept.nearest(q, depth=100)), dict(nearest_sync(exact, q, depth=100))
                assert ours.keys() == theirs.keys() and ours == pytest.approx(theirs, abs=1e-5)

        same()
        await memory.ingest([avo])
        same()
        async with memory.conn.execute("SELECT id FROM documents WHERE name LIKE '%Avó%'") as cur:
            (avo_id,) = await cur.fetchone()
        async with memory.conn.execute("SELECT MAX(id) FROM chunks") as cur:
            (newest,) = await cur.fetchone()
        await memory.forget(avo_id)
        same()
        await memory.ingest([whatsapp_export(tmp_path / "WhatsApp Chat with Tia.txt",
                                             [line.replace("Mãe", "Tia") for line in later])])
        async with memory.conn.execute("SELECT MAX(id) FROM chunks") as cur:
            assert (await cur.fetchone())[0] == newest  # the forgotten chunks' ids, taken again
        same()
        kept.close()
        exact.close()
