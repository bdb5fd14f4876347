"""The real `openai` client against a local server speaking the embeddings protocol."""

import numpy as np
import pytest

from core.errors import ModelUnavailable
from core.providers.openai_embedder import OpenAIEmbedder
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder
from tests.fakes.openai_server import FakeOpenAIServer


def test_vectors_come_back_in_input_order_unit_length_in_batches(fake_openai):
    embedder = OpenAIEmbedder(model="nomic-embed-text", base_url=fake_openai.base_url, api_key="k",
                              batch_size=2)
    texts = ["harbour at dawn", "ferry to Tavira", "knee hurts", "orange cake"]
    vectors = embedder.embed(texts)
    assert embedder.dim == 64 and embedder.name == "openai:nomic-embed-text"
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vectors, HashEmbedder().embed(texts), atol=1e-5)
    assert [len(r["input"]) for r in fake_openai.embedding_requests] == [1, 2, 2]  # probe, then batches


async def test_a_store_indexed_through_the_endpoint_is_searchable(tmp_path, fake_openai):
    (tmp_path / "n.txt").write_text("We crossed to Tavira by ferry at nine.", encoding="utf-8")
    embedder = OpenAIEmbedder(model="m", base_url=fake_openai.base_url, api_key="k")
    async with memory_at(tmp_path / "data", embedder) as memory:
        await memory.ingest([tmp_path / "n.txt"])
        hits = await memory.search("ferry Tavira", mode="semantic")
    assert hits[0].document == "n.txt"


def test_a_wrong_key_and_a_dead_server_say_what_to_check():
    with FakeOpenAIServer(api_key="right") as server:
        with pytest.raises(ModelUnavailable) as error:
            OpenAIEmbedder(model="m", base_url=server.base_url, api_key="wrong")
        assert "refused the API key" in error.value.message
        assert error.value.hint == "check BIOGRAPHER_EMBEDDING_API_KEY"
        dead = server.base_url
    with pytest.raises(ModelUnavailable) as error:
        OpenAIEmbedder(model="m", base_url=dead, api_key="k", timeout=2)
    assert "cannot reach the embedding model" in error.value.message
