"""What the core needs from outside, as small Protocols. Implementations live in core/providers
(and fakes in tests); only the composition root picks one."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of a fixed dimension."""

    name: str  # recorded in the store; a store refuses vectors of another model
    dim: int
    max_tokens: int  # the model reads at most this many tokens of a text

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Blocking; callers run it off the event loop. Returns shape (len(texts), dim)."""
        ...


class Transcriber(Protocol):
    def transcribe(self, path: Path, *, hints: Sequence[str] = ()) -> str:
        """Blocking speech-to-text of an audio file; `hints` are names to spell right."""
        ...


class Progress(Protocol):
    """Reports long work: the CLI draws a bar, the bots edit a status message."""

    def __call__(self, stage: str, done: int, total: int | None) -> None: ...


def no_progress(stage: str, done: int, total: int | None) -> None:
    """A Progress that reports nothing."""


class Describer(Protocol):
    """Describes an image in words (and transcribes any text in it), through a vision model."""

    def describe(self, path: Path, *, hints: Sequence[str] = ()) -> str:
        """Blocking; callers run it off the event loop."""
        ...
