"""Times as the store keeps them: UTC, ISO 8601 with a Z, so SQL compares them as strings."""

from __future__ import annotations

from datetime import datetime, timezone


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
