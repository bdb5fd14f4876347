"""Forwarded messages saved under their original senders and dates, by way of the inbox: a burst
is on disk before the store is touched, so a busy store or a kill loses nothing."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from core.chat.forwards import Forwarded, forwards_document, forwards_from_payload, forwards_payload
from core.chat.inbox import Inbox
from core.errors import StoreBusy
from core.memory.facade import Memory
from core.types import IngestReport

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SavedForwards:
    """What became of a burst of forwards: saved now, or kept in the inbox for later."""

    report: IngestReport | None  # None: the store was busy; the burst waits in the inbox
    items: Sequence[Forwarded]


class ForwardSaver:
    """Saves bursts of forwards, and replays what a busy store left in the inbox."""

    def __init__(self, memory: Memory, inbox: Inbox | None) -> None:
        self.memory = memory
        self.inbox = inbox  # None: no data folder (tests of the memory alone); saved directly

    async def save(self, items: Sequence[Forwarded], *, platform: str, chat_key: str,
                   owner_ids: frozenset[str]) -> SavedForwards:
        """Save a burst of forwarded messages under their original senders and dates."""
        payload = forwards_payload(items, platform=platform, chat_key=chat_key, owner_ids=owner_ids)
        entry = self.inbox.put("forwards", payload) if self.inbox else None
        try:
            report = await self._save_payload(payload)
        except StoreBusy:
            log.warning("store busy: %d forwarded messages kept in the inbox for later", len(items))
            return SavedForwards(report=None, items=items)
        if entry is not None:
            self.inbox.done(entry)
        return SavedForwards(report=report, items=items)

    async def _save_payload(self, payload: dict) -> IngestReport:
        items, platform, chat_key, owner_ids = forwards_from_payload(payload)
        document = forwards_document(items, platform=platform, chat_key=chat_key, owner_ids=owner_ids,
                                     owner_names=self.memory.context.owner_aliases)
        return await self.memory.save([document])

    async def replay_inbox(self) -> int:
        """Save what earlier saves had to leave in the inbox; returns the messages saved."""
        if self.inbox is None:
            return 0
        saved = 0
        for entry, kind, payload in self.inbox.pending():
            if kind != "forwards":
                log.error("inbox entry %s has an unknown kind %r; left in place", entry.name, kind)
                continue
            try:
                report = await self._save_payload(payload)
            except StoreBusy:
                return saved  # still busy: try again on the next tick
            self.inbox.done(entry)
            saved += report.messages_added
        if saved:
            log.warning("saved %d forwarded messages that waited in the inbox", saved)
        return saved
