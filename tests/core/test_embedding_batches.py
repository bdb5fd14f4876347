"""The embedder's speed-ups change no vector: texts grouped by token count, padded per batch, with
the tuned session, give what a plain onnxruntime loop gives (default session, the tokenizer padding
each batch of 32 in input order), text by text."""

from pathlib import Path

import numpy as np
import pytest

from core.memory.indexer import embedding_text
from core.providers.local_embedder import OnnxEmbedder, _default_model_files, token_length_batches

CHAT = Path(__file__).resolve().parents[1] / "importers" / "data" / "whatsapp" / "en_android_polls.txt"


def test_token_length_batches_cover_each_text_once_shortest_first():
    lengths = [5, 300, 1, 40, 40, 7, 256, 2]
    batches = token_length_batches(lengths, 3)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert all(len(b) <= 3 for b in batches)
    flat = [lengths[i] for b in batches for i in b]
    assert flat == sorted(lengths)
    assert token_length_batches([], 3) == []
    # at most `tokens` once padded to the batch's longest, a longer text alone
    small = token_length_batches(lengths, 8, tokens=100)
    assert [[lengths[i] for i in b] for b in small] == [[1, 2, 5, 7], [40, 40], [256], [300]]


def chat_texts() -> list[str]:
    """A real chat export (tests/importers/data/README.md) cut into pieces of very different
    lengths: single lines, a few lines, and windows longer than the model reads."""
    chat = [line for line in CHAT.read_text(encoding="utf-8").splitlines() if line.strip()][:400]
    pieces = chat[:16] + ["\n".join(chat[i:i + 5]) for i in range(16, 96, 5)]
    pieces += ["\n".join(chat[i:i + 40]) for i in range(96, 400, 40)]
    return [embedding_text(p) for p in pieces]


def plain_loop(texts: list[str]) -> np.ndarray:
    """The straightforward computation: onnxruntime's default session, batches of 32 in order."""
    import onnxruntime
    from tokenizers import Tokenizer

    onnx_path, tokenizer_path = _default_model_files()
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.enable_truncation(256)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    out = []
    for start in range(0, len(texts), 32):
        encodings = tokenizer.encode_batch(texts[start:start + 32])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                    "token_type_ids": np.zeros_like(ids)})[0]
        pooled = (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        out.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
    return np.concatenate(out)


@pytest.mark.model
def test_grouped_batches_give_the_plain_loops_vectors():
    texts = chat_texts()
    assert len(texts) > 32 and max(map(len, texts)) > 1200 and min(map(len, texts)) < 80
    embedder = OnnxEmbedder(batch_size=8)  # several batches of different lengths
    fast = embedder.embed(texts)
    plain = plain_loop(texts)
    cosine = np.sum(fast * plain, axis=1)
    assert cosine.min() >= 0.9999
    # and a text embedded alone (no padding at all) is the same vector as in a batch
    alone = np.concatenate([embedder.embed([t]) for t in texts[:5]])
    assert np.sum(alone * fast[:5], axis=1).min() >= 0.9999
