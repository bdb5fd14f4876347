"""What the core needs from outside, as small Protocols. Implementations live in core/providers
(and fakes in tests); only the composition root picks one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads in 0.15 s: not for commands that never embed
    import numpy as np


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of a fixed dimension.

    Stored text (passages) and search queries are embedded apart: some models (e5, nomic) were
    trained with a different prefix on each side and rank poorly without them. `remote`: the
    texts leave the machine (an embedding endpoint elsewhere), so what is sent is filtered by the
    owner's disclosure policy (core/privacy/disclosure.py)."""

    name: str  # recorded in the store; a store refuses vectors of another model
    dim: int
    max_tokens: int  # the model reads at most this many tokens of a text
    remote: bool

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """Passages, or with `query` search queries. Blocking; callers run it off the event loop.
        Returns shape (len(texts), dim)."""
        ...


class Transcriber(Protocol):
    def transcribe(self, path: Path, *, hints: Sequence[str] = ()) -> str:
        """Blocking speech-to-text of an audio file; `hints` are names to spell right."""
        ...


class Progress(Protocol):
    """Reports long work: the CLI draws a bar, the bots edit a status message.

    Stages: "saving" (files done of total), "messages" and "chunks" (read so far in the current
    document; total None), "indexing" (chunks embedded of those pending).
    """

    def __call__(self, stage: str, done: int, total: int | None) -> None: ...


def no_progress(stage: str, done: int, total: int | None) -> None:
    """A Progress that reports nothing."""


class Describer(Protocol):
    """Describes an image in words (and transcribes any text in it), through a vision model."""

    def describe(self, path: Path, *, hints: Sequence[str] = ()) -> str:
        """Blocking; callers run it off the event loop."""
        ...


# ---------------------------------------------------------------- chat models

@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text as the model wrote it: it may be malformed


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.prompt_tokens + other.prompt_tokens,
                     self.completion_tokens + other.completion_tokens)

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Completion:
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = Usage()
    model: str = ""
    finish_reason: str = ""  # "length": the reply was cut at the output limit

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


#: receives a reply's text as the model writes it, piece by piece (the page shows it arriving)
TextSink = Callable[[str], None]


class LLM(Protocol):
    """A chat model with native tool calling. `role` picks the configured model for the job
    ("chat", "analysis", "vision") unless `model` names one. `tool_choice` "required" asks for a
    tool call (a server that cannot force one answers as with "auto"); `max_tokens` caps the reply.
    With `on_text`, the reply is streamed and its text handed over as it arrives (the Completion
    returned is the same whole reply). `remote`: what it reads leaves the machine, so sources are
    shown by the owner's disclosure policy (core/privacy/disclosure.py)."""

    remote: bool

    async def complete(self, messages: list[dict], *, tools: list[dict] | None = None,
                       model: str | None = None, role: str = "chat", tool_choice: str = "auto",
                       max_tokens: int | None = None, on_text: TextSink | None = None) -> Completion: ...

    def model_for(self, role: str) -> str: ...
