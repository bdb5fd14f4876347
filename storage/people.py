"""The people repository: canonical names and aliases, filled from message senders, merged by
the owner ("Teo", "Teo Ramos" and "+44 7700 900124" are one person)."""

from __future__ import annotations

from dataclasses import dataclass

import aiosqlite

from core.errors import UserFacingError
from storage.db import transaction


@dataclass(frozen=True)
class Person:
    name: str
    aliases: tuple[str, ...]
    messages: int


@dataclass(frozen=True)
class UnmatchedSender:
    sender: str
    platform: str
    messages: int


async def sync_from_messages(conn: aiosqlite.Connection) -> int:
    """Every sender not yet known becomes a person of their own; returns how many were added."""
    async with transaction(conn):
        cursor = await conn.execute(
            "INSERT OR IGNORE INTO people (name) SELECT DISTINCT sender FROM messages "
            "WHERE sender != '' AND kind != 'system' "
            "AND sender NOT IN (SELECT alias FROM person_aliases)")
        added = cursor.rowcount
        await conn.execute(
            "INSERT OR IGNORE INTO person_aliases (alias, person_id) "
            "SELECT p.name, p.id FROM people p WHERE p.name NOT IN (SELECT alias FROM person_aliases)")
    return max(added, 0)


async def list_people(conn: aiosqlite.Connection) -> list[Person]:
    rows = await conn.execute_fetchall(
        "SELECT p.id, p.name, group_concat(a.alias, char(31)) FROM people p "
        "LEFT JOIN person_aliases a ON a.person_id = p.id GROUP BY p.id")
    counts = dict(await conn.execute_fetchall(
        "SELECT sender, count(*) FROM messages WHERE kind != 'system' GROUP BY sender COLLATE NOCASE"))
    folded = {name.lower(): n for name, n in counts.items()}
    people = []
    for _, name, joined in rows:
        aliases = tuple(sorted((joined or name).split("\x1f"), key=str.lower))
        people.append(Person(name, aliases, sum(folded.get(a.lower(), 0) for a in aliases)))
    return sorted(people, key=lambda p: (-p.messages, p.name.lower()))


async def _person_id(conn: aiosqlite.Connection, name: str) -> int:
    rows = await conn.execute_fetchall(
        "SELECT person_id FROM person_aliases WHERE alias = ?", (name.strip(),))
    if not rows:
        raise UserFacingError(f"no person is known as {name!r}",
                              hint="`biographer people` lists everyone with their names")
    return rows[0][0]


async def merge(conn: aiosqlite.Connection, keep: str, other: str) -> Person:
    """`other`'s names become names of `keep`'s person; the canonical name stays `keep`'s."""
    keep_id = await _person_id(conn, keep)
    other_id = await _person_id(conn, other)
    if keep_id != other_id:
        async with transaction(conn):
            await conn.execute("UPDATE person_aliases SET person_id = ? WHERE person_id = ?",
                               (keep_id, other_id))
            await conn.execute("DELETE FROM people WHERE id = ?", (other_id,))
    return next(p for p in await list_people(conn)
                if keep.lower() in (a.lower() for a in p.aliases))


async def names_of(conn: aiosqlite.Connection, name: str) -> list[str]:
    """All names of the person known as `name` (for search's person filter); [name] if unknown."""
    rows = await conn.execute_fetchall(
        "SELECT b.alias FROM person_aliases a JOIN person_aliases b ON b.person_id = a.person_id "
        "WHERE a.alias = ? ORDER BY b.alias", (name.strip(),))
    return [r[0] for r in rows] or [name]


async def unmatched_senders(conn: aiosqlite.Connection, *, limit: int = 50) -> list[UnmatchedSender]:
    """Senders never recognised as the owner, most messages first: the owner's own names hide
    here when BIOGRAPHER_OWNER_ALIASES misses them."""
    rows = await conn.execute_fetchall(
        "SELECT sender, platform, count(*) AS n FROM messages WHERE sender != '' AND kind != 'system' "
        "GROUP BY sender, platform HAVING max(is_owner) = 0 ORDER BY n DESC, sender LIMIT ?", (limit,))
    return [UnmatchedSender(sender, platform, n) for sender, platform, n in rows]


async def sender_identities(conn: aiosqlite.Connection) -> list[tuple[str, str | None]]:
    """Every distinct (sender, sender id) of the stored messages, system lines excepted."""
    rows = await conn.execute_fetchall(
        "SELECT DISTINCT sender, sender_id FROM messages WHERE kind != 'system'")
    return [(sender, sender_id) for sender, sender_id in rows]


async def set_owner_flags(conn: aiosqlite.Connection, owners: list[tuple[str, str | None]]) -> int:
    """Mark the messages of these (sender, sender id) pairs as the owner's and every other one
    as not, except flags the source itself gave; returns how many messages changed. Runs inside
    the caller's transaction."""
    await conn.execute("CREATE TEMP TABLE IF NOT EXISTS owner_identities "
                       "(sender TEXT NOT NULL, sender_id TEXT NOT NULL)")
    await conn.execute("DELETE FROM owner_identities")
    await conn.executemany("INSERT INTO owner_identities VALUES (?, ?)",
                           [(sender, sender_id or "") for sender, sender_id in owners])
    cursor = await conn.execute(
        """UPDATE messages SET is_owner = new.flag
           FROM (SELECT m.id AS id,
                        CASE WHEN m.owner_by_format = 1 OR o.sender IS NOT NULL THEN 1 ELSE 0 END AS flag
                 FROM messages m LEFT JOIN owner_identities o
                   ON o.sender = m.sender AND o.sender_id = ifnull(m.sender_id, '')
                 WHERE m.kind != 'system') AS new
           WHERE messages.id = new.id AND messages.is_owner != new.flag""")
    await conn.execute("DELETE FROM owner_identities")
    return cursor.rowcount
