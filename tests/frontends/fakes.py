"""A scripted stand-in for the biographer's model-backed methods, for front-end and scheduler tests:
the real Service over a real memory, with answers, questions and reports from queues."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.service import Service


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


class ScriptedService(Service):
    """Everything real but the model: ask/answer/report replay queued texts; every call is recorded."""

    def __init__(self, memory: Any, *, questions: list[Question] = (), answers: list[str] = (),
                 slow: float = 0.0, **kwargs: Any) -> None:
        super().__init__(memory=memory, **kwargs)
        self.questions = list(questions)
        self.answers = list(answers)  # replies to ask(), in order
        self.slow = slow
        self.asked: list[tuple[int, datetime]] = []
        self.answered: list[tuple[int, str]] = []
        self.asks: list[tuple[str, str]] = []
        self.reports = 0

    async def ask(self, text: str, *, conversation: str = "") -> Reply:
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

    async def consolidate(self, *, force: bool = False) -> bool:
        return False
