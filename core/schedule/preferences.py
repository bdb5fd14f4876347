"""The owner's schedule preferences: defaults from Settings, overrides kept in the store."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.config import Settings
from core.errors import UserFacingError
from storage import frontend_state
from storage.db import Store

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def parse_time(value: str) -> time:
    try:
        hour, minute = (int(part) for part in value.strip().split(":"))
        return time(hour, minute)
    except ValueError:
        raise UserFacingError(f"not a time: {value!r}", hint="write it as HH:MM, e.g. 19:30") from None


def parse_quiet_hours(value: str) -> tuple[time, time] | None:
    if not value.strip() or value.strip().lower() in {"off", "none"}:
        return None
    try:
        start, end = value.split("-")
    except ValueError:
        raise UserFacingError(f"not a range of hours: {value!r}", hint="write it as 22:00-08:00, or off") from None
    return parse_time(start), parse_time(end)


def parse_zone(value: str) -> ZoneInfo:
    try:
        return ZoneInfo(value.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise UserFacingError(f"unknown time zone {value!r}", hint="use a name like Europe/Lisbon") from None


@dataclass(frozen=True)
class Preferences:
    timezone: str
    question_time: str
    questions_per_day: int
    quiet_hours: str
    report_day: str
    report_time: str
    paused: bool = False

    @property
    def zone(self) -> ZoneInfo:
        return parse_zone(self.timezone)

    @property
    def quiet(self) -> tuple[time, time] | None:
        return parse_quiet_hours(self.quiet_hours)

    def in_quiet_hours(self, moment: time) -> bool:
        quiet = self.quiet
        if quiet is None:
            return False
        start, end = quiet
        return start <= moment < end if start <= end else moment >= start or moment < end

    def describe(self) -> str:
        return (f"time zone: {self.timezone}\nquestion time: {self.question_time}\n"
                f"questions per day: {self.questions_per_day}\nquiet hours: {self.quiet_hours or 'off'}\n"
                f"weekly report: {self.report_day} {self.report_time}\n"
                f"scheduled messages: {'paused' if self.paused else 'on'}")


@dataclass(frozen=True)
class ScheduleDefaults:
    """The schedule before the owner changes anything (from Settings); /settings overrides are stored."""

    timezone: str = "UTC"
    question_time: str = "19:00"
    questions_per_day: int = 1
    quiet_hours: str = "22:00-08:00"
    report_day: str = "sun"
    report_time: str = "18:00"

    @classmethod
    def from_settings(cls, settings: Settings) -> ScheduleDefaults:
        return cls(timezone=settings.timezone, question_time=settings.question_time,
                   questions_per_day=settings.questions_per_day, quiet_hours=settings.quiet_hours,
                   report_day=settings.report_day, report_time=settings.report_time)


_EDITABLE = {"timezone": parse_zone, "question_time": parse_time, "quiet_hours": parse_quiet_hours,
             "report_time": parse_time}
SETTABLE = ("timezone", "question_time", "questions_per_day", "quiet_hours", "report_day", "report_time")


def _validated(key: str, value: str) -> str:
    key = key.strip().lower().replace("-", "_")
    if key not in SETTABLE:
        raise UserFacingError(f"unknown setting {key!r}", hint="one of: " + ", ".join(SETTABLE))
    value = value.strip()
    if key in _EDITABLE:
        _EDITABLE[key](value)
    elif key == "questions_per_day":
        if not value.isdigit() or not 0 <= int(value) <= 12:
            raise UserFacingError(f"not a number of questions: {value!r}", hint="0 to 12 (0 turns them off)")
    elif key == "report_day" and value.lower()[:3] not in WEEKDAYS:
        raise UserFacingError(f"not a weekday: {value!r}", hint="mon, tue, ... sun")
    return value.lower()[:3] if key == "report_day" else value


class PreferenceStore:
    """Reads and changes preferences; every change is committed at once."""

    def __init__(self, conn: Store, defaults: ScheduleDefaults) -> None:
        self.conn = conn
        self.defaults = defaults

    async def load(self) -> Preferences:
        stored = await frontend_state.get_preferences(self.conn)
        s = self.defaults
        return Preferences(
            timezone=stored.get("timezone", s.timezone),
            question_time=stored.get("question_time", s.question_time),
            questions_per_day=int(stored.get("questions_per_day", s.questions_per_day)),
            quiet_hours=stored.get("quiet_hours", s.quiet_hours),
            report_day=stored.get("report_day", s.report_day),
            report_time=stored.get("report_time", s.report_time),
            paused=stored.get("paused", "0") == "1",
        )

    async def set(self, key: str, value: str) -> Preferences:
        """Change one setting after checking it; raises UserFacingError with a hint when it is wrong."""
        value = _validated(key, value)
        async with self.conn.transaction():
            await frontend_state.set_preference(self.conn, key.strip().lower().replace("-", "_"), value)
        return await self.load()

    async def set_paused(self, paused: bool) -> None:
        async with self.conn.transaction():
            await frontend_state.set_preference(self.conn, "paused", "1" if paused else "0")

