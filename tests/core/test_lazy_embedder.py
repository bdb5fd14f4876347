from pathlib import Path

from core.providers.lazy import LazyEmbedder
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder


async def test_grep_read_stats_and_keyword_search_never_load_the_model(tmp_path: Path):
    (tmp_path / "note.txt").write_text("The harbour at dawn, fishing boats leaving.", encoding="utf-8")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "note.txt"])
    loads = []

    def load():
        loads.append(1)
        return HashEmbedder()

    async with memory_at(tmp_path / "data", LazyEmbedder(load)) as memory:
        assert (await memory.grep("harbour")).total == 1
        assert await memory.read("doc1:0-11")
        assert (await memory.stats())["documents"] == 1
        assert await memory.search("boats", mode="keyword")
        assert loads == []
        assert await memory.search("boats", mode="hybrid")
        assert loads == [1]


async def test_a_search_by_meaning_loads_the_model_once_in_a_thread_of_its_own(tmp_path: Path):
    """Its load starts before the indexer is imported and the keyword half runs, overlapping them."""
    import threading

    (tmp_path / "note.txt").write_text("The harbour at dawn, fishing boats leaving.", encoding="utf-8")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "note.txt"])
    threads = []

    def load():
        threads.append(threading.current_thread().name)
        return HashEmbedder()

    async with memory_at(tmp_path / "data", LazyEmbedder(load)) as memory:
        assert await memory.search("boats", mode="hybrid")
        assert await memory.search("harbour", mode="semantic")
    assert threads == ["model-load"]


async def test_a_model_that_does_not_load_in_its_thread_fails_the_search_with_its_own_error(tmp_path: Path):
    import pytest

    from core.errors import ModelUnavailable

    (tmp_path / "note.txt").write_text("The harbour at dawn.", encoding="utf-8")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "note.txt"])

    def load():
        raise ModelUnavailable("no model here", hint="install one")

    async with memory_at(tmp_path / "data", LazyEmbedder(load)) as memory:
        with pytest.raises(ModelUnavailable, match="no model here"):
            await memory.search("harbour", mode="hybrid")
        assert await memory.search("harbour", mode="keyword")
