"""Times as the store keeps them: UTC, ISO 8601 with a Z, so SQL compares them as strings."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone

#: what "now" is, injectable so tests can set it
Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def utc_iso(moment: datetime | None) -> str | None:
    """`2024-03-05T21:07:00Z` (None stays None). An f-string: strftime was a tenth of a chat
    import's time."""
    if moment is None:
        return None
    u = moment.astimezone(timezone.utc)
    return f"{u.year:04d}-{u.month:02d}-{u.day:02d}T{u.hour:02d}:{u.minute:02d}:{u.second:02d}Z"


def parse_utc(value: str | None) -> datetime | None:
    """A stored time back as an aware datetime (None stays None)."""
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def utc_iso_precise(moment: datetime) -> str:
    """`2024-03-05T21:07:00.123456Z`: for records written many times a second (runs, profile
    edits, sessions) whose order matters."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def as_sent(value: str, utc_offset_minutes: int | None) -> datetime:
    """A stored message time in its sender's own wall-clock time (their UTC offset, when the
    export recorded it; else UTC)."""
    moment = parse_utc(value)
    if utc_offset_minutes is not None:
        moment = moment.astimezone(timezone(timedelta(minutes=utc_offset_minutes)))
    return moment
