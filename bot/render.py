"""Rendering shared by the chat front ends: message splitting, progress bars, answers, reports."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from core.memory.sources import Forgotten, Source
from core.types import Answer, IngestReport

if TYPE_CHECKING:
    from core.feeds.book import Feed

TELEGRAM_LIMIT = 4096
DISCORD_LIMIT = 2000


def split_message(text: str, limit: int) -> list[str]:
    """Pieces of at most `limit` characters, cut at paragraph, then line, then word boundaries."""
    text = text.strip()
    pieces: list[str] = []
    while len(text) > limit:
        window = text[:limit + 1]
        cut = -1
        for separator in ("\n\n", "\n", " "):
            cut = window.rfind(separator)
            if cut > limit // 4:
                break
        if cut <= 0:
            cut = limit
        pieces.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    if text:
        pieces.append(text)
    return pieces


def progress_bar(done: int, total: int | None, *, width: int = 12) -> str:
    if not total:
        return f"{done}"
    filled = min(width, round(width * done / total))
    return f"[{'█' * filled}{'░' * (width - filled)}] {done}/{total}"


def progress_text(name: str, stage: str, done: int, total: int | None) -> str:
    return f"Importing {name}\n{stage}: {progress_bar(done, total)}"


def ingest_summary(name: str, report: IngestReport, stats: dict) -> str:
    lines = [f"Imported {name}: {report.documents_added} new source(s), "
             f"{report.messages_added} messages, {report.chunks_added} passages."]
    if report.documents_skipped or report.messages_skipped:
        lines.append(f"Already known: {report.documents_skipped} source(s), "
                     f"{report.messages_skipped} messages.")
    lines.extend(report.notes)
    lines.extend(f"⚠ {error}" for error in report.errors[:5])
    if len(report.errors) > 5:
        lines.append(f"… and {len(report.errors) - 5} more problems (see the server log).")
    lines.append(f"The memory now holds {stats.get('documents', 0)} sources, "
                 f"{stats.get('messages', 0)} messages.")
    return "\n".join(lines)


def render_answer(answer: Answer) -> str:
    """An answer's text followed by its numbered sources, as plain text."""
    return answer.render()


def render_stats(stats: dict) -> str:
    lines = [f"Sources: {stats.get('documents', 0)}", f"Messages: {stats.get('messages', 0)}",
             f"Passages: {stats.get('chunks', 0)} ({stats.get('chunks_pending_index', 0)} waiting to be indexed)"]
    for kind, counts in sorted((stats.get("by_kind") or {}).items()):
        lines.append(f"  {kind}: {counts['documents']} sources, {counts['chunks']} passages")
    return "\n".join(lines)


class ThrottledStatus:
    """Turns many progress callbacks into at most one status edit per `interval` seconds."""

    def __init__(self, edit: Callable[[str], Awaitable[object]], render: Callable[[str, int, int | None], str],
                 *, interval: float) -> None:
        self._edit = edit
        self._render = render
        self._interval = interval
        self._last_sent = 0.0
        self._shown = ""
        self._latest = ""
        self._pending: asyncio.Task | None = None

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        """A core Progress: called on the event loop; schedules an edit when one is due."""
        self._latest = self._render(stage, done, total)
        if self._pending is None or self._pending.done():
            self._pending = asyncio.get_running_loop().create_task(self._flush_later())

    async def _flush_later(self) -> None:
        wait = self._last_sent + self._interval - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        if self._latest != self._shown:
            self._shown = self._latest
            self._last_sent = time.monotonic()
            await self._edit(self._latest)

    async def close(self) -> None:
        """Wait for the last scheduled edit."""
        if self._pending is not None:
            await self._pending


def forgotten_text(forgotten: Forgotten) -> str:
    """What /forget removed."""
    document = forgotten.document
    also = []
    if forgotten.profile_lines:
        also.append(f"{forgotten.profile_lines} line(s) of bio.md that rested on it alone")
    if forgotten.timeline_events:
        also.append(f"{forgotten.timeline_events} timeline event(s)")
    text = f"Forgot #{document.id} {document.name}." + (f" Also removed: {', '.join(also)}." if also else "")
    if forgotten.backups:
        text += f" Removed from {forgotten.backups} backup{'s' if forgotten.backups != 1 else ''} too."
    for error in forgotten.backup_errors:
        text += f"\nCould not remove it from backup {error}: delete that backup to be sure it is gone."
    return text


def sources_text(sources: Sequence[Source], policies: dict[int, str] | None = None,
                 feeds: dict[int, Feed] | None = None) -> str:
    """Everything imported, numbered as /forget and `biographer forget` take them, with what may
    leave the machine when it is not everything (`biographer policy`), and the mail account or
    watched path that keeps it current, with when that was last read."""
    policies, feeds = policies or {}, feeds or {}
    lines = [f"#{d.id} {d.name} ({d.kind}) · {d.chunk_count} passages"
             + (f" · {policies[d.id]}" if policies.get(d.id, "allow") != "allow" else "")
             + (f" · {feeds[d.id].kind} {feeds[d.id].name}, last read {feeds[d.id].last_run_at}"
                if d.id in feeds else "") for d in sources]
    return "\n".join(lines) or "Nothing imported yet."
