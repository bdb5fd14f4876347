"""A deterministic embedder for tests of the plumbing: a hashed bag of words, unit length.

Texts sharing words get similar vectors; paraphrases do not. Semantic behaviour is tested with
the real local model (tests/core/test_embeddings_real.py)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np


class HashEmbedder:
    name = "hash-test"
    dim = 64
    max_tokens = 10_000
    remote = False

    def __init__(self) -> None:
        self.calls: list[list[str]] = []  # passages
        self.queries: list[str] = []

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        if query:
            self.queries.extend(texts)
        else:
            self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                bucket = int.from_bytes(hashlib.md5(word.encode()).digest()[:4], "little")
                out[row, bucket % self.dim] += 1.0 if bucket & 1 << 31 else -1.0
            norm = np.linalg.norm(out[row])
            out[row] = out[row] / norm if norm else 1.0 / np.sqrt(self.dim)
        return out


class OtherHashEmbedder(HashEmbedder):
    """The same, under another model name: for the model-mismatch tests."""

    name = "hash-test-2"
