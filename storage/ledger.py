"""The ledger repository: items with their sources, what extraction has read, reminders sent, and
the people and message look-ups the ledger needs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from storage.disclosure import effective_policy_sql

if TYPE_CHECKING:
    from storage.db import Store

STATUSES = ("open", "in_progress", "done", "dropped")
OPEN = ("open", "in_progress")


@dataclass(frozen=True)
class SourceRow:
    role: str  # "stated", or the status it evidences
    document_id: int | None  # None: the owner, by hand (a command or a button)
    char_start: int | None
    char_end: int | None
    quote: str
    speaker: str | None
    said_at: str | None  # UTC ISO
    via: str  # "extraction", "chat", "cli", "button"
    document: str | None = None  # the document's name

    @property
    def locator(self) -> str | None:
        if self.document_id is None:
            return None
        return f"doc{self.document_id}:{self.char_start}-{self.char_end}"


@dataclass(frozen=True)
class ItemRow:
    id: int
    kind: str
    text: str
    person: str | None
    title: str | None
    category: str | None
    due: str | None  # local date
    status: str
    origin: str
    first_said: str | None
    created_at: str
    updated_at: str
    status_at: str | None
    sources: tuple[SourceRow, ...] = field(default=())


@dataclass(frozen=True)
class ItemFilter:
    kinds: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    person_names: tuple[str, ...] = ()  # every name of the person asked about
    category: str | None = None
    said_since: str | None = None  # UTC ISO bounds on when it was first said
    said_until: str | None = None
    due_from: str | None = None  # local date bounds
    due_until: str | None = None
    ids: tuple[int, ...] = ()
    limit: int = 10_000


_ITEM_COLUMNS = ("id, kind, text, person, title, category, due, status, origin, first_said, created_at, "
                 "updated_at, status_at")


def _marks(values: Sequence[object]) -> str:
    return ",".join("?" * len(values))


# ---------------------------------------------------------------- items

async def insert_item(conn: Store, *, kind: str, text: str, person: str | None,
                      title: str | None, category: str | None, due: str | None, status: str, origin: str,
                      first_said: str | None, status_at: str | None, at: str) -> int:
    cursor = await conn.execute(
        """INSERT INTO ledger_items (kind, text, person, title, category, due, status, origin, first_said,
               created_at, updated_at, status_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (kind, text, person, title, category, due, status, origin, first_said, at, at, status_at))
    return cursor.lastrowid


async def add_source(conn: Store, item_id: int, *, role: str, document_id: int | None,
                     char_start: int | None, char_end: int | None, quote: str, speaker: str | None,
                     said_at: str | None, via: str, at: str) -> bool:
    """True if the source is new for this item and role (extraction read twice adds nothing)."""
    if document_id is not None:
        async with conn.execute(
                "SELECT 1 FROM ledger_sources WHERE item_id = ? AND role = ? AND document_id = ? "
                "AND char_start = ? AND char_end = ?", (item_id, role, document_id, char_start, char_end)) as cur:
            if await cur.fetchone():
                return False
    await conn.execute(
        """INSERT INTO ledger_sources (item_id, role, document_id, char_start, char_end, quote, speaker,
               said_at, via, added_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (item_id, role, document_id, char_start, char_end, quote, speaker, said_at, via, at))
    await conn.execute(
        "UPDATE ledger_items SET first_said = MIN(COALESCE(first_said, ?), ?), updated_at = ? "
        "WHERE id = ? AND ? IS NOT NULL AND ? = 'stated'", (said_at, said_at, at, item_id, said_at, role))
    return True


async def set_status(conn: Store, item_id: int, status: str, *, status_at: str | None,
                     at: str) -> None:
    await conn.execute("UPDATE ledger_items SET status = ?, status_at = ?, updated_at = ? WHERE id = ?",
                       (status, status_at, at, item_id))


async def set_due(conn: Store, item_id: int, due: str | None, *, at: str) -> None:
    await conn.execute("UPDATE ledger_items SET due = ?, updated_at = ? WHERE id = ?", (due, at, item_id))


async def _sources(conn: Store, item_ids: Sequence[int]) -> dict[int, list[SourceRow]]:
    found: dict[int, list[SourceRow]] = {}
    for start in range(0, len(item_ids), 500):
        part = list(item_ids[start:start + 500])
        async with conn.execute(
                f"""SELECT s.item_id, s.role, s.document_id, s.char_start, s.char_end, s.quote, s.speaker,
                           s.said_at, s.via, d.name
                    FROM ledger_sources s LEFT JOIN documents d ON d.id = s.document_id
                    WHERE s.item_id IN ({_marks(part)})
                    ORDER BY s.item_id, COALESCE(s.said_at, s.added_at), s.id""", part) as cur:
            for row in await cur.fetchall():
                found.setdefault(row[0], []).append(SourceRow(*row[1:]))
    return found


async def list_items(conn: Store, query: ItemFilter = ItemFilter()) -> list[ItemRow]:
    """Items matching every given filter, with their sources; dated ones by due date first."""
    where, values = [], []
    for column, chosen in (("kind", query.kinds), ("status", query.statuses), ("person", query.person_names),
                           ("id", query.ids)):
        if chosen:
            where.append(f"{column} IN ({_marks(chosen)})")
            values.extend(chosen)
    for clause, value in (("category = ?", query.category), ("first_said >= ?", query.said_since),
                          ("first_said <= ?", query.said_until), ("due >= ?", query.due_from),
                          ("due <= ?", query.due_until)):
        if value is not None:
            where.append(clause)
            values.append(value)
    sql = (f"SELECT {_ITEM_COLUMNS} FROM ledger_items" + (" WHERE " + " AND ".join(where) if where else "")
           + " ORDER BY due IS NULL, due, COALESCE(first_said, created_at) DESC, id DESC LIMIT ?")
    async with conn.execute(sql, (*values, query.limit)) as cur:
        rows = await cur.fetchall()
    sources = await _sources(conn, [row[0] for row in rows])
    return [ItemRow(*row, sources=tuple(sources.get(row[0], ()))) for row in rows]


async def get_item(conn: Store, item_id: int) -> ItemRow | None:
    found = await list_items(conn, ItemFilter(ids=(item_id,)))
    return found[0] if found else None


async def items_with_sources_in(conn: Store, document_ids: Sequence[int], *,
                                statuses: Sequence[str], limit: int) -> list[int]:
    """Ids of items (in these statuses) with a source in one of these documents, newest first."""
    if not document_ids:
        return []
    async with conn.execute(
            f"""SELECT DISTINCT i.id FROM ledger_items i JOIN ledger_sources s ON s.item_id = i.id
                WHERE s.document_id IN ({_marks(document_ids)}) AND i.status IN ({_marks(statuses)})
                ORDER BY i.id DESC LIMIT ?""", (*document_ids, *statuses, limit)) as cur:
        return [row[0] for row in await cur.fetchall()]


async def candidates(conn: Store, *, kinds: Sequence[str],
                     person_names: Sequence[str] = ()) -> list[ItemRow]:
    """Items a new one may repeat: of these kinds (and of this person, when names are given)."""
    return await list_items(conn, ItemFilter(kinds=tuple(kinds), person_names=tuple(person_names)))


async def export_items(conn: Store) -> list[ItemRow]:
    return await list_items(conn, ItemFilter(limit=2**62))


# ---------------------------------------------------------------- what extraction has read

@dataclass(frozen=True)
class PendingDocument:
    """A message document extraction has not read completely."""

    id: int
    name: str
    platform: str
    conversation_key: str  # documents of one conversation share it
    is_group: bool


async def pending_documents(conn: Store, *, exclude_kinds: Sequence[str],
                            disclosed_only: bool = False) -> list[PendingDocument]:
    """Message documents not read completely, oldest material first; with `disclosed_only`, of
    those whose text may leave the machine."""
    disclosed = f"AND {effective_policy_sql('d')} = 'allow'" if disclosed_only else ""
    async with conn.execute(
            f"""SELECT d.id, d.name, d.platform, d.conversation_key, d.is_group FROM documents d
                LEFT JOIN ledger_documents l ON l.document_id = d.id
                WHERE l.document_id IS NULL AND d.conversation_key IS NOT NULL
                  AND d.kind NOT IN ({_marks(exclude_kinds) or "''"}) {disclosed}
                ORDER BY COALESCE(d.time_start, d.imported_at), d.id""", tuple(exclude_kinds)) as cur:
        return [PendingDocument(r[0], r[1], r[2], r[3], bool(r[4])) for r in await cur.fetchall()]


@dataclass(frozen=True)
class UnreadMessage:
    id: int
    head: str  # the start of its text when asked for, else ''


async def unread_messages(conn: Store, document_ids: Sequence[int], *,
                          heads: bool = False) -> list[UnreadMessage]:
    """The messages not read yet, in time order (system notices left out: nobody promises
    anything in them; undated messages too: an item is dated by the day it was said, and its
    "next Friday" is read from that day)."""
    head = "substr(m.text, 1, 200)" if heads else "''"
    async with conn.execute(
            f"""SELECT m.id, {head} FROM messages m
                LEFT JOIN ledger_read r ON r.message_id = m.id
                WHERE m.document_id IN ({_marks(document_ids)}) AND r.message_id IS NULL
                  AND m.kind != 'system' AND m.time IS NOT NULL
                ORDER BY m.time, m.id""", tuple(document_ids)) as cur:
        return [UnreadMessage(*row) for row in await cur.fetchall()]


@dataclass(frozen=True)
class MessageLine:
    id: int
    document_id: int
    char_start: int
    char_end: int
    sender: str
    is_owner: bool
    time: str  # UTC ISO (the ledger reads dated messages only: unread_messages)
    utc_offset_minutes: int | None
    text: str


async def messages_by_id(conn: Store, ids: Sequence[int]) -> list[MessageLine]:
    """Messages in the order of `ids`."""
    found: dict[int, MessageLine] = {}
    for start in range(0, len(ids), 500):
        part = list(ids[start:start + 500])
        async with conn.execute(
                f"""SELECT id, document_id, char_start, char_end, sender, is_owner, time, utc_offset_minutes, text
                    FROM messages WHERE id IN ({_marks(part)})""", part) as cur:
            for row in await cur.fetchall():
                found[row[0]] = MessageLine(row[0], row[1], row[2], row[3], row[4], bool(row[5]), row[6], row[7],
                                            row[8])
    return [found[i] for i in ids if i in found]


async def previous_messages(conn: Store, document_ids: Sequence[int], *, before: tuple[str, int],
                            limit: int) -> list[int]:
    """Ids of the `limit` messages just before (time, id), oldest first: context for a window."""
    async with conn.execute(
            f"""SELECT id FROM messages WHERE document_id IN ({_marks(document_ids)}) AND kind != 'system'
                  AND (time < ? OR (time = ? AND id < ?)) ORDER BY time DESC, id DESC LIMIT ?""",
            (*document_ids, before[0], before[0], before[1], limit)) as cur:
        return [row[0] for row in await cur.fetchall()][::-1]


async def mark_read(conn: Store, message_ids: Sequence[int]) -> None:
    await conn.executemany("INSERT OR IGNORE INTO ledger_read (message_id) VALUES (?)",
                           [(i,) for i in message_ids])


async def finish_documents(conn: Store, document_ids: Sequence[int], *, at: str) -> int:
    """Mark the documents whose messages are all read as done (and drop their per-message marks);
    returns how many were finished."""
    finished = 0
    for document_id in document_ids:
        async with conn.execute(
                """SELECT 1 FROM messages m LEFT JOIN ledger_read r ON r.message_id = m.id
                   WHERE m.document_id = ? AND m.kind != 'system' AND r.message_id IS NULL LIMIT 1""",
                (document_id,)) as cur:
            if await cur.fetchone():
                continue
        await conn.execute("INSERT OR IGNORE INTO ledger_documents (document_id, read_at) VALUES (?, ?)",
                           (document_id, at))
        await conn.execute("DELETE FROM ledger_read WHERE message_id IN "
                           "(SELECT id FROM messages WHERE document_id = ?)", (document_id,))
        finished += 1
    return finished


# ---------------------------------------------------------------- people

@dataclass(frozen=True)
class PersonMatch:
    person_id: int
    name: str  # the canonical name
    aliases: tuple[str, ...]


async def _person(conn: Store, person_id: int) -> PersonMatch:
    async with conn.execute("SELECT name FROM people WHERE id = ?", (person_id,)) as cur:
        (name,) = await cur.fetchone()
    async with conn.execute("SELECT alias FROM person_aliases WHERE person_id = ? ORDER BY alias",
                            (person_id,)) as cur:
        aliases = tuple(row[0] for row in await cur.fetchall())
    return PersonMatch(person_id, name, aliases or (name,))


async def people_named(conn: Store, name: str) -> list[PersonMatch]:
    """People known by exactly this name; else those with a name starting with it or holding it as a
    whole word (a first name, a surname): one match, several (ambiguous) or none (unknown)."""
    name = name.strip()
    async with conn.execute("SELECT person_id FROM person_aliases WHERE alias = ?", (name,)) as cur:
        exact = [row[0] for row in await cur.fetchall()]
    if not exact:
        escaped = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        async with conn.execute(
                "SELECT DISTINCT person_id FROM person_aliases WHERE (' ' || alias || ' ') LIKE ? ESCAPE '\\' "
                "ORDER BY person_id", (f"% {escaped} %",)) as cur:
            exact = [row[0] for row in await cur.fetchall()]
    return [await _person(conn, person_id) for person_id in exact]


async def people_of_senders(conn: Store, senders: Sequence[str]) -> list[PersonMatch]:
    if not senders:
        return []
    async with conn.execute(f"SELECT DISTINCT person_id FROM person_aliases WHERE alias IN ({_marks(senders)})",
                            tuple(senders)) as cur:
        ids = [row[0] for row in await cur.fetchall()]
    return [await _person(conn, person_id) for person_id in ids]


async def add_person(conn: Store, name: str) -> PersonMatch:
    """A person the owner named who appears in no source yet."""
    cursor = await conn.execute("INSERT INTO people (name) VALUES (?)", (name.strip(),))
    await conn.execute("INSERT OR IGNORE INTO person_aliases (alias, person_id) VALUES (?, ?)",
                       (name.strip(), cursor.lastrowid))
    return await _person(conn, cursor.lastrowid)


@dataclass(frozen=True)
class Contact:
    document_id: int
    document: str
    char_start: int
    char_end: int
    sender: str
    time: str | None  # UTC ISO; None when their only messages are undated e-mails
    text: str


async def last_contact(conn: Store, names: Sequence[str]) -> Contact | None:
    """The latest message from the person, or from the owner in a one-to-one chat with them."""
    if not names:
        return None
    async with conn.execute(
            f"""SELECT d.id FROM documents d WHERE d.is_group = 0 AND EXISTS (
                    SELECT 1 FROM json_each(d.participants) p WHERE p.value IN ({_marks(names)}))""",
            tuple(names)) as cur:
        private = [row[0] for row in await cur.fetchall()]
    clause = f"m.sender IN ({_marks(names)})"
    values: list[object] = list(names)
    if private:
        clause = f"({clause} OR (m.is_owner = 1 AND m.document_id IN ({_marks(private)})))"
        values.extend(private)
    async with conn.execute(
            f"""SELECT m.document_id, d.name, m.char_start, m.char_end, m.sender, m.time, m.text
                FROM messages m JOIN documents d ON d.id = m.document_id
                WHERE {clause} AND m.kind != 'system' ORDER BY m.time DESC LIMIT 1""", values) as cur:
        row = await cur.fetchone()
    return Contact(*row) if row else None


# ---------------------------------------------------------------- reminders

@dataclass(frozen=True)
class ReminderKey:
    """A reminder is sent once per item, due date and kind."""

    item_id: int
    due: str  # the local date it was due on ("" undated)
    kind: str  # "due" or "follow_up"


async def reminded(conn: Store, item_id: int, due: str, kind: str) -> bool:
    async with conn.execute("SELECT 1 FROM ledger_reminders WHERE item_id = ? AND due = ? AND kind = ?",
                            (item_id, due, kind)) as cur:
        return await cur.fetchone() is not None


async def record_reminders(conn: Store, keys: Sequence[ReminderKey], *, at: str) -> None:
    await conn.executemany("INSERT OR IGNORE INTO ledger_reminders (item_id, due, kind, sent_at) VALUES (?, ?, ?, ?)",
                           [(k.item_id, k.due, k.kind, at) for k in keys])


async def unrecord_reminders(conn: Store, keys: Sequence[ReminderKey]) -> None:
    await conn.executemany("DELETE FROM ledger_reminders WHERE item_id = ? AND due = ? AND kind = ?",
                           [(k.item_id, k.due, k.kind) for k in keys])
