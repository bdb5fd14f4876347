"""A scripted stand-in for the biographer's model-backed methods, for front-end and scheduler tests:
the real Biographer over a real memory (so bio.md, the timeline and the rest are real), with answers,
questions and reports from queues, returned as the core's own Answer and OpenQuestion."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from core.biographer.runs import Biographer
from core.memory.facade import Memory
from core.service.parts import Parts
from core.times import Clock, utc_now
from core.types import AnalysisResult, Answer, OpenQuestion


def question(question_id: int, text: str) -> OpenQuestion:
    """An open question as the biographer keeps it."""
    return OpenQuestion(id=question_id, text=text, why="a gap in the profile", priority=3, status="open",
                        created_at=datetime(2024, 1, 1, tzinfo=timezone.utc))


class ScriptedBiographer(Biographer):
    """Everything real but the model: ask/answer/report replay queued texts; every call is recorded."""

    def __init__(self, memory: Memory, *, questions: Sequence[OpenQuestion] = (), answers: Sequence[str] = (),
                 slow: float = 0.0, clock: Clock = utc_now) -> None:
        super().__init__(memory, None, clock=clock)
        self.questions = list(questions)
        self.answers = list(answers)  # replies to ask(), in order
        self.slow = slow
        self.asked: list[tuple[int, datetime]] = []
        self.answered: list[tuple[int, str]] = []
        self.asks: list[tuple[str, str]] = []
        self.reports = 0

    async def ask(self, text: str, *, conversation: str = "cli") -> Answer:
        self.asks.append((text, conversation))
        await asyncio.sleep(self.slow)
        return Answer(self.answers.pop(0))

    async def next_question(self) -> OpenQuestion | None:
        asked = {q for q, _ in self.asked}
        return next((q for q in self.questions if q.id not in asked), None)

    async def mark_asked(self, question_id: int, when: datetime) -> None:
        self.asked.append((question_id, when))

    async def answer_question(self, question_id: int, text: str) -> Answer:
        self.answered.append((question_id, text))
        return Answer("Thank you, I added that to your story.")

    async def report(self, *, days: int = 7) -> Answer:
        self.reports += 1
        return Answer(f"Your week ({days} days): mostly ferries.")

    async def analyze(self, **_: Any) -> AnalysisResult:
        return AnalysisResult(batches=0)

    async def consolidate(self, *, force: bool = False) -> bool:
        return False


def scripted(memory: Memory, *, questions: Sequence[OpenQuestion] = (), answers: Sequence[str] = (),
             slow: float = 0.0, **options: Any) -> Parts:
    """The real parts of the service over `memory`, with the scripted biographer in them."""
    clock = options.get("clock", utc_now)
    biographer = ScriptedBiographer(memory, questions=questions, answers=answers, slow=slow, clock=clock)
    return Parts(memory=memory, biographer=biographer, **options)
