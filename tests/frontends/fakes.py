"""A scripted stand-in for the biographer's question and answer methods, for scheduler tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Question:
    id: int
    text: str


@dataclass(frozen=True)
class Reply:
    text: str
    citations: tuple = ()

    def render(self) -> str:
        return self.text


@dataclass
class ScriptedBiographer:
    """Holds the real memory; questions come from a queue; every call is recorded."""

    memory: Any
    questions: list[Question] = field(default_factory=list)
    asked: list[tuple[int, datetime]] = field(default_factory=list)
    answered: list[tuple[int, str]] = field(default_factory=list)
    reports: int = 0
    answers: list[str] = field(default_factory=list)  # replies to ask(), in order
    asks: list[tuple[str, str]] = field(default_factory=list)
    slow: float = 0.0

    async def ask(self, text: str, *, conversation: str = "") -> Reply:
        import asyncio

        self.asks.append((text, conversation))
        await asyncio.sleep(self.slow)
        return Reply(self.answers.pop(0))

    async def next_question(self) -> Question | None:
        asked = {q for q, _ in self.asked}
        return next((q for q in self.questions if q.id not in asked), None)

    async def mark_asked(self, question_id: int, when: datetime) -> None:
        self.asked.append((question_id, when))

    async def answer_question(self, question_id: int, text: str) -> Reply:
        self.answered.append((question_id, text))
        return Reply("Thank you, I added that to your story.")

    async def report(self, *, days: int = 7) -> Reply:
        self.reports += 1
        return Reply(f"Your week ({days} days): mostly ferries.")

    async def analyze(self, **_: Any) -> None: ...

    async def consolidate(self) -> bool:
        return False
