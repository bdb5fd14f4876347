"""The chat front ends' facet (bot/commands.py, the Telegram and Discord adapters, the runtime):
what the owner does from a chat: ask, remember, forward, send files, voice notes and photos, list
and forget sources, read the ledger, change the schedule."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from core.chat.capture import journal_identity_prefix, save_photos, save_recording
from core.chat.prompts import PromptBook
from core.chat.saving import ForwardSaver
from core.memory.sources import Source, export_sources, find_sources_by_identity_prefix
from core.schedule.preferences import PreferenceStore
from core.service.parts import Facet, Parts
from core.types import Answer

if TYPE_CHECKING:
    from core.ledger.people import PersonPage


class ChatFacet(Facet):
    """`memory` finds, reads and imports; `biographer` answers; `ledger` and `pictures` as named;
    `forwards` saves bursts of forwards; `prompts` ties question prompts to their replies."""

    def __init__(self, parts: Parts) -> None:
        super().__init__(parts)
        self.forwards: ForwardSaver = parts.forwards
        self.prompts: PromptBook = parts.prompts
        self.preferences: PreferenceStore = parts.preferences

    async def sources(self) -> list[Source]:
        return await self._parts.sources()

    async def source(self, source_id: int) -> Source:
        return await self._parts.source(source_id)

    async def source_policies(self, source_ids: Sequence[int]) -> dict[int, str]:
        """The policy in force for each source (what of it may leave the machine)."""
        return await self._parts.disclosure.for_documents(list(source_ids))

    async def export_sources(self, path: Path) -> Path:
        """Every source and message as one JSON file."""
        return await export_sources(self.memory.conn, path)

    async def report(self, *, days: int = 7) -> Answer:
        return await self._parts.report(days=days)

    async def person_page(self, name: str) -> PersonPage:
        return await self._parts.person_page(name)

    async def save_recording(self, path: Path, *, when: datetime) -> str:
        """Transcribe a voice note, keep it as a dated journal entry; returns the transcript."""
        return await save_recording(self.memory, path, when=when)

    async def save_photos(self, paths: Sequence[Path], *, caption: str, when: datetime,
                          key: str | None = None) -> str:
        """Keep photos sent together (described when a vision model is set) with their caption as
        one journal entry; returns what was saved. `key` names the platform message: saving it
        again (an edited caption) replaces the entry it made before."""
        earlier = await find_sources_by_identity_prefix(self.memory.conn, journal_identity_prefix("photo", key)) \
            if key else []
        text = await save_photos(self.memory, paths, caption=caption, when=when, key=key)
        for source in earlier:
            await self.memory.forget(source.id)
        return text
