"""onnxruntime's optimised graph, saved once and loaded with the optimisations off: the same
vectors bit for bit as the optimising session (the one every earlier vector came from), made once,
never kept when its vectors differ, and a damaged copy made again."""

import logging
import os
from pathlib import Path

import numpy as np
import onnxruntime
import pytest

from core.files import file_sha256
from core.providers.local_embedder import OnnxEmbedder, _default_model_files, session_options
from core.providers.onnx_rewrite import remembered_sha256
from core.providers.saved_graph import CHECK, GRAPH, WEIGHTS, optimised_session, saved_folder
from tests.core.test_embedding_batches import chat_texts

pytestmark = pytest.mark.model


def optimising_session(model_file: Path):
    return onnxruntime.InferenceSession(str(model_file), session_options(onnxruntime),
                                        providers=["CPUExecutionProvider"])


def test_the_saved_graph_gives_the_optimising_sessions_vectors_bit_for_bit(tmp_path: Path):
    embedder = OnnxEmbedder(batch_size=8, cache=tmp_path)
    folder = saved_folder(embedder.model_file, tmp_path, onnxruntime)
    assert (folder / GRAPH).exists() and not list(tmp_path.glob("*.partial"))
    texts = chat_texts()
    saved = OnnxEmbedder(batch_size=8, cache=tmp_path)  # loads the saved graph
    assert saved._session._model_path == str(folder / GRAPH)
    assert saved._session.get_session_options().graph_optimization_level == \
        onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    embedder._use(optimising_session(embedder.model_file))
    assert np.array_equal(saved.embed(texts), embedder.embed(texts))


def test_a_saved_graph_with_other_vectors_is_not_kept(tmp_path: Path):
    model_file = _default_model_files()[0]
    session = optimised_session(onnxruntime, model_file, tmp_path, options=lambda: session_options(onnxruntime),
                                same_vectors=lambda _session, _candidate: False, probe=lambda _session: np.ones((1, 4)) / 2)
    assert session.get_session_options().graph_optimization_level == \
        onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert [p.name for p in tmp_path.iterdir()] == ["digests"]  # no copy, no partial folder


def test_a_damaged_copy_is_made_again(tmp_path: Path):
    model_file = _default_model_files()[0]
    checks = []

    def same_vectors(_session, _candidate) -> bool:
        checks.append(1)
        return True

    def load():
        return optimised_session(onnxruntime, model_file, tmp_path, options=lambda: session_options(onnxruntime),
                                 same_vectors=same_vectors, probe=lambda _session: np.ones((1, 4)) / 2)

    load()
    load()
    assert len(checks) == 1  # made once, then loaded as it is
    folder = saved_folder(model_file, tmp_path, onnxruntime)
    (folder / GRAPH).write_bytes(b"not a model")
    assert load().get_inputs()  # the model still runs
    assert len(checks) == 2 and (folder / GRAPH).stat().st_size > 1000


def test_weights_damaged_in_place_are_not_used(tmp_path: Path):
    """onnxruntime loads a weights file of the right size whatever its bytes: a damaged one gave
    NaN vectors without an error until the saved graph's probe digest was checked at each load."""
    texts = chat_texts()
    reference = OnnxEmbedder(batch_size=8, cache=tmp_path).embed(texts)
    weights = saved_folder(OnnxEmbedder(batch_size=8, cache=tmp_path).model_file, tmp_path, onnxruntime) / WEIGHTS
    size = weights.stat().st_size
    with weights.open("r+b") as f:  # the encoder's last layers, which every text runs through
        f.seek(size - 2 * 2**20)
        f.write(b"\x7f" * 2**16)
    assert np.array_equal(OnnxEmbedder(batch_size=8, cache=tmp_path).embed(texts), reference)
    with weights.open("rb") as f:  # made again
        f.seek(size - 2 * 2**20)
        assert f.read(2**16) != b"\x7f" * 2**16


def test_a_copy_made_on_another_processor_is_still_used(tmp_path: Path):
    """A Docker image's copy was made on the build machine, whose kernels round otherwise: its
    probe vectors differ in the last bits, not in what they mean."""
    model_file = OnnxEmbedder(batch_size=8, cache=tmp_path).model_file
    folder = saved_folder(model_file, tmp_path, onnxruntime)
    recorded = np.load(folder / CHECK)
    moved = recorded + np.float32(1e-7) * np.sign(recorded)
    np.save(folder / CHECK, moved / np.linalg.norm(moved, axis=1, keepdims=True))
    assert OnnxEmbedder(batch_size=8, cache=tmp_path)._session._model_path == str(folder / GRAPH)


def test_a_copy_saved_without_its_vectors_digest_is_saved_again_quietly(tmp_path: Path, caplog):
    """A copy saved by the version before the digest: an upgrade is not a damaged cache."""
    model_file = OnnxEmbedder(batch_size=8, cache=tmp_path).model_file
    folder = saved_folder(model_file, tmp_path, onnxruntime)
    (folder / CHECK).unlink()
    with caplog.at_level(logging.INFO):
        OnnxEmbedder(batch_size=8, cache=tmp_path)
    assert (folder / CHECK).exists() and not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_damaged_rewritten_model_falls_back_to_the_exported_one(tmp_path: Path):
    texts = chat_texts()
    fused = OnnxEmbedder(batch_size=8, cache=tmp_path).model_file
    plain = OnnxEmbedder(batch_size=8, cache=tmp_path / "other")
    plain._use(optimising_session(_default_model_files()[0]))
    with fused.open("r+b") as f:
        f.truncate(fused.stat().st_size // 2)
    damaged = OnnxEmbedder(batch_size=8, cache=tmp_path)
    assert damaged.model_file == _default_model_files()[0]
    assert np.sum(damaged.embed(texts) * plain.embed(texts), axis=1).min() >= 0.99999
    assert not fused.exists()  # rewritten again next time


def test_a_digest_is_remembered_until_the_file_changes(tmp_path: Path):
    source = tmp_path / "model.onnx"
    source.write_bytes(b"first")
    cache = tmp_path / "cache"
    assert remembered_sha256(source, cache) == file_sha256(source)
    [memo] = (cache / "digests").iterdir()
    memo.write_text("remembered", encoding="ascii")  # what a second load reads instead of hashing
    assert remembered_sha256(source, cache) == "remembered"
    source.write_bytes(b"other")
    os.utime(source, ns=(1, 1))
    assert remembered_sha256(source, cache) == file_sha256(source)


def test_a_cache_that_cannot_be_written_still_gives_the_digest(tmp_path: Path):
    source = tmp_path / "model.onnx"
    source.write_bytes(b"first")
    cache = tmp_path / "cache"
    cache.write_text("a file where the cache folder would be")
    assert remembered_sha256(source, cache) == file_sha256(source)


def test_a_cache_that_cannot_be_written_costs_no_warning_and_no_copy(tmp_path: Path, caplog):
    """A cache that cannot be made (here a file where its folder would be; in a container, a home
    owned by another user or a read-only mount): the model loads as exported, optimised in the
    session, with the vectors of a cached load, and nothing is logged above info (every command
    printed two warnings); `doctor` says it (bot/cli_doctor.py model_cache_status)."""
    from core.providers.onnx_rewrite import writable_cache

    blocked = tmp_path / "home-not-mine"
    blocked.write_text("a file where the cache folder would be")
    cache = blocked / "biographer" / "models"
    assert not writable_cache(cache) and writable_cache(tmp_path / "fine")
    with caplog.at_level(logging.INFO):
        uncached = OnnxEmbedder(batch_size=8, cache=cache)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert "cannot be written" in caplog.text
    cached = OnnxEmbedder(batch_size=8, cache=tmp_path / "fine")
    texts = chat_texts()[:16]
    assert float(np.sum(uncached.embed(texts) * cached.embed(texts), axis=1).min()) >= 0.9999
