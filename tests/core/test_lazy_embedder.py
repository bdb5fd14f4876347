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
