"""An Embedder that loads its model on first use: grep, read and stats never pay for it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
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
        self._loading: Future[Embedder] | None = None
        self.remote = remote

    def load_soon(self) -> None:
        """Start loading the model in a thread of its own: what the caller does next (imports, the
        keyword half of a search) overlaps it, and the first use waits for it. A model that does
        not load raises at that first use, as it does without."""
        if self._model is None and self._loading is None:
            self._loading = started(self._load)

    @property
    def model(self) -> Embedder:
        if self._model is None:
            loading, self._loading = self._loading, None
            self._model = loading.result() if loading is not None else self._load()
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


def started(load: Callable[[], Embedder]) -> Future[Embedder]:
    """`load` running in a thread of its own (not a daemon: an interpreter that exits meanwhile
    waits for it rather than stopping it inside the model's runtime)."""
    future: Future[Embedder] = Future()

    def run() -> None:
        try:
            future.set_result(load())
        except BaseException as error:  # noqa: BLE001 - raised again where the model is used
            future.set_exception(error)

    threading.Thread(target=run, name="model-load").start()
    return future
