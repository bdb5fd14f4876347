"""The chat with the owner (text only) and how far analysis has read each document."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from storage.disclosure import effective_policy_sql

if TYPE_CHECKING:
    from storage.db import Store


async def add_turn(conn: Store, *, conversation: str, role: str, text: str, at: str) -> None:
    await conn.execute("INSERT INTO chat_turns (conversation, role, text, at) VALUES (?, ?, ?, ?)",
                       (conversation, role, text, at))


@dataclass(frozen=True)
class ChatTurn:
    role: str  # "user" (the owner) or "assistant"
    text: str


async def tail(conn: Store, conversation: str, *, limit: int) -> list[ChatTurn]:
    """The last `limit` turns of a conversation, oldest first."""
    async with conn.execute(
        "SELECT role, text FROM chat_turns WHERE conversation = ? ORDER BY id DESC LIMIT ?",
        (conversation, limit),
    ) as cur:
        rows = [ChatTurn(*r) for r in await cur.fetchall()]
    return rows[::-1]


@dataclass(frozen=True)
class PendingChunk:
    """A passage analysis has not read yet."""

    document_id: int
    char_start: int
    char_end: int
    text: str
    time_start: str | None
    time_end: str | None
    document: str  # the document's name
    kind: str


@dataclass(frozen=True)
class PeriodDocument:
    id: int
    name: str
    kind: str
    time_start: str | None
    time_end: str | None
    policy: str  # what may leave the machine of it (core/privacy/disclosure.py)


def _disclosed(only: bool) -> str:
    """A condition keeping the documents whose policy lets their text leave (core/privacy/disclosure.py)."""
    return f"AND {effective_policy_sql('d')} = 'allow'" if only else ""


async def pending_chunks(conn: Store, *, exclude_kinds: tuple[str, ...],
                         limit: int, disclosed_only: bool = False) -> list[PendingChunk]:
    """Chunks analysis has not read yet, oldest material first (with `disclosed_only`, of sources
    whose text may leave the machine)."""
    marks = ",".join("?" * len(exclude_kinds)) or "''"
    async with conn.execute(
        f"""SELECT c.document_id, c.char_start, c.char_end, c.text, c.time_start, c.time_end, d.name, d.kind
            FROM chunks c JOIN documents d ON d.id = c.document_id
            LEFT JOIN analysis_progress p ON p.document_id = c.document_id
            WHERE c.char_end > COALESCE(p.analyzed_to, 0) AND d.kind NOT IN ({marks}) {_disclosed(disclosed_only)}
            ORDER BY COALESCE(d.time_start, d.imported_at), d.id, c.char_start LIMIT ?""",
        (*exclude_kinds, limit),
    ) as cur:
        return [PendingChunk(*r) for r in await cur.fetchall()]


async def count_pending_chunks(conn: Store, *, exclude_kinds: tuple[str, ...],
                               disclosed_only: bool = False) -> int:
    marks = ",".join("?" * len(exclude_kinds)) or "''"
    async with conn.execute(
        f"""SELECT COUNT(*) FROM chunks c JOIN documents d ON d.id = c.document_id
            LEFT JOIN analysis_progress p ON p.document_id = c.document_id
            WHERE c.char_end > COALESCE(p.analyzed_to, 0) AND d.kind NOT IN ({marks}) {_disclosed(disclosed_only)}""",
        exclude_kinds,
    ) as cur:
        (count,) = await cur.fetchone()
    return count


async def mark_analyzed(conn: Store, document_id: int, analyzed_to: int, *,
                        run_id: int | None, at: str) -> None:
    await conn.execute(
        """INSERT INTO analysis_progress (document_id, analyzed_to, run_id, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT(document_id) DO UPDATE SET analyzed_to = MAX(analyzed_to, excluded.analyzed_to),
               run_id = excluded.run_id, updated_at = excluded.updated_at""",
        (document_id, analyzed_to, run_id, at),
    )


async def documents_between(conn: Store, since: str, until: str) -> list[PeriodDocument]:
    """Documents with material in a period."""
    async with conn.execute(
        f"""SELECT id, name, kind, time_start, time_end, {effective_policy_sql('d')} FROM documents d
           WHERE COALESCE(time_end, imported_at) >= ? AND COALESCE(time_start, imported_at) <= ?
           ORDER BY COALESCE(time_start, imported_at) LIMIT 200""",
        (since, until),
    ) as cur:
        return [PeriodDocument(*r) for r in await cur.fetchall()]


async def latest_conversation(conn: Store, prefix: str) -> str | None:
    """The conversation, among those whose key starts with `prefix`, that was spoken in last."""
    async with conn.execute(
        "SELECT conversation FROM chat_turns WHERE substr(conversation, 1, ?) = ? ORDER BY id DESC LIMIT 1",
        (len(prefix), prefix),
    ) as cur:
        row = await cur.fetchone()
    return row[0] if row else None
