"""The CLI's facet (bot/cli_*.py): everything the owner runs from a terminal: the memory, the
biographer, the ledger and pictures, and the keeping of the store: people and their names, what
may leave the machine, clients of the memory server, exports, backups and token usage."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from core.ports import Progress, no_progress
from core.service.parts import Facet, Person
from storage import people as people_store

if TYPE_CHECKING:
    from core.ledger.extraction import ExtractionResult
    from core.ledger.people import PersonPage
    from core.memory.sources import Source
    from core.privacy.disclosure import Disclosure, PolicyChange
    from core.schedule.preferences import PreferenceStore
    from core.serving.clients import ClientBook
    from core.serving.saves import SaveShelf
    from core.types import Answer

UnmatchedSender = people_store.UnmatchedSender


class AdminFacet(Facet):
    """`memory`, `biographer`, `ledger` and `pictures` as named; `disclosure` lists policies;
    `clients` adds, lists and revokes the memory server's clients, `save_shelf` lists and deletes
    what they saved; `preferences` is the schedule."""

    # the books are the parts' own, made on first use: `biographer grep` opens none of them
    @property
    def disclosure(self) -> Disclosure:
        return self._parts.disclosure

    @property
    def clients(self) -> ClientBook:
        return self._parts.clients

    @property
    def save_shelf(self) -> SaveShelf:
        return self._parts.save_shelf

    @property
    def preferences(self) -> PreferenceStore:
        return self._parts.preferences

    # ------------------------------------------------------------ what the memory holds

    async def stats(self) -> dict:
        """What the memory holds, and the model tokens used per day and role."""
        stats = await self.memory.stats()
        stats["token_usage"] = await self.usage()
        return stats

    async def usage(self, *, days: int = 30) -> dict:
        """Model tokens per day and role, newest day first (storage/runs.py usage_table)."""
        return await self.memory.token_usage(days=days)

    async def sources(self) -> list[Source]:
        return await self._parts.sources()

    async def source(self, source_id: int) -> Source:
        return await self._parts.source(source_id)

    # ------------------------------------------------------------ what may leave the machine

    async def set_policy(self, target: str, policy: str) -> PolicyChange:
        """What of a source (its number) or of a kind of source may leave the machine: allow,
        descriptors_only or deny (core/privacy/disclosure.py). With a remote embedding endpoint its
        passages are embedded again under it (denied: their vectors go now)."""
        change = await self.disclosure.set(target, policy)
        await self.memory.policy_changed(change.documents, change.policy)
        return change

    async def clear_policy(self, target: str) -> PolicyChange:
        """A source back to its kind's policy, a kind back to allow."""
        change = await self.disclosure.clear(target)
        await self.memory.policy_changed(change.documents, change.policy)
        return change

    # ------------------------------------------------------------ people

    async def people(self) -> list[Person]:
        return await self._parts.people()

    async def merge_people(self, keep: str, other: str) -> Person:
        """Make `other` another name of `keep`."""
        await people_store.sync_from_messages(self.memory.conn)
        return await people_store.merge(self.memory.conn, keep, other)

    async def unmatched_senders(self, *, limit: int = 50) -> list[UnmatchedSender]:
        await people_store.sync_from_messages(self.memory.conn)
        return await people_store.unmatched_senders(self.memory.conn, limit=limit)

    async def follow_owner_aliases(self) -> int:
        """Mark the stored messages again from the owner's aliases; how many changed."""
        from core.memory.owners import follow_owner_aliases

        return await follow_owner_aliases(self.memory.conn, self.memory.context, force=True) or 0

    async def person_page(self, name: str) -> PersonPage:
        return await self._parts.person_page(name)

    # ------------------------------------------------------------ the biographer and the ledger

    async def report(self, *, days: int = 7) -> Answer:
        return await self._parts.report(days=days)

    async def extract_ledger(self, *, max_windows: int | None = None,
                             progress: Progress = no_progress) -> ExtractionResult:
        return await self._parts.extract_ledger(max_windows=max_windows, progress=progress)

    def due_date(self, text: str) -> date:
        """A due date as the owner types it (2024-05-10, tomorrow, friday, in 3 days), in their zone."""
        from core.ledger.book import parse_due

        return parse_due(text, today=self._parts.clock().astimezone(self._parts.config.zone).date())

    # ------------------------------------------------------------ taking it away

    async def export_all(self, directory: Path) -> dict[str, int]:
        """Everything, to take away: JSON lines, bio.md and its history, and a Markdown vault
        (see core/privacy/export.py); returns what was written, by kind."""
        from dataclasses import asdict

        from core.privacy.export import JsonLines, export_all
        from storage import ledger as ledger_store  # only the export reads the ledger's table here

        biographer = self.biographer
        written = await export_all(self.memory.conn, directory, read_document=self.memory.sources.read_document,
                                   bio=await biographer.bio(), history=await biographer.book.history(limit=2**31),
                                   timeline=await biographer.timeline(), questions=await biographer.open_questions())
        out = JsonLines(directory / "data" / "ledger.jsonl")
        for item in await ledger_store.export_items(self.memory.conn):
            out.write(asdict(item))
        out.close()
        written["ledger items"] = out.count
        return written

    async def backup(self, directory: Path, *, stamp: datetime | None = None, keep: int) -> Path:
        return await self._parts.backup(directory, stamp=stamp, keep=keep)
