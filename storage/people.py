"""The people repository: canonical names and aliases, filled from message senders, merged by
the owner ("Teo", "Teo Ramos" and "+44 7700 900124" are one person)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.errors import UserFacingError
from storage.db import Store


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


@dataclass(frozen=True)
class Appearance:
    """How a person appears in one source."""

    document_id: int
    document: str
    messages: int
    first: str | None  # UTC ISO
    last: str | None


async def appearances(conn: Store, names: tuple[str, ...]) -> list[Appearance]:
    """The sources where any of `names` wrote, with counts and first and last times."""
    if not names:
        return []
    marks = ",".join("?" * len(names))
    async with conn.execute(
            f"SELECT d.id, d.name, COUNT(*), MIN(m.time), MAX(m.time) FROM messages m "
            f"JOIN documents d ON d.id = m.document_id WHERE m.sender IN ({marks}) "
            f"GROUP BY d.id ORDER BY MAX(m.time) DESC", names) as cur:
        return [Appearance(*row) for row in await cur.fetchall()]


async def sync_from_messages(conn: Store) -> int:
    """Every sender not yet known becomes a person of their own; returns how many were added."""
    async with conn.transaction():
        cursor = await conn.execute(
            "INSERT OR IGNORE INTO people (name) SELECT DISTINCT sender FROM messages "
            "WHERE sender != '' AND kind != 'system' "
            "AND sender NOT IN (SELECT alias FROM person_aliases)")
        added = cursor.rowcount
        await conn.execute(
            "INSERT OR IGNORE INTO person_aliases (alias, person_id) "
            "SELECT p.name, p.id FROM people p WHERE p.name NOT IN (SELECT alias FROM person_aliases)")
    return max(added, 0)


#: Names importers give a sender they could not name (a Slack integration, a cue without a
#: speaker, an e-mail without From, a WhatsApp number without a contact): a placeholder, not a person.
PLACEHOLDER_SENDERS = frozenset({"unknown", "unknown speaker", "unknown sender", "someone", ""})


def is_placeholder(name: str) -> bool:
    folded = name.strip().lower()
    return folded in PLACEHOLDER_SENDERS or folded.startswith("unknown (")


async def list_people(conn: Store) -> list[Person]:
    """The people the owner talks to, most messages first: senders of words (not notices), the
    owner and placeholders left out, so the list and the people picture hold people."""
    rows = await conn.execute_fetchall(
        "SELECT p.id, p.name, group_concat(a.alias, char(31)) FROM people p "
        "LEFT JOIN person_aliases a ON a.person_id = p.id GROUP BY p.id")
    counts = dict(await conn.execute_fetchall(
        "SELECT sender, count(*) FROM messages WHERE kind != 'system' AND is_owner = 0 "
        "GROUP BY sender COLLATE NOCASE"))
    folded = {name.lower(): n for name, n in counts.items()}
    people = []
    for _, name, joined in rows:
        aliases = tuple(sorted((joined or name).split("\x1f"), key=str.lower))
        messages = sum(folded.get(a.lower(), 0) for a in aliases)
        if messages and not is_placeholder(name):
            people.append(Person(name, aliases, messages))
    return sorted(people, key=lambda p: (-p.messages, p.name.lower()))


async def _person_id(conn: Store, name: str) -> int:
    rows = await conn.execute_fetchall(
        "SELECT person_id FROM person_aliases WHERE alias = ?", (name.strip(),))
    if not rows:
        raise UserFacingError(f"no person is known as {name!r}",
                              hint="`biographer people` lists everyone with their names")
    return rows[0][0]


async def merge(conn: Store, keep: str, other: str) -> Person:
    """`other`'s names become names of `keep`'s person; the canonical name stays `keep`'s. An
    `other` no source uses (a nickname, a maiden name) is simply added as one more name."""
    keep_id = await _person_id(conn, keep)
    known = await conn.execute_fetchall("SELECT person_id FROM person_aliases WHERE alias = ?", (other.strip(),))
    async with conn.transaction():
        if not known:
            await conn.execute("INSERT INTO person_aliases (alias, person_id) VALUES (?, ?)",
                               (other.strip(), keep_id))
        elif known[0][0] != keep_id:
            await conn.execute("UPDATE person_aliases SET person_id = ? WHERE person_id = ?",
                               (keep_id, known[0][0]))
            await conn.execute("DELETE FROM people WHERE id = ?", (known[0][0],))
    return next(p for p in await list_people(conn)
                if keep.lower() in (a.lower() for a in p.aliases))


async def names_of(conn: Store, name: str) -> list[str]:
    """All names of the person known as `name` (for search's person filter): by any of their
    names, else by a first name, a surname or the start of one ("Maya", "Cos" for "Maya Costa").
    Raises when a partial name fits several people; [name] if it fits no one."""
    name = name.strip()
    rows = await conn.execute_fetchall(
        "SELECT b.alias FROM person_aliases a JOIN person_aliases b ON b.person_id = a.person_id "
        "WHERE a.alias = ? ORDER BY b.alias", (name,))
    if rows:
        return [r[0] for r in rows]
    pattern = "% " + name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    matches = await conn.execute_fetchall(
        "SELECT a.person_id, p.name FROM person_aliases a JOIN people p ON p.id = a.person_id "
        "WHERE (' ' || a.alias) LIKE ? ESCAPE '\\' GROUP BY a.person_id ORDER BY p.name", (pattern,))
    if len(matches) > 1:
        names = ", ".join(m[1] for m in matches[:5]) + (" …" if len(matches) > 5 else "")
        raise UserFacingError(f"{name!r} could be several people: {names}", hint="use more of the name")
    if not matches:
        return [name]
    rows = await conn.execute_fetchall(
        "SELECT alias FROM person_aliases WHERE person_id = ? ORDER BY alias", (matches[0][0],))
    return [r[0] for r in rows]


async def knows_person(conn: Store, name: str) -> bool:
    """Whether `name` is anyone the store holds: one of a person's names, the start of a first
    name or surname of one (as `names_of` finds them), or a sender of any message."""
    name = name.strip()
    pattern = "% " + name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    rows = await conn.execute_fetchall(
        "SELECT 1 FROM person_aliases WHERE alias = ? COLLATE NOCASE OR (' ' || alias) LIKE ? ESCAPE '\\' "
        "UNION ALL SELECT 1 FROM messages WHERE sender = ? COLLATE NOCASE LIMIT 1", (name, pattern, name))
    return bool(rows)


async def unmatched_senders(conn: Store, *, limit: int = 50) -> list[UnmatchedSender]:
    """Senders never recognised as the owner, most messages first: the owner's own names hide
    here when BIOGRAPHER_OWNER_ALIASES misses them."""
    rows = await conn.execute_fetchall(
        "SELECT sender, platform, count(*) AS n FROM messages WHERE sender != '' AND kind != 'system' "
        "GROUP BY sender, platform HAVING max(is_owner) = 0 ORDER BY n DESC, sender LIMIT ?", (limit,))
    return [UnmatchedSender(sender, platform, n) for sender, platform, n in rows]


@dataclass(frozen=True)
class SenderIdentity:
    sender: str  # the name a message is signed with
    sender_id: str | None  # the platform's id for them, where the source has one


async def sender_identities(conn: Store) -> list[SenderIdentity]:
    """Every distinct sender of the stored messages, system lines excepted."""
    rows = await conn.execute_fetchall(
        "SELECT DISTINCT sender, sender_id FROM messages WHERE kind != 'system'")
    return [SenderIdentity(sender, sender_id) for sender, sender_id in rows]


async def set_owner_flags(conn: Store, owners: list[SenderIdentity]) -> int:
    """Mark the messages of these senders as the owner's and every other one
    as not, except flags the source itself gave; returns how many messages changed. Runs inside
    the caller's transaction."""
    await conn.execute("CREATE TEMP TABLE IF NOT EXISTS owner_identities "
                       "(sender TEXT NOT NULL, sender_id TEXT NOT NULL)")
    await conn.execute("DELETE FROM owner_identities")
    await conn.executemany("INSERT INTO owner_identities VALUES (?, ?)",
                           [(owner.sender, owner.sender_id or "") for owner in owners])
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


async def person_names(conn: Store) -> dict[str, str]:
    """Every known name, lower-cased, to the canonical name of its person."""
    rows = await conn.execute_fetchall(
        "SELECT a.alias, p.name FROM person_aliases a JOIN people p ON p.id = a.person_id")
    return {alias.lower(): name for alias, name in rows}


@dataclass(frozen=True)
class PeopleNames:
    aliases: dict[str, str]  # every name the people table knows, lower-cased, to its person's canonical name
    owner_senders: list[str]  # the senders the store holds as the owner's
    profile: str = ""  # bio.md, whose people section says who is whose relative


def known_names_sync(conn) -> PeopleNames:
    """The names search reads a question by, on a blocking connection (search's own)."""
    names = {alias.lower(): name for alias, name in conn.execute(
        "SELECT a.alias, p.name FROM person_aliases a JOIN people p ON p.id = a.person_id")}
    # through messages_activity (sender, is_owner, ...): one step per distinct sender
    owners = [row[0] for row in conn.execute(
        "SELECT DISTINCT sender FROM messages WHERE is_owner = 1 AND kind != 'system'")]
    profile = conn.execute("SELECT text FROM profile WHERE id = 1").fetchone()
    return PeopleNames(names, owners, profile[0] if profile else "")


def chunk_count_sync(conn) -> int:
    """The chunks the store holds, to weigh a person's share of them."""
    (count,) = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()
    return count


def chunks_spoken_in_sync(conn, speakers: Sequence[str]) -> int:
    """How many chunks any of `speakers` speaks in (the speaker index: a count of one range each)."""
    (count,) = conn.execute(
        f"SELECT COUNT(*) FROM chunk_speakers WHERE speaker IN ({','.join('?' * len(speakers))})",
        list(speakers)).fetchone()
    return count
