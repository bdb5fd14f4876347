"""An Embedder that loads its model on first use: grep, read and stats never pay for it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from core.ports import Embedder


class LazyEmbedder:
    def __init__(self, load: Callable[[], Embedder]) -> None:
        self._load = load
        self._model: Embedder | None = None

    @property
    def model(self) -> Embedder:
        if self._model is None:
            self._model = self._load()
        return self._model

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def dim(self) -> int:
        return self.model.dim

    @property
    def max_tokens(self) -> int:
        return self.model.max_tokens

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.model.embed(texts)
