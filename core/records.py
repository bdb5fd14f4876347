"""The biographer's answers and records: what it says with its evidence, the questions it keeps,
the timeline, the history of bio.md and an analysis run's tally. Apart from core/types.py because
only the commands that run the biographer make them: a dataclass compiles its generated methods
when its module is imported (about 2% of `grep`'s instructions for these six)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from core.types import Locator


@dataclass(frozen=True)
class Citation:
    """One piece of evidence behind an answer, checked against what tools returned in the turn."""

    n: int  # the [n] marker in the answer text
    locator: Locator
    document: str
    when: datetime | None
    quote: str | None = None  # a verbatim quotation the answer made from it, when there was one

    def label(self) -> str:
        """`[2] WhatsApp with Maya, 2024-03-12 · doc3:100-900`"""
        when = f", {self.when.date().isoformat()}" if self.when else ""
        return f"[{self.n}] {self.document}{when} · {self.locator}"


@dataclass(frozen=True)
class Answer:
    """What the biographer says: text with [n] markers, and the sources those markers point at."""

    text: str
    citations: list[Citation] = field(default_factory=list)
    removed: int = 0  # citations dropped because they pointed at nothing seen or misquoted
    run_id: int | None = None
    checked: bool = True  # False: the model looked nothing up, and the text says so

    def render(self) -> str:
        """Text followed by its sources, for front ends without richer formatting."""
        if not self.citations:
            return self.text
        return self.text + "\n\nSources:\n" + "\n".join(c.label() for c in self.citations)


@dataclass(frozen=True)
class OpenQuestion:
    id: int
    text: str
    why: str
    priority: int  # 1 (nice to know) .. 5 (the profile is wrong or empty without it)
    status: Literal["open", "asked", "answered", "dropped"]
    created_at: datetime
    asked_at: datetime | None = None
    times_asked: int = 0
    answered_at: datetime | None = None
    resolution: str = ""
    locators: tuple[str, ...] = ()


@dataclass(frozen=True)
class TimelineEvent:
    id: int
    date: str  # ISO date, possibly partial: "2019", "2019-05", "2019-05-14"
    title: str
    detail: str = ""
    locators: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"id": self.id, "date": self.date, "title": self.title, "detail": self.detail,
                "locators": list(self.locators)}


@dataclass(frozen=True)
class ProfileEdit:
    """One recorded change of bio.md."""

    id: int
    at: datetime
    kind: str  # "create", "edit", "correction", "consolidation", "undo"
    section: str | None
    old_text: str
    new_text: str
    run_id: int | None
    locators: tuple[str, ...] = ()
    undoes: int | None = None


@dataclass
class AnalysisResult:
    batches: int = 0
    chunks_read: int = 0
    documents: int = 0
    remaining_chunks: int = 0
    edits: int = 0
    questions_added: int = 0
    events_added: int = 0
    run_ids: list[int] = field(default_factory=list)
    stopped: str = ""  # why it stopped before the end ("daily token cap reached"), empty when done
