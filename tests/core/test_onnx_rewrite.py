"""The rewritten (fused) copy of the shipped model: which patterns it replaces, that it gives the
exported graph's vectors text by text (the plain loop runs the package's file as it ships), that
it is made once and reused, and that anything it cannot rewrite runs as exported."""

from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import pytest

from core.providers.local_embedder import OnnxEmbedder, _default_model_files
from core.files import file_sha256
from core.providers.onnx_rewrite import default_cache, fuse, rewritten_model
from tests.core.test_embedding_batches import chat_texts, plain_loop


def shipped_model():
    return onnx.load(str(_default_model_files()[0]))


def test_every_layers_attention_gelu_and_nan_guard_are_fused():
    model = shipped_model()
    before = Counter(n.op_type for n in model.graph.node)
    assert before["Softmax"] == 6 and before["IsNaN"] == 6 and before["Erf"] == 6  # six layers
    assert fuse(model) == {"nan guards": 6, "attention": 6, "gelu": 6}
    after = Counter(n.op_type for n in model.graph.node)
    assert after["MultiHeadAttention"] == 6 and after["BiasGelu"] == 6
    assert not {"Softmax", "IsNaN", "Where", "Erf", "Transpose"} & set(after)
    # the linear layers are untouched: their int8 weights stay int8 (the file stays ~23 MB)
    assert after["MatMul"] == before["MatMul"] - 12  # minus the two attention products per layer
    onnx.checker.check_model(model)


def test_a_graph_without_the_patterns_is_left_alone():
    model = shipped_model()
    fuse(model)
    assert fuse(model) == {}


@pytest.mark.model
def test_the_fused_model_gives_the_plain_loops_vectors():
    texts = chat_texts()
    embedder = OnnxEmbedder(batch_size=8)  # the test run's user cache (tests/conftest.py)
    assert embedder.model_file.parent == default_cache() and "fused" in embedder.model_file.name
    cosine = np.sum(embedder.embed(texts) * plain_loop(texts), axis=1)
    assert cosine.min() >= 0.9999


@pytest.mark.model
def test_the_copy_is_made_once_and_named_by_the_source(tmp_path: Path):
    source = _default_model_files()[0]
    first = OnnxEmbedder(cache=tmp_path).model_file
    assert file_sha256(source)[:16] in first.name
    assert [p for p in tmp_path.glob("*.onnx*")] == [first]  # no partial file left behind

    def must_not_check(_candidate: Path) -> bool:
        raise AssertionError("a cached copy is not rewritten or checked again")

    assert rewritten_model(source, tmp_path, same_vectors=must_not_check) == first


def test_a_copy_with_other_vectors_is_not_kept(tmp_path: Path):
    source = _default_model_files()[0]
    assert rewritten_model(source, tmp_path, same_vectors=lambda _candidate: False) is None
    assert list(tmp_path.glob("*.onnx*")) == []


def test_a_file_that_is_not_a_model_runs_as_given(tmp_path: Path):
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not a protobuf at all")
    assert rewritten_model(broken, tmp_path / "cache", same_vectors=lambda _candidate: True) is None
