"""Embedders that load their model on first use (grep, read and stats never pay for it): one
model, or the one of two that BIOGRAPHER_EMBEDDING_MODEL=auto chooses by the store's languages
(core/memory/embedding_choice.py), which is made for every command and so lives here, apart
from the choice's own dataclasses."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from core.config import DEFAULT_EMBEDDING_MODEL
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
        # the model loads in a worker thread (seconds): an import's and a search's may ask at once
        self._loading = threading.Lock()

    @property
    def model(self) -> Embedder:
        with self._loading:
            if self._model is None:
                self._model = self._load()
        return self._model

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def loads_to_name(self) -> bool:
        """Whether asking `name` would load the model (seconds): callers on an event loop ask it
        in a worker thread then, and directly once it is loaded."""
        return self._model is None

    @property
    def dim(self) -> int:
        return self.model.dim

    @property
    def max_tokens(self) -> int:
        return self.model.max_tokens

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        return self.model.embed(texts, query=query)


class AutoEmbedder(LazyEmbedder):
    """An Embedder whose model is chosen by the indexer (`choose`) before it embeds: the store's
    recorded model, or the one its languages call for. Loads the model on first use; both
    candidates run here (`remote` False)."""

    def __init__(self, load: Callable[[str], Embedder]) -> None:
        super().__init__(lambda: load(self.name))  # dim, max_tokens and embed go through `model`
        self._loaded: dict[str, Embedder] = {}  # each model chosen so far, loaded once
        self.chosen: str | None = None

    def choose(self, model: str) -> None:
        self.chosen = model

    @property
    def model(self) -> Embedder:
        with self._loading:
            if self.name not in self._loaded:
                self._loaded[self.name] = self._load()
            return self._loaded[self.name]

    @property
    def name(self) -> str:
        return self.chosen or DEFAULT_EMBEDDING_MODEL  # known without loading it

    @property
    def loads_to_name(self) -> bool:
        return False
