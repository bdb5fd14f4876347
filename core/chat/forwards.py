"""Forwarded messages: grouped per burst, saved under their original senders and dates."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar
from dataclasses import asdict, dataclass
from datetime import datetime, tzinfo

from core.dates import span_text
from core.types import Conversation, Message, SourceDocument
from core.words import counted

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Forwarded:
    """One forwarded message as the platform describes its origin."""

    sender: str  # the original author's name ("Maya", a hidden user's name, a channel title)
    time: datetime  # when the original was sent, not when it was forwarded
    text: str
    platform_id: str  # the forward's own id in the owner's chat with the bot
    sender_id: str | None = None  # stable id when the platform gives one (user id, chat id)
    origin_chat: str | None = None  # the chat or channel it came from, when known
    kind: str = "text"  # "text" or "media"


def forwards_payload(items: Sequence[Forwarded], *, platform: str, chat_key: str,
                     owner_ids: frozenset[str]) -> dict:
    """A burst as JSON (for the inbox, which keeps it until it is saved)."""
    return {"platform": platform, "chat_key": chat_key, "owner_ids": sorted(owner_ids),
            "items": [{**asdict(item), "time": item.time.isoformat()} for item in items]}


def forwards_from_payload(payload: dict) -> tuple[list[Forwarded], str, str, frozenset[str]]:
    items = [Forwarded(**{**item, "time": datetime.fromisoformat(item["time"])}) for item in payload["items"]]
    return items, payload["platform"], payload["chat_key"], frozenset(payload["owner_ids"])


def _names(items: Sequence[Forwarded]) -> list[str]:
    return list(dict.fromkeys(item.sender for item in items))


def forwards_document(items: Sequence[Forwarded], *, platform: str, chat_key: str,
                      owner_ids: frozenset[str] = frozenset(), owner_names: frozenset[str] = frozenset()
                      ) -> SourceDocument:
    """One import for a burst of forwards; the owner's own forwarded words stay marked as theirs."""
    names = _names(items)
    first = items[0]
    origin = first.origin_chat or ", ".join(names)

    def is_owner(item: Forwarded) -> bool:
        return (item.sender_id is not None and item.sender_id in owner_ids) or \
            item.sender.strip().lower() in owner_names

    messages = [
        Message(sender=item.sender, text=item.text, time=item.time, sender_id=item.sender_id,
                is_owner=is_owner(item), platform_id=f"{chat_key}:{item.platform_id}",
                forwarded_from=item.origin_chat or item.sender,
                kind="media" if item.kind == "media" else "text")
        for item in items
    ]
    return SourceDocument(
        kind=f"{platform}_forward",
        name=f"Forwarded from {origin}",
        identity=f"{platform}-forward:{chat_key}:{first.platform_id}-{items[-1].platform_id}",
        messages=iter(messages),
        conversation=Conversation(platform=platform, key=f"forwards:{chat_key}",
                                  name=f"Forwarded from {origin}", participants=tuple(names),
                                  is_group=len(names) > 1),
    )


def burst_summary(items: Sequence[Forwarded], *, saved: int, zone: tzinfo) -> str:
    """"Saved 14 messages from Maya, 3–5 May 2024"."""
    if saved == 0:
        return f"Those {len(items)} forwarded messages were already saved."
    names = _names(items)
    who = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    if len(names) > 4:
        who = f"{', '.join(names[:3])} and {len(names) - 3} others"
    times = sorted(item.time.astimezone(zone) for item in items)
    return f"Saved {counted(saved, 'message')} from {who}, {span_text(times[0].date(), times[-1].date())}."


Item = TypeVar("Item")


class BurstCollector(Generic[Item]):
    """Collects items (forwards, the parts of an album) per key and flushes each burst once no new
    one arrived for `quiet` seconds."""

    def __init__(self, flush: Callable[[str, list[Item]], Awaitable[None]], *, quiet: float) -> None:
        self._flush = flush
        self._quiet = quiet
        self._pending: dict[str, list[Item]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task] = set()

    def add(self, chat_key: str, item: Item) -> None:
        self._pending.setdefault(chat_key, []).append(item)
        if timer := self._timers.pop(chat_key, None):
            timer.cancel()
        loop = asyncio.get_running_loop()
        self._timers[chat_key] = loop.call_later(self._quiet, self._start_flush, chat_key)

    def _start_flush(self, chat_key: str) -> None:
        self._timers.pop(chat_key, None)
        items = self._pending.pop(chat_key, [])
        if items:
            task = asyncio.create_task(self._flush(chat_key, items))
            self._tasks.add(task)
            task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task) -> None:
        """A flush that failed must not fail silently (its items were already confirmed to the
        platform): the error goes to the log."""
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("saving a burst failed", exc_info=task.exception())

    async def drain(self) -> None:
        """Flush every pending burst now and wait for all flushes (used on shutdown)."""
        for chat_key in list(self._timers):
            self._timers.pop(chat_key).cancel()
            self._start_flush(chat_key)
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
