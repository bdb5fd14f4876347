"""An Embedder that loads its model on first use: grep, read and stats never pay for it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from core.ports import Embedder

if TYPE_CHECKING:
    import numpy as np


class LazyEmbedder:
    """`remote` is known from the settings without loading the model (the disclosure policy
    asks it before anything is embedded)."""

    def __init__(self, load: Callable[[], Embedder], *, remote: bool = False) -> None:
        self._load = load
        self._model: Embedder | None = None
        self.remote = remote

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

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        return self.model.embed(texts, query=query)
