"""Queries and passages embedded apart: e5's prefixes for any model that needs them."""

import pytest

from bot.compose import build_embedder
from core.config import Settings
from core.errors import UserFacingError
from core.providers.prefixes import FAMILIES, Prefixes, PrefixedEmbedder, prefixes_for
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder


def test_the_setting_picks_prefixes_by_model_name_family_or_spelled_out():
    assert prefixes_for("auto", "intfloat/multilingual-e5-large") == FAMILIES["e5"]
    assert prefixes_for("auto", "e5-small-v2") == FAMILIES["e5"]
    assert prefixes_for("auto", "nomic-embed-text") == FAMILIES["nomic"]
    assert prefixes_for("auto", "all-MiniLM-L6-v2-int8") is None
    assert prefixes_for("auto", "bge-small-en-v1.5") is None  # "e5" only as a whole word
    assert prefixes_for("none", "multilingual-e5-small") is None
    assert prefixes_for("e5", "my-model") == Prefixes("query: ", "passage: ")
    assert prefixes_for("Q: |D: ", "my-model") == Prefixes("Q: ", "D: ")
    with pytest.raises(UserFacingError):
        prefixes_for("sometimes", "m")


async def test_the_indexer_embeds_passages_and_search_embeds_queries_each_with_its_prefix(tmp_path):
    inner = HashEmbedder()
    embedder = PrefixedEmbedder(inner, FAMILIES["e5"])
    (tmp_path / "n.txt").write_text("We crossed to Tavira by ferry at nine.", encoding="utf-8")
    async with memory_at(tmp_path / "data", embedder) as memory:
        await memory.ingest([tmp_path / "n.txt"])
        await memory.search("ferry", mode="semantic")
        assert (await memory.stats())["embedding_model"] == "hash-test [query:|passage:]"
    assert inner.calls == [["passage: We crossed to Tavira by ferry at nine."]]
    assert inner.queries == ["query: ferry"]


def test_an_openai_compatible_server_serving_an_e5_model_gets_the_prefixes(fake_openai):
    settings = Settings(embedding_backend="openai", embedding_model="multilingual-e5-large",
                        embedding_base_url=fake_openai.base_url)
    embedder = build_embedder(settings)
    embedder.embed(["a stored text"])
    embedder.embed(["a question"], query=True)
    sent = [r["input"] for r in fake_openai.embedding_requests]
    assert sent[-2:] == [["passage: a stored text"], ["query: a question"]]
    assert not embedder.remote  # 127.0.0.1
