"""Agent runs and their token usage."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.db import Store


@dataclass(frozen=True)
class RunRow:
    id: int
    kind: str
    role: str
    model: str
    started_at: str
    finished_at: str | None
    status: str
    steps: int
    tool_errors: int
    prompt_tokens: int
    completion_tokens: int
    note: str


@dataclass(frozen=True)
class DailyUsage:
    """One role's runs on one day (UTC) and the tokens they used."""

    day: str  # YYYY-MM-DD
    role: str
    runs: int
    prompt_tokens: int
    completion_tokens: int


async def start_run(conn: Store, *, kind: str, role: str, model: str, at: str) -> int:
    cur = await conn.execute(
        "INSERT INTO runs (kind, role, model, started_at) VALUES (?, ?, ?, ?)", (kind, role, model, at))
    return cur.lastrowid


async def finish_run(conn: Store, run_id: int, *, at: str, status: str, steps: int,
                     tool_errors: int, prompt_tokens: int, completion_tokens: int, note: str = "") -> None:
    await conn.execute(
        """UPDATE runs SET finished_at = ?, status = ?, steps = ?, tool_errors = ?,
               prompt_tokens = ?, completion_tokens = ?, note = ? WHERE id = ?""",
        (at, status, steps, tool_errors, prompt_tokens, completion_tokens, note, run_id),
    )


async def get_run(conn: Store, run_id: int) -> RunRow | None:
    async with conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)) as cur:
        row = await cur.fetchone()
    return RunRow(*row) if row else None


async def tokens_since(conn: Store, since: str) -> int:
    async with conn.execute(
        "SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0) FROM runs WHERE started_at >= ?",
        (since,),
    ) as cur:
        (total,) = await cur.fetchone()
    return total


async def usage_by_day(conn: Store, *, days: int) -> list[DailyUsage]:
    """Runs and tokens per day and role, newest day first."""
    async with conn.execute(
        """SELECT substr(started_at, 1, 10) AS day, role, COUNT(*), SUM(prompt_tokens),
                  SUM(completion_tokens)
           FROM runs GROUP BY day, role ORDER BY day DESC, role LIMIT ?""",
        (days * 8,),
    ) as cur:
        return [DailyUsage(*r) for r in await cur.fetchall()]


async def usage_table(conn: Store, *, days: int = 30) -> dict[str, dict[str, dict[str, int]]]:
    """Model tokens per day and role: {day: {role: {"runs", "prompt_tokens", "completion_tokens"}}},
    newest day first (`stats`, `usage` and the CLI's facet: no need to load the agent)."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for used in await usage_by_day(conn, days=days):
        out.setdefault(used.day, {})[used.role] = {"runs": used.runs, "prompt_tokens": used.prompt_tokens,
                                                   "completion_tokens": used.completion_tokens}
    return out


async def set_status(conn: Store, run_id: int, *, status: str, note: str) -> None:
    await conn.execute("UPDATE runs SET status = ?, note = ? WHERE id = ?", (status, note, run_id))


async def latest_run(conn: Store, kind: str) -> RunRow | None:
    async with conn.execute("SELECT * FROM runs WHERE kind = ? ORDER BY id DESC LIMIT 1", (kind,)) as cur:
        row = await cur.fetchone()
    return RunRow(*row) if row else None
