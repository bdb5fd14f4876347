"""The owner's disclosure policies: what of each source may leave the machine (core/privacy/disclosure.py
says what each policy means). A source's own policy wins over its kind's; neither: allow."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.db import Store


ALLOW = "allow"


def effective_policy_sql(document: str = "d") -> str:
    """SQL for the policy in force for the documents row aliased `document`."""
    return (f"COALESCE((SELECT policy FROM source_policies WHERE document_id = {document}.id), "
            f"(SELECT policy FROM kind_policies WHERE kind = {document}.kind), '{ALLOW}')")


@dataclass(frozen=True)
class PolicyRow:
    scope: str  # "source" or "kind"
    target: str  # the document id (as text) or the kind
    policy: str
    set_at: str
    name: str = ""  # the source's name


@dataclass(frozen=True)
class ChunkDisclosure:
    """What the policy of a chunk's source says, with what a descriptor is made of."""

    chunk_id: int
    document_id: int
    policy: str
    kind: str
    speakers: tuple[str, ...]
    time_start: str | None


async def set_source_policy(conn: Store, document_id: int, policy: str, *, at: str) -> None:
    await conn.execute(
        "INSERT INTO source_policies (document_id, policy, set_at) VALUES (?, ?, ?) "
        "ON CONFLICT(document_id) DO UPDATE SET policy = excluded.policy, set_at = excluded.set_at",
        (document_id, policy, at))


async def set_kind_policy(conn: Store, kind: str, policy: str, *, at: str) -> None:
    await conn.execute(
        "INSERT INTO kind_policies (kind, policy, set_at) VALUES (?, ?, ?) "
        "ON CONFLICT(kind) DO UPDATE SET policy = excluded.policy, set_at = excluded.set_at",
        (kind, policy, at))


async def clear_source_policy(conn: Store, document_id: int) -> bool:
    cursor = await conn.execute("DELETE FROM source_policies WHERE document_id = ?", (document_id,))
    return cursor.rowcount > 0


async def clear_kind_policy(conn: Store, kind: str) -> bool:
    cursor = await conn.execute("DELETE FROM kind_policies WHERE kind = ?", (kind,))
    return cursor.rowcount > 0


async def list_policies(conn: Store) -> list[PolicyRow]:
    """Kinds first, then sources by number."""
    async with conn.execute("SELECT kind, policy, set_at FROM kind_policies ORDER BY kind") as cur:
        rows = [PolicyRow("kind", r[0], r[1], r[2]) for r in await cur.fetchall()]
    async with conn.execute(
        "SELECT p.document_id, p.policy, p.set_at, d.name FROM source_policies p "
        "JOIN documents d ON d.id = p.document_id ORDER BY p.document_id") as cur:
        rows += [PolicyRow("source", str(r[0]), r[1], r[2], r[3]) for r in await cur.fetchall()]
    return rows


async def document_policies(conn: Store, document_ids: Sequence[int]) -> dict[int, str]:
    """The policy in force for each of `document_ids` (those that exist)."""
    out: dict[int, str] = {}
    ids = list(dict.fromkeys(document_ids))
    for i in range(0, len(ids), 500):
        part = ids[i:i + 500]
        async with conn.execute(f"SELECT d.id, {effective_policy_sql('d')} FROM documents d "
                                f"WHERE d.id IN ({','.join('?' * len(part))})", part) as cur:
            out.update({r[0]: r[1] for r in await cur.fetchall()})
    return out


async def chunk_disclosures(conn: Store, chunk_ids: Sequence[int]) -> dict[int, ChunkDisclosure]:
    out: dict[int, ChunkDisclosure] = {}
    ids = list(chunk_ids)
    for i in range(0, len(ids), 500):
        part = ids[i:i + 500]
        async with conn.execute(
            f"SELECT c.id, c.document_id, {effective_policy_sql('d')}, d.kind, c.speakers, "
            f"COALESCE(c.time_start, d.time_start) FROM chunks c JOIN documents d ON d.id = c.document_id "
            f"WHERE c.id IN ({','.join('?' * len(part))})", part) as cur:
            for r in await cur.fetchall():
                out[r[0]] = ChunkDisclosure(r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), r[5])
    return out


async def documents_of(conn: Store, *, document_id: int | None = None,
                       kind: str | None = None) -> list[int]:
    """The documents a policy on a source or on a kind reaches."""
    if document_id is not None:
        sql, args = "SELECT id FROM documents WHERE id = ?", (document_id,)
    else:
        sql, args = "SELECT id FROM documents WHERE kind = ?", (kind,)
    async with conn.execute(sql, args) as cur:
        return [r[0] for r in await cur.fetchall()]


async def matches_policy(conn: Store, match: str, policy: str) -> bool:
    """Whether an FTS5 expression matches a chunk of a source under `policy` (found locally)."""
    async with conn.execute(
        f"SELECT 1 FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id "
        f"WHERE chunks_fts MATCH ? AND {effective_policy_sql('d')} = ? LIMIT 1", (match, policy)) as cur:
        return await cur.fetchone() is not None


async def last_change(conn: Store) -> str:
    """When a policy was last set (changes whenever one is set; a cleared one is not counted)."""
    async with conn.execute("SELECT MAX(set_at) FROM (SELECT set_at FROM source_policies "
                            "UNION ALL SELECT set_at FROM kind_policies)") as cur:
        return (await cur.fetchone())[0] or ""


async def count_policies(conn: Store) -> dict[str, int]:
    """Sources under each policy (allow included)."""
    async with conn.execute(f"SELECT {effective_policy_sql('d')} AS p, COUNT(*) FROM documents d GROUP BY p") as cur:
        return {r[0]: r[1] for r in await cur.fetchall()}
