"""The scheduler: APScheduler in the bot's event loop, ticking the JobRunner once a minute."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta, timezone
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from core.config import Settings
from core.biographer.gate import AgentGate
from core.service.schedule import ScheduleFacet
from core.schedule.jobs import JobRunner, Notifier

log = logging.getLogger(__name__)


def build_runner(settings: Settings, service: ScheduleFacet, gate: AgentGate, notifier: Notifier,
                 **overrides: Any) -> JobRunner:
    options: dict[str, Any] = dict(
        service=service, notifier=notifier, gate=gate, backup_dir=settings.backup_dir,
        backup_keep=settings.backup_keep, analysis_time=settings.analysis_time,
        backup_time=settings.backup_time, grace=timedelta(hours=settings.schedule_grace_hours),
        reminder_time=settings.ledger_reminder_time, mail_time=settings.mail_sync_time)
    options.update(overrides)
    return JobRunner(**options)


@asynccontextmanager
async def running_scheduler(runner: JobRunner, *, every_seconds: float = 60.0) -> AsyncIterator[AsyncIOScheduler]:
    """Tick at once (making up a recently missed slot) and then every minute; on exit, stop and let a
    tick in flight finish."""
    in_flight = asyncio.Lock()

    async def tick() -> None:
        async with in_flight:
            await runner.tick()

    scheduler = AsyncIOScheduler(timezone=timezone.utc)
    scheduler.add_job(tick, IntervalTrigger(seconds=every_seconds), id="tick",
                      next_run_time=datetime.now(timezone.utc), coalesce=True, max_instances=1,
                      misfire_grace_time=max(int(every_seconds), 1))
    scheduler.start()
    stop = asyncio.Event()
    events = asyncio.create_task(follow_file_events(runner, in_flight, stop))
    try:
        yield scheduler
    finally:
        stop.set()
        scheduler.pause()  # no new tick; APScheduler's shutdown would cancel the one in flight
        async with in_flight:
            scheduler.shutdown(wait=False)
        await events


async def follow_file_events(runner: JobRunner, in_flight: asyncio.Lock, stop: asyncio.Event,
                             *, refresh_seconds: float = 60.0) -> None:
    """Wake the pass over the watched folders when a file under them changes (watchfiles: inotify,
    FSEvents, ReadDirectoryChangesW), so a new export is read in seconds; the tick's scan every
    minute finds it anyway where events do not reach (a network share). The list of watched
    folders is read again every `refresh_seconds` (`watch add` runs in another process)."""
    try:
        from watchfiles import awatch
    except ImportError:  # an install without it: the scan every minute alone
        log.warning("watchfiles is not installed: watched folders are scanned once a minute")
        return
    loop = asyncio.get_running_loop()
    feeds = runner.service.feeds
    while feeds is not None and not stop.is_set():
        paths = [p for p in await feeds.on_change_paths() if p.exists()]
        wake = asyncio.Event()
        timer = loop.call_later(refresh_seconds, wake.set)
        stopping = asyncio.ensure_future(stop.wait())
        stopping.add_done_callback(lambda _: wake.set())
        try:
            if not paths:
                await wake.wait()
                continue
            async for _changes in awatch(*paths, stop_event=wake, debounce=1000):
                async with in_flight:
                    await runner.watch_now()
        except OSError as error:  # a watched folder removed under us, too many watches: the scan goes on
            log.warning("file-system events unavailable (%s); the watched paths are scanned every minute", error)
            await wake.wait()
        finally:
            timer.cancel()
            stopping.cancel()
