"""Activity in a period, as counts for the pictures: messages per local day and sender, who wrote
most, sources added, open questions answered, and the texts in which people may come up.

Times are UTC ISO strings (`2024-03-05T21:07:00Z`); bounds are inclusive. Days are the owner's
local days: the caller passes the zone's UTC offsets over the period (they change at DST), and
each message is shifted by the offset in force at its instant before its date is taken.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.db import Store



@dataclass(frozen=True)
class SenderDay:
    day: str  # the owner's local date, `YYYY-MM-DD`
    sender: str
    is_owner: bool
    messages: int


@dataclass(frozen=True)
class SenderTotal:
    sender: str  # as the source spelled it (one of its spellings, when they differ in case)
    messages: int
    first: str  # UTC time of their first and last message in the period
    last: str


@dataclass(frozen=True)
class AddedSource:
    kind: str
    name: str


def _not_in(column: str, values: Sequence[str]) -> tuple[str, list[str]]:
    if not values:
        return "1", []
    return f"{column} NOT IN ({','.join('?' * len(values))})", list(values)


def _local_date(offsets: Sequence[tuple[str, int]]) -> tuple[str, list]:
    """SQL for a message's local date, given [(UTC instant, offset in seconds from then on)]
    sorted by instant, the first covering the period's start."""
    modifier = [f"{seconds:+d} seconds" for _, seconds in offsets]
    cases = " ".join("WHEN time < ? THEN ?" for _ in offsets[1:])
    args: list = [v for (start, _), earlier in zip(offsets[1:], modifier) for v in (start, earlier)]
    return (f"date(time, CASE {cases} ELSE ? END)" if cases else "date(time, ?)"), args + [modifier[-1]]


async def messages_per_day(conn: Store, *, since: str, until: str, offsets: Sequence[tuple[str, int]],
                           senders: Sequence[str] | None = None,
                           exclude_platforms: Sequence[str] = ()) -> list[SenderDay]:
    """Messages (not system notices) per local day and sender in [since, until]; only from
    `senders` (any case) when given. Reads the messages_activity index only."""
    day, day_args = _local_date(offsets)
    platforms, args = _not_in("platform", exclude_platforms)
    who = ""
    if senders is not None:
        if not senders:
            return []
        who = f" AND sender COLLATE NOCASE IN ({','.join('?' * len(senders))})"
        args += list(senders)
    rows = await conn.execute_fetchall(
        f"SELECT {day}, sender, is_owner, count(*) FROM messages "
        f"WHERE time >= ? AND time <= ? AND kind != 'system' AND {platforms}{who} GROUP BY 1, 2, 3",
        [*day_args, since, until, *args])
    return [SenderDay(day, sender, bool(owner), n) for day, sender, owner, n in rows]


async def sender_totals(conn: Store, *, since: str | None = None, until: str | None = None,
                        exclude_platforms: Sequence[str] = ()) -> list[SenderTotal]:
    """Messages per sender other than the owner in [since, until] (default: all), most first;
    spellings that differ only in case count as one sender. Reads the messages_activity index only."""
    platforms, args = _not_in("platform", exclude_platforms)
    rows = await conn.execute_fetchall(
        f"SELECT sender, count(*) AS n, min(time), max(time) FROM messages WHERE time >= ? AND time <= ? "
        f"AND is_owner = 0 AND kind != 'system' AND sender != '' AND {platforms} "
        f"GROUP BY sender COLLATE NOCASE ORDER BY n DESC",
        [since or "", until or "\uffff", *args])
    return [SenderTotal(*row) for row in rows]


async def sources_added(conn: Store, *, since: str, until: str,
                        exclude_kinds: Sequence[str] = ()) -> list[AddedSource]:
    """Sources imported in [since, until], oldest first."""
    kinds, args = _not_in("kind", exclude_kinds)
    # imported_at is written as `...+00:00`, the bounds as `...Z`: compare the first 19 characters
    rows = await conn.execute_fetchall(
        f"SELECT kind, name FROM documents WHERE substr(imported_at, 1, 19) >= substr(?, 1, 19) "
        f"AND substr(imported_at, 1, 19) <= substr(?, 1, 19) AND {kinds} ORDER BY imported_at, id",
        [since, until, *args])
    return [AddedSource(kind, name) for kind, name in rows]


async def questions_answered(conn: Store, *, since: str, until: str) -> int:
    rows = await conn.execute_fetchall(
        "SELECT count(*) FROM open_questions WHERE status = 'answered' "
        "AND substr(answered_at, 1, 19) >= substr(?, 1, 19) AND substr(answered_at, 1, 19) <= substr(?, 1, 19)",
        (since, until))
    return rows[0][0]


async def questions_open(conn: Store) -> int:
    rows = await conn.execute_fetchall("SELECT count(*) FROM open_questions WHERE status IN ('open', 'asked')")
    return rows[0][0]


async def texts_between(conn: Store, *, since: str, until: str,
                        exclude_kinds: Sequence[str] = ()) -> list[str]:
    """What was written in [since, until]: chat messages one by one, and the passages of sources
    without messages (journals, notes) dated in the period. For counting who came up; nothing of
    it is shown."""
    kinds, args = _not_in("d.kind", exclude_kinds)
    rows = await conn.execute_fetchall(
        f"SELECT m.text FROM messages m JOIN documents d ON d.id = m.document_id "
        f"WHERE m.time >= ? AND m.time <= ? AND m.kind = 'text' AND {kinds} "
        f"UNION ALL "
        f"SELECT c.text FROM chunks c JOIN documents d ON d.id = c.document_id "
        f"WHERE c.time_start >= ? AND c.time_start <= ? AND {kinds} "
        f"AND NOT EXISTS (SELECT 1 FROM messages x WHERE x.document_id = d.id)",
        [since, until, *args, since, until, *args])
    return [row[0] for row in rows]
