"""Scheduled jobs as plain async functions, and the runner that decides which slot is due.

A job's slots are local wall-clock times. The runner settles each slot exactly once (run, skipped
or missed) and records it in the store, so a restart never repeats a slot and a slot missed while
the process was down is made up once on start if it is recent enough (the grace period).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from core.chat.prompts import PromptBook
from core.errors import UserFacingError
from core.biographer.gate import AgentGate
from core.times import utc_iso
from core.types import Answer
from core.schedule.preferences import WEEKDAYS, Preferences, parse_time
from storage import frontend_state

if TYPE_CHECKING:
    from core.service.schedule import ScheduleFacet

log = logging.getLogger(__name__)

QUESTION_SPACING = timedelta(hours=3)  # between a day's prompts when more than one is allowed
#: what an import adds is read into the ledger a few windows per tick (a minute), so the other jobs
#: and the owner's chat are not held up; after a failure or the token cap it waits this long
LEDGER_CATCH_UP_WINDOWS = 5
LEDGER_CATCH_UP_PAUSE = timedelta(minutes=30)


class Notifier(Protocol):
    """Sends scheduled messages to the owner on every configured front end."""

    async def send_text(self, text: str) -> None: ...

    async def send_answer(self, answer: Answer) -> None: ...

    async def send_picture(self, png: bytes, caption: str, *, name: str = "picture.png") -> None:
        """An image, with `caption` (the same in words, for screen readers) under it."""
        ...

    async def send_question(self, question_id: str, text: str, *, sent_at: datetime) -> None:
        """Send a question prompt and record it (PromptBook.record) so a reply answers it."""
        ...


# ---------------------------------------------------------------- the jobs

async def question_prompt(service: ScheduleFacet, *, preferences: Preferences, prompts: PromptBook,
                          notifier: Notifier, now: datetime) -> str:
    """Ask the most valuable open question, unless paused, quiet, over today's limit or nothing is open."""
    local = now.astimezone(preferences.zone)
    if preferences.paused:
        return "paused"
    if preferences.questions_per_day <= 0:
        return "off"
    if preferences.in_quiet_hours(local.time()):
        return "quiet hours"
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if await prompts.sent_since(midnight) >= preferences.questions_per_day:
        return "daily limit"
    question = await service.biographer.next_question()
    if question is None:
        return "nothing open"
    await notifier.send_question(str(question.id), question.text, sent_at=now)
    await service.biographer.mark_asked(question.id, now)
    return "sent"


async def weekly_report(service: ScheduleFacet, *, preferences: Preferences, notifier: Notifier,
                        gate: AgentGate, now: datetime | None = None) -> str:
    """The week at a glance (a picture from stored data, so it comes even when the model is down),
    then the pattern report of the last seven days."""
    if preferences.paused:
        return "paused"
    try:
        picture = await service.pictures.make("week", until=now)
    except Exception:  # the picture is a bonus: it must never cost the owner the report
        log.exception("the week's picture failed; sending the report without it")
    else:
        await notifier.send_picture(picture.png, picture.caption, name=picture.name)
    async with gate.turn():
        answer = await service.report(days=7)
    await notifier.send_answer(answer)
    return "sent"


async def nightly_analysis(service: ScheduleFacet, *, gate: AgentGate) -> str:
    """Analyse what is new, then consolidate the profile."""
    async with gate.turn():
        await service.biographer.analyze()
        changed = await service.biographer.consolidate()
    return "consolidated" if changed else "analysed"


async def ledger_extraction(service: ScheduleFacet, *, gate: AgentGate, max_windows: int | None = None) -> str:
    """Read new conversations into the ledger (the model proposes, code checks, the ledger keeps)."""
    if service.llm is None:
        return "no model"
    async with gate.turn():
        result = await service.extract_ledger(max_windows=max_windows)
    return result.summary()


async def ledger_reminders(service: ScheduleFacet, *, preferences: Preferences, notifier: Notifier, now: datetime) -> str:
    """The owner's promises due today or lately overdue, and follow-ups for what others owe past its
    date: each once (recorded before it is sent), never in quiet hours or while paused (they wait)."""
    if preferences.paused:
        return "paused"
    local = now.astimezone(preferences.zone)
    if preferences.in_quiet_hours(local.time()):
        return "quiet hours"
    batch = await service.ledger_reminders(today=local.date())
    if not batch:
        return "nothing due"
    await service.record_reminders(batch, at=now)
    try:
        await notifier.send_text(batch.text)
    except BaseException:
        await service.unrecord_reminders(batch)  # not sent: the next slot tries again
        raise
    return f"sent {len(batch)}"


async def mail_sync(service: ScheduleFacet, *, notifier: Notifier) -> str:
    """Read every mail account's new mail; one line to the owner when it brought something, each
    account's failure one line in the outcome (and in `doctor`), the other accounts going on."""
    from core.feeds.book import summary

    feeds = service.feeds
    if feeds is None or not await feeds.mail_accounts():
        return "no account"
    runs = await feeds.sync_mail()
    for run in runs:
        if run.error:
            log.warning("mail sync: %s", run.error)
    text = summary(runs)
    if text:
        await notifier.send_text(f"From your mail: {text}.")
    return "; ".join([text or "nothing new", *(r.error for r in runs if r.error)])


async def watch_pass(service: ScheduleFacet, *, notifier: Notifier) -> str | None:
    """Read the watched paths that changed or are due; one line to the owner for the whole pass
    when it added something ("12 new messages in 3 chats"), never one per file. None when no path
    was read."""
    from core.feeds.book import summary

    if service.feeds is None:
        return None
    runs = await service.feeds.watch_pass()
    if not runs:
        return None
    text = summary(runs)
    if text:
        await notifier.send_text(f"From the folders you watch: {text}.")
    problems = [r.problem for r in runs if r.problem]
    return "; ".join([text or "nothing new", *problems])


async def daily_backup(service: ScheduleFacet, *, directory: Path, keep: int, now: datetime) -> str:
    """A consistent copy of the store, keeping the newest `keep` (taken between writes)."""
    path = await service.backup(directory, stamp=now, keep=keep)
    return f"saved {path.name}"


# ---------------------------------------------------------------- slots and the runner

def latest_slot(now_local: datetime, times: list[time], *, weekday: int | None = None) -> datetime | None:
    """The most recent local slot at or before `now_local` (within the last eight days)."""
    for back in range(8):
        day = (now_local - timedelta(days=back)).date()
        if weekday is not None and day.weekday() != weekday:
            continue
        for at in sorted(times, reverse=True):
            slot = datetime.combine(day, at, tzinfo=now_local.tzinfo)
            if slot <= now_local:
                return slot
    return None


def next_slot(now_local: datetime, times: list[time], *, weekday: int | None = None) -> datetime | None:
    """The first local slot after `now_local` (within the next eight days)."""
    for ahead in range(8):
        day = (now_local + timedelta(days=ahead)).date()
        if weekday is not None and day.weekday() != weekday:
            continue
        for at in sorted(times):
            slot = datetime.combine(day, at, tzinfo=now_local.tzinfo)
            if slot > now_local:
                return slot
    return None


def question_times(preferences: Preferences) -> list[time]:
    first = datetime.combine(datetime(2000, 1, 1), parse_time(preferences.question_time))
    count = max(preferences.questions_per_day, 1)
    return sorted({(first + i * QUESTION_SPACING).time() for i in range(count)})


@dataclass(frozen=True)
class Job:
    name: str
    times: Callable[[Preferences], tuple[list[time], int | None]]  # local times, and a weekday or None
    run: Callable[[Preferences, datetime], Awaitable[str]]

    def latest(self, preferences: Preferences, now_local: datetime) -> datetime | None:
        times, weekday = self.times(preferences)
        return latest_slot(now_local, times, weekday=weekday)

    def upcoming(self, preferences: Preferences, now_local: datetime) -> datetime | None:
        times, weekday = self.times(preferences)
        return next_slot(now_local, times, weekday=weekday)


class JobRunner:
    """Runs every job whose latest slot is not yet settled; `tick()` is called every minute."""

    def __init__(self, *, service: ScheduleFacet, notifier: Notifier, gate: AgentGate,
                 backup_dir: Path, backup_keep: int,
                 analysis_time: str, backup_time: str, grace: timedelta, reminder_time: str = "09:00",
                 mail_time: str = "02:30",
                 clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> None:
        self.service = service
        self.conn = service.memory.conn
        self.preferences = service.preferences
        prompts = service.prompts
        self.grace = grace
        self.clock = clock
        analysis_at, backup_at = parse_time(analysis_time), parse_time(backup_time)
        reminder_at = parse_time(reminder_time)
        self.gate = gate
        self.notifier = notifier
        self._catch_up_after = datetime.min.replace(tzinfo=timezone.utc)
        self.jobs = [
            Job("question_prompt", lambda p: (question_times(p), None),
                lambda p, now: question_prompt(service, preferences=p, prompts=prompts,
                                               notifier=notifier, now=now)),
            Job("weekly_report", lambda p: ([parse_time(p.report_time)], WEEKDAYS.index(p.report_day)),
                lambda p, now: weekly_report(service, preferences=p, notifier=notifier, gate=gate, now=now)),
            Job("nightly_analysis", lambda p: ([analysis_at], None),
                lambda p, now: nightly_analysis(service, gate=gate)),
            Job("backup", lambda p: ([backup_at], None),
                lambda p, now: daily_backup(service, directory=backup_dir, keep=backup_keep, now=now)),
            Job("ledger_extraction", lambda p: ([analysis_at], None),
                lambda p, now: ledger_extraction(service, gate=gate)),
            Job("ledger_reminders", lambda p: ([reminder_at], None),
                lambda p, now: ledger_reminders(service, preferences=p, notifier=notifier, now=now)),
            Job("mail_sync", lambda p: ([parse_time(mail_time)], None),
                lambda p, now: mail_sync(service, notifier=notifier)),
        ]

    async def tick(self) -> dict[str, str]:
        """Save what waits in the inbox, then settle every due slot; returns {job: outcome} for the
        slots settled now."""
        await self.service.forwards.replay_inbox()
        preferences = await self.preferences.load()
        now = self.clock().astimezone(preferences.zone)
        settled: dict[str, str] = {}
        for job in self.jobs:
            slot = job.latest(preferences, now)
            if slot is None:
                continue
            last = await frontend_state.last_slot(self.conn, job.name)
            if last is not None and last >= utc_iso(slot):
                continue
            outcome = "missed" if now - slot > self.grace else await self._run(job, preferences, now)
            async with self.conn.transaction():
                await frontend_state.settle_slot(self.conn, job.name, utc_iso(slot), outcome)
            settled[job.name] = outcome
            log.info("job %s slot %s: %s", job.name, slot.isoformat(), outcome)
        settled.update(await self.watch_now())
        settled.update(await self._ledger_catch_up(preferences, now))
        return settled

    async def watch_now(self) -> dict[str, str]:
        """One pass over the watched paths (every tick; sooner when a file-system event wakes it)."""
        try:
            outcome = await watch_pass(self.service, notifier=self.notifier)
        except Exception:  # the scheduler is an edge: log it, keep the other jobs running
            log.exception("the pass over the watched paths failed")
            outcome = "failed"
        if outcome is None:
            return {}
        log.info("watch pass: %s", outcome)
        return {"watch": outcome}

    async def _ledger_catch_up(self, preferences: Preferences, now: datetime) -> dict[str, str]:
        """Conversations imported since the last tick are read into the ledger now, a few windows a tick."""
        if self.service.llm is None or now < self._catch_up_after or not await self.service.ledger_pending():
            return {}
        results = []

        async def extract(_preferences: Preferences, _now: datetime) -> str:
            async with self.gate.turn():
                results.append(await self.service.extract_ledger(max_windows=LEDGER_CATCH_UP_WINDOWS))
            return results[-1].summary()

        outcome = await self._run(Job("ledger_catch_up", lambda p: ([], None), extract), preferences, now)
        if not results or results[-1].capped:
            self._catch_up_after = now + LEDGER_CATCH_UP_PAUSE
        log.info("job ledger_catch_up: %s", outcome)
        return {"ledger_catch_up": outcome}

    async def upcoming(self) -> dict[str, datetime | None]:
        """When each job runs next, in the owner's zone (for `biographer doctor`)."""
        preferences = await self.preferences.load()
        now = self.clock().astimezone(preferences.zone)
        return {job.name: job.upcoming(preferences, now) for job in self.jobs}

    async def _run(self, job: Job, preferences: Preferences, now: datetime) -> str:
        try:
            return await job.run(preferences, now)
        except UserFacingError as error:
            log.warning("job %s failed: %s", job.name, error)
            return f"failed: {error.message}"
        except Exception:  # the scheduler is an edge: log it, settle the slot, keep the others running
            log.exception("job %s failed", job.name)
            return "failed"
