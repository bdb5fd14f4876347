"""Rendering shared by the chat front ends: message splitting, progress bars, answers, reports."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import tzinfo
from typing import TYPE_CHECKING

from core.dates import span_text
from core.memory.sources import Forgotten, Source
from core.times import parse_utc
from core.types import Answer, IngestReport
from core.words import counted

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
    lines = [f"Imported {name}: {counted(report.documents_added, 'new source')}, "
             f"{counted(report.messages_added, 'message')}, {counted(report.chunks_added, 'passage')}."]
    if report.documents_skipped or report.messages_skipped:
        lines.append(f"Already known: {counted(report.documents_skipped, 'source')}, "
                     f"{counted(report.messages_skipped, 'message')}.")
    lines.extend(report.notes)
    lines.extend(f"⚠ {error}" for error in report.errors[:5])
    if len(report.errors) > 5:
        lines.append(f"… and {counted(len(report.errors) - 5, 'more problem')} (see the server log).")
    lines.append(f"The memory now holds {counted(stats.get('documents', 0), 'source')}, "
                 f"{counted(stats.get('messages', 0), 'message')}.")
    return "\n".join(lines)


def render_answer(answer: Answer) -> str:
    """An answer's text followed by its numbered sources, as plain text."""
    return answer.render()


def render_stats(stats: dict) -> str:
    lines = [f"Sources: {stats.get('documents', 0)}", f"Messages: {stats.get('messages', 0)}",
             f"Passages: {stats.get('chunks', 0)} ({stats.get('chunks_pending_index', 0)} waiting to be indexed)"]
    for kind, counts in sorted((stats.get("by_kind") or {}).items()):
        lines.append(f"  {kind}: {counted(counts['documents'], 'source')}, {counted(counts['chunks'], 'passage')}")
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
        also.append(f"{counted(forgotten.profile_lines, 'line')} of bio.md that rested on it alone")
    if forgotten.timeline_events:
        also.append(counted(forgotten.timeline_events, "timeline event"))
    text = f"Forgot #{document.id} {document.name}." + (f" Also removed: {', '.join(also)}." if also else "")
    if forgotten.backups:
        text += f" Removed from {counted(forgotten.backups, 'backup')} too."
    for error in forgotten.backup_errors:
        text += f"\nCould not remove it from backup {error}: delete that backup to be sure it is gone."
    return text


def source_period(source: Source, zone: tzinfo) -> str:
    """The days a source spans in the owner's zone ("5–28 Mar 2024"), or "undated"."""
    if not source.time_start:
        return "undated"
    first = parse_utc(source.time_start).astimezone(zone).date()
    return span_text(first, parse_utc(source.time_end or source.time_start).astimezone(zone).date())


def sources_text(sources: Sequence[Source], policies: dict[int, str] | None = None,
                 feeds: dict[int, Feed] | None = None, *, zone: tzinfo) -> str:
    """Everything imported, numbered as /forget and `biographer forget` take them: the file it came
    from, its period and counts (two exports of one chat differ by them), what may leave the
    machine when it is not everything (`biographer policy`), and the mail account or watched path
    that keeps it current, with when that was last read."""
    policies, feeds = policies or {}, feeds or {}
    lines = [f"#{d.id} {d.name} ({d.kind})" + (f" · {d.file_name}" if d.file_name and d.file_name != d.name else "")
             + f" · {source_period(d, zone)} · "
             + (f"{counted(d.messages, 'message')}, " if d.messages else "") + counted(d.chunk_count, "passage")
             + (f" · {policies[d.id]}" if policies.get(d.id, "allow") != "allow" else "")
             + (f" · {feeds[d.id].kind} {feeds[d.id].name}, last read {feeds[d.id].last_run_at}"
                if d.id in feeds else "") for d in sources]
    return "\n".join(lines) or "Nothing imported yet."
