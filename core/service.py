"""The one facade the front ends call: the memory core, and the biographer (answers, bio.md,
open questions, timeline, reports). Front ends never reach past it."""

from __future__ import annotations

from datetime import datetime

from core.biographer import AgentConfig, AnalysisStatus, Biographer
from core.memory import Memory
from core.ports import LLM, Progress, no_progress
from core.profile_book import Clock, utc_now
from core.types import AnalysisResult, Answer, Locator, OpenQuestion, ProfileEdit, TimelineEvent


class Service:
    def __init__(self, *, memory: Memory, llm: LLM | None = None, config: AgentConfig = AgentConfig(),
                 clock: Clock = utc_now) -> None:
        self.memory = memory
        self.llm = llm
        self.biographer = Biographer(memory, llm, config=config, clock=clock)

    # answers
    async def ask(self, text: str, *, conversation: str = "cli") -> Answer:
        """A cited answer from the owner's sources; the owner's words are kept as a source."""
        return await self.biographer.ask(text, conversation=conversation)

    async def last_conversation(self, prefix: str) -> str | None:
        """The latest conversation whose key starts with `prefix`, to resume it."""
        return await self.biographer.last_conversation(prefix)

    async def remember(self, text: str, *, when: datetime | None = None) -> Locator:
        """Store the owner's words as a dated source."""
        return await self.biographer.remember(text, when=when)

    # open questions
    async def open_questions(self) -> list[OpenQuestion]:
        return await self.biographer.open_questions()

    async def next_question(self) -> OpenQuestion | None:
        """The most valuable unanswered question not asked in the last few days."""
        return await self.biographer.next_question()

    async def mark_asked(self, question_id: int, when: datetime) -> None:
        await self.biographer.mark_asked(question_id, when)

    async def answer_question(self, question_id: int, text: str) -> Answer:
        """Store the owner's answer as a source and fold it into bio.md."""
        return await self.biographer.answer_question(question_id, text)

    # bio.md
    async def bio(self) -> str:
        return await self.biographer.bio()

    async def bio_history(self, limit: int = 50) -> list[ProfileEdit]:
        return await self.biographer.book.history(limit=limit)

    async def bio_diff(self, since: datetime) -> str:
        return await self.biographer.book.diff_since(since)

    async def undo_edit(self, edit_id: int) -> ProfileEdit:
        return await self.biographer.book.undo(edit_id)

    async def timeline(self) -> list[TimelineEvent]:
        return await self.biographer.timeline()

    # analysis runs
    async def analyze(self, *, progress: Progress = no_progress, max_batches: int | None = None) -> AnalysisResult:
        """Read new material since the last analysis, oldest first, in budgeted batches."""
        return await self.biographer.analyze(progress=progress, max_batches=max_batches)

    async def analysis_status(self) -> AnalysisStatus:
        """Passages waiting for analysis, and whether the last run left its batch unread."""
        return await self.biographer.analysis_status()

    async def report(self, *, days: int = 7) -> Answer:
        """The pattern report of the last `days`, stored as a document."""
        return await self.biographer.report(days=days)

    async def consolidate(self, *, force: bool = False) -> bool:
        """True if the profile was replaced by a verified, coherent rewrite."""
        return await self.biographer.consolidate(force=force)

    async def usage(self) -> dict:
        """Token usage per day and role."""
        return await self.biographer.usage()
