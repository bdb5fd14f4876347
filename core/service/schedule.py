"""The scheduler's facet (core/schedule/jobs.py, bot/scheduler.py): what the scheduled jobs do:
ask the next question, send the weekly report, analyse, consolidate, back up, read conversations
into the ledger and remind the owner of what is due."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from core.chat.prompts import PromptBook
from core.chat.saving import ForwardSaver
from core.ports import LLM
from core.schedule.preferences import PreferenceStore
from core.service.parts import Facet, Parts
from core.times import utc_iso
from core.types import Answer
from storage import ledger as ledger_store

if TYPE_CHECKING:
    from core.ledger.extraction import ExtractionResult
    from core.ledger.reminders import ReminderBatch


class ScheduleFacet(Facet):
    """`biographer` asks, analyses and consolidates; `pictures` draws the week; `forwards` replays
    the inbox; `preferences` and `prompts` say when to ask and what was asked."""

    def __init__(self, parts: Parts) -> None:
        super().__init__(parts)
        self.llm: LLM | None = parts.llm
        self.forwards: ForwardSaver = parts.forwards
        self.prompts: PromptBook = parts.prompts
        self.preferences: PreferenceStore = parts.preferences

    async def report(self, *, days: int = 7) -> Answer:
        return await self._parts.report(days=days)

    async def backup(self, directory: Path, *, stamp: datetime | None = None, keep: int) -> Path:
        return await self._parts.backup(directory, stamp=stamp, keep=keep)

    async def extract_ledger(self, *, max_windows: int | None = None) -> ExtractionResult:
        return await self._parts.extract_ledger(max_windows=max_windows)

    async def ledger_pending(self) -> bool:
        """Whether some conversation waits to be read into the ledger."""
        from core.ledger.conversations import NOT_CONVERSATIONS

        return bool(await ledger_store.pending_documents(self.memory.conn, exclude_kinds=NOT_CONVERSATIONS))

    async def ledger_reminders(self, *, today: date) -> ReminderBatch:
        """What to remind the owner of today (promises due, follow-ups drafted for what is owed)."""
        from core.ledger import reminders

        config = self._parts.config
        drafted = []
        for reminder in await reminders.due(self.memory.conn, today=today):
            if reminder.kind == "follow_up":
                draft = await reminders.draft_follow_up(reminder.item, llm=self.llm, zone=config.zone,
                                                        owner=config.owner)
                reminder = replace(reminder, draft=draft)
            drafted.append(reminder)
        text = reminders.render(drafted, today=today, zone=config.zone) if drafted else ""
        return reminders.ReminderBatch(tuple(drafted), text)

    async def record_reminders(self, batch: ReminderBatch, *, at: datetime) -> None:
        """Remember these as sent (before sending: a restart must never send them twice)."""
        from core.ledger import reminders

        await reminders.record(self.memory.conn, batch, at=utc_iso(at))

    async def unrecord_reminders(self, batch: ReminderBatch) -> None:
        from core.ledger import reminders

        await reminders.unrecord(self.memory.conn, batch)
