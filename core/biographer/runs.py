"""The biographer's runs, behind one facade: chat answers here, and analysis of new material,
answers to open questions, pattern reports and consolidation in their own modules, all sharing one
Runner (core/biographer/runner.py). Each run sees only the system prompt, the current bio.md, a
bounded chat tail (text only) and its own input; tool traffic dies with the run."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from core.agent.config import AgentConfig, AnalysisStatus
from core.agent.loop import Watcher
from core.agent.tools import Turn
from core.biographer.analysis import NOT_ANALYSED, NOT_READ, Analysis
from core.biographer.consolidation import consolidate
from core.biographer.questions import Questions
from core.biographer.report import CUT_REPORT, REPORT_KIND, report
from core.biographer.runner import CHAT_KIND, UNCHECKED, Runner, TokenCapReached
from core.errors import UserFacingError
from core.memory.facade import Memory
from core.ports import LLM, Progress, no_progress
from core.times import Clock, utc_now
from core.types import AnalysisResult, Answer, Locator, OpenQuestion, TimelineEvent
from storage import chat as chat_store

# the names callers import from here
__all__ = ["Biographer", "CHAT_KIND", "CUT_REPORT", "NOT_ANALYSED", "NOT_READ", "REPORT_KIND",
           "TokenCapReached", "UNCHECKED"]


class Biographer:
    def __init__(self, memory: Memory, llm: LLM | None, *, config: AgentConfig = AgentConfig(),
                 clock: Clock = utc_now) -> None:
        self.runner = Runner(memory, llm, config=config, clock=clock)
        self.memory, self.conn = memory, memory.conn
        self.book = self.runner.book  # bio.md and its history, for the edit and undo commands
        self._questions = Questions(self.runner)
        self._analysis = Analysis(self.runner)

    @property
    def config(self) -> AgentConfig:
        return self.runner.config

    @config.setter
    def config(self, config: AgentConfig) -> None:  # one config for every run (tests tighten a cap)
        self.runner.config = config

    def require_model(self) -> None:
        """Fail now, with the hint, when no model is configured: before a conversation starts,
        not after the owner has typed their first question."""
        self.runner.require_llm()

    # ------------------------------------------------------------------ chat

    async def ask(self, text: str, *, conversation: str = "cli", watcher: Watcher | None = None) -> Answer:
        """The owner's question answered from their sources; `watcher` sees the run as it goes."""
        if not text.strip():
            raise UserFacingError("nothing to answer", hint="ask a question about your life")
        runner = self.runner
        tail = await chat_store.tail(self.conn, conversation, limit=self.config.chat_tail)
        user = [{"role": t.role, "content": t.text} for t in tail] + [{"role": "user", "content": text}]
        turn = Turn(run_id=None, owner_said=text, owner_words=(text, *(t.text for t in tail if t.role == "user")))
        result, turn = await runner.agent(
            kind="chat", prompt="chat", role="chat", budget=self.config.chat_steps, user=user, turn=turn,
            tools=self.config.chat_tools, edit_kind="correction", cuttable_user=False,
            needs_evidence=lambda reply: not turn.evidence.cites_seen(reply), watcher=watcher)
        answer = await runner.cited(result, turn)
        if result.successful_calls == 0 and not answer.citations:
            # still no tool call after the nudge: say so, in the answer itself, wherever it is shown
            answer = replace(answer, text=f"{UNCHECKED}\n\n{answer.text}", checked=False)
        async with self.conn.transaction():
            now = runner.now_iso()
            await chat_store.add_turn(self.conn, conversation=conversation, role="user", text=text, at=now)
            await chat_store.add_turn(self.conn, conversation=conversation, role="assistant", text=answer.text, at=now)
        # the conversation is logged (chat_turns) but is no source: a question is not evidence, and
        # kept as one it would rank above the real evidence in search. What the owner states about
        # their life becomes a source through `remember` (the model's tool, or the owner's command).
        return answer

    async def last_conversation(self, prefix: str) -> str | None:
        """The key of the latest conversation whose key starts with `prefix` (to resume it)."""
        return await chat_store.latest_conversation(self.conn, prefix)

    async def remember(self, text: str, *, when: datetime | None = None, conversation: str = "biographer") -> Locator:
        """Store the owner's words as a dated source; returns where they are."""
        return await self.runner.remember(text, when=when, conversation=conversation)

    # ------------------------------------------------------------------ questions

    async def open_questions(self) -> list[OpenQuestion]:
        return await self.runner.open_questions()

    async def next_question(self) -> OpenQuestion | None:
        return await self._questions.next_question()

    async def mark_asked(self, question_id: int, when: datetime) -> None:
        await self._questions.mark_asked(question_id, when)

    async def answer_question(self, question_id: int, text: str) -> Answer:
        return await self._questions.answer_question(question_id, text)

    # ------------------------------------------------------------------ profile

    async def bio(self) -> str:
        return await self.runner.bio()

    async def timeline(self) -> list[TimelineEvent]:
        return await self.runner.timeline()

    # ------------------------------------------------------------------ analysis, report, consolidation

    async def analyze(self, *, progress: Progress = no_progress, max_batches: int | None = None) -> AnalysisResult:
        """Read new material oldest first, one budgeted run per batch, until done or capped."""
        return await self._analysis.analyze(progress=progress, max_batches=max_batches)

    async def analysis_status(self) -> AnalysisStatus:
        """What waits for analysis, and whether the last run left its batch unread."""
        return await self._analysis.status()

    async def report(self, *, days: int = 7) -> Answer:
        return await report(self.runner, days=days)

    async def consolidate(self, *, force: bool = False) -> bool:
        """Rewrite each section coherently; a rewrite that loses a citation or a section is refused."""
        return await consolidate(self.runner, force=force)
