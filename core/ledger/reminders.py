"""Reminders: the owner's promises due today or lately overdue, and what others owe the owner past
its date, with a follow-up message drafted for the owner to copy and send themselves (the bot
never writes to anyone but the owner). Each item is reminded once per due date: what was sent is
recorded before sending, so a restart never sends it again."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta, tzinfo

from core.agent import prompts
from core.errors import UserFacingError
from core.ledger.book import OPEN, LedgerItem
from core.ledger.text import day, headline, local_day, source_line
from core.ports import LLM
from storage import ledger as store
from storage.db import Store

log = logging.getLogger(__name__)

#: a promise overdue for longer than this when first seen (an old chat imported today) is history,
#: not something to be reminded of
LOOKBACK = timedelta(days=14)
DRAFT_LIMIT = 600


@dataclass(frozen=True)
class Reminder:
    item: LedgerItem
    kind: str  # "due": the owner's promise (due today or overdue); "follow_up": owed to the owner
    draft: str = ""

    @property
    def key(self) -> store.ReminderKey:
        return store.ReminderKey(self.item.id, self.item.due or "", self.kind)


@dataclass(frozen=True)
class ReminderBatch:
    reminders: tuple[Reminder, ...]
    text: str

    def __len__(self) -> int:
        return len(self.reminders)


async def due(conn: Store, *, today: date) -> list[Reminder]:
    """Open promises due by today and owed items past their date, within the look-back, not yet
    reminded for this due date."""
    since = (today - LOOKBACK).isoformat()
    promised = await store.list_items(conn, store.ItemFilter(kinds=("commitment",), statuses=OPEN,
                                                             due_from=since, due_until=today.isoformat()))
    owed = await store.list_items(conn, store.ItemFilter(kinds=("owed",), statuses=OPEN, due_from=since,
                                                         due_until=(today - timedelta(days=1)).isoformat()))
    out = []
    for items, kind in ((promised, "due"), (owed, "follow_up")):
        for item in items:
            if not await store.reminded(conn, item.id, item.due, kind):
                out.append(Reminder(item, kind))
    return out


async def draft_follow_up(item: LedgerItem, *, llm: LLM | None, zone: tzinfo, owner: str) -> str:
    """A short message the owner could send to ask after what is owed: the model writes it in the
    conversation's language when one is configured; otherwise a plain template."""
    stated = next((s for s in item.sources if s.role == "stated" and s.document_id is not None), None)
    first_name = (item.person or "").split()[0] if item.person else ""
    when = local_day(stated.said_at, zone) if stated else ""
    fallback = (f"Hi {first_name}, just checking in about this: “{stated.quote}” ({when}). Any news?" if stated
                else f"Hi {first_name}, just checking in about {item.text}. Any news?")
    if llm is None:
        return fallback
    ask = (f"Person: {item.person}\nWhat they promised the owner: {item.text}\n"
           + (f"Due: {item.due}\n" if item.due else "")
           + (f"Their words ({when}): “{stated.quote}”\n" if stated else "")
           + f"The owner: {owner}")
    try:
        completion = await llm.complete([{"role": "system", "content": prompts.load("ledger_follow_up")},
                                         {"role": "user", "content": ask}], role="chat")
    except UserFacingError as error:
        log.warning("ledger: could not draft a follow-up for #%s (%s); using the template", item.id, error.message)
        return fallback
    draft = (completion.content or "").strip().strip('"“”').strip()
    return draft if 0 < len(draft) <= DRAFT_LIMIT else fallback


def render(reminders: Sequence[Reminder], *, today: date, zone: tzinfo) -> str:
    promised = [r for r in reminders if r.kind == "due"]
    owed = [r for r in reminders if r.kind == "follow_up"]
    lines: list[str] = []
    if promised:
        lines.append("Your promises due:")
        for r in promised:
            when = "today" if r.item.due == today.isoformat() else f"overdue since {day(r.item.due)}"
            lines.append(f"• {headline(r.item)} ({when})")
            lines += [f"    {source_line(s, zone)}" for s in r.item.sources if s.role == "stated"][:2]
    if owed:
        lines += [""] if lines else []
        lines.append("Owed to you, past its date:")
        for r in owed:
            lines.append(f"• {headline(r.item)}")
            lines += [f"    {source_line(s, zone)}" for s in r.item.sources if s.role == "stated"][:2]
            lines += [f"  A message you could send {r.item.person}:", "", r.draft, ""]
    lines += ["", "Mark them done or dropped with /todo and /owed (or `biographer ledger done ID`)."]
    return "\n".join(lines).strip()


async def record(conn: Store, batch: ReminderBatch, *, at: str) -> None:
    async with conn.transaction():
        await store.record_reminders(conn, [r.key for r in batch.reminders], at=at)


async def unrecord(conn: Store, batch: ReminderBatch) -> None:
    """The sending failed: these may be sent at the next slot."""
    async with conn.transaction():
        await store.unrecord_reminders(conn, [r.key for r in batch.reminders])
