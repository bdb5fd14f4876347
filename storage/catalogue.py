"""What the store holds, in brief: the agent writes it into its tool schemas and empty results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.db import Store


@dataclass(frozen=True)
class Fingerprint:
    """Changes whenever a source is added or forgotten."""

    documents: int
    highest_id: int


@dataclass(frozen=True)
class TimeSpan:
    first: str | None  # UTC ISO; None when nothing is dated
    last: str | None


async def fingerprint(conn: Store) -> Fingerprint:
    async with conn.execute("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM documents") as cur:
        return Fingerprint(*await cur.fetchone())


async def kinds(conn: Store) -> list[str]:
    async with conn.execute("SELECT DISTINCT kind FROM documents ORDER BY kind") as cur:
        return [row[0] for row in await cur.fetchall()]


async def time_span(conn: Store) -> TimeSpan:
    """The oldest and newest dated material."""
    async with conn.execute(
        "SELECT MIN(time_start), MAX(COALESCE(time_end, time_start)) FROM documents WHERE time_start IS NOT NULL"
    ) as cur:
        return TimeSpan(*await cur.fetchone())
