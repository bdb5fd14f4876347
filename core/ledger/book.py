"""The ledger: items kept with their sources. Checked proposals are stored here (a repeat of an
item already kept becomes one more source of it), the owner adds items and marks them done or
dropped by hand, and every question about them is answered from the whole list."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from core.errors import UserFacingError
from core.times import utc_iso
from core.ledger.matching import fold, name_words, same_task, same_title
from core.ledger.proposals import CATEGORIES, FACT_TYPES, KINDS, STATUSES
from core.ledger.validation import Evidence, ValidItem, ValidUpdate
from storage import ledger as store
from storage.db import Store

LedgerItem = store.ItemRow
LedgerSource = store.SourceRow
PersonMatch = store.PersonMatch
OPEN = store.OPEN

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class LedgerQuery:
    kinds: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    person: str | None = None
    category: str | None = None
    said_since: datetime | None = None
    said_until: datetime | None = None
    due_from: date | None = None
    due_until: date | None = None
    limit: int = 10_000


@dataclass
class Stored:
    """What storing one window's checked proposals did."""

    added: list[int]
    merged: list[int]
    updated: list[int]


def check_kind(kind: str, *, allowed: Sequence[str] = KINDS) -> str:
    if kind not in allowed:
        raise UserFacingError(f"not a kind of ledger item: {kind!r}", hint="one of: " + ", ".join(allowed))
    return kind


def check_status(status: str) -> str:
    status = status.strip().lower().replace("-", "_").replace(" ", "_")
    status = {"todo": "open", "to_do": "open", "started": "in_progress", "finished": "done"}.get(status, status)
    if status not in STATUSES:
        raise UserFacingError(f"not a status: {status!r}", hint="one of: open (to do), in_progress, done, dropped")
    return status


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_IN = re.compile(r"^in (\d{1,3}) (day|week)s?$")
DUE_HINT = "use YYYY-MM-DD, today, tomorrow, a weekday (friday: the coming one) or in N days / in N weeks"


def parse_due(value: str, *, today: date) -> date:
    """A due date as the owner types it: 2024-05-10, today, tomorrow, friday, in 3 days, in 2 weeks."""
    text = " ".join(value.strip().lower().split())
    if text in ("today", "tomorrow"):
        return today + timedelta(days=text == "tomorrow")
    names = [w for w in _WEEKDAYS if len(text) >= 3 and w.startswith(text)]
    if len(names) == 1:
        return today + timedelta(days=(_WEEKDAYS.index(names[0]) - today.weekday() - 1) % 7 + 1)
    if match := _IN.match(text):
        return today + timedelta(days=int(match.group(1)) * (7 if match.group(2) == "week" else 1))
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise UserFacingError(f"not a due date: {value!r}", hint=DUE_HINT) from None


class Ledger:
    def __init__(self, conn: Store, *, owner_aliases: frozenset[str], clock: Clock) -> None:
        self.conn = conn
        self.owner_aliases = frozenset(fold(a) for a in owner_aliases)
        self.clock = clock

    def now(self) -> str:
        return utc_iso(self.clock())

    # ------------------------------------------------------------ reading

    async def items(self, query: LedgerQuery = LedgerQuery()) -> list[LedgerItem]:
        """Every item that matches, with its sources (not a sample: the whole list)."""
        names: tuple[str, ...] = ()
        if query.person:
            names = (await self.person(query.person)).aliases
        return await store.list_items(self.conn, store.ItemFilter(
            kinds=query.kinds, statuses=query.statuses, person_names=names, category=query.category,
            said_since=utc_iso(query.said_since) if query.said_since else None,
            said_until=utc_iso(query.said_until) if query.said_until else None,
            due_from=query.due_from.isoformat() if query.due_from else None,
            due_until=query.due_until.isoformat() if query.due_until else None, limit=query.limit))

    async def item(self, item_id: int) -> LedgerItem:
        found = await store.get_item(self.conn, item_id)
        if found is None:
            raise UserFacingError(f"there is no ledger item #{item_id}",
                                  hint="`biographer ledger` (or /todo, /owed, /recs) lists them with their numbers")
        return found

    async def person(self, name: str, *, allow_new: bool = False) -> PersonMatch:
        """The one person `name` stands for; with `allow_new`, a name no one has yet becomes a person
        (the owner named them)."""
        if fold(name.strip()) in self.owner_aliases:
            raise UserFacingError(f"{name!r} is you", hint="name the other person")
        matches = await store.people_named(self.conn, name)
        if len(matches) > 1:
            raise UserFacingError(f"{name!r} could be several people: " + ", ".join(m.name for m in matches[:5]),
                                  hint="use more of the name (`biographer people` lists everyone)")
        if matches:
            if self.owner_aliases & {fold(a) for a in matches[0].aliases}:
                raise UserFacingError(f"{name!r} is you", hint="name the other person")
            return matches[0]
        if not name.strip():
            raise UserFacingError("no person named", hint="give a name")
        if not allow_new:
            raise UserFacingError(f"no person is known as {name!r}",
                                  hint="everyone who wrote in your sources is known (`biographer people` lists them); "
                                       "to record someone new, add them with `biographer ledger add ... --new-person`")
        async with self.conn.transaction():
            return await store.add_person(self.conn, name)

    async def people_named(self, name: str) -> list[PersonMatch]:
        return await store.people_named(self.conn, name)

    # ------------------------------------------------------------ storing checked proposals

    async def store(self, items: Sequence[ValidItem], updates: Sequence[ValidUpdate], *, via: str,
                    origin: str) -> Stored:
        """Keep checked items and updates; call inside a transaction (the caller commits them with
        whatever else belongs to the same step, such as the lines it read)."""
        stored = Stored([], [], [])
        for item in items:
            existing = await self._existing(item)
            if existing is None:
                stored.added.append(await self._insert(item, via=via, origin=origin))
            else:
                await self._merge(existing, item, via=via)
                stored.merged.append(existing.id)
        for update in updates:
            await self._update(update, via=via)
            stored.updated.append(update.item.id)
        return stored

    async def _existing(self, item: ValidItem) -> LedgerItem | None:
        """The item this one repeats: the one the model named if it fits, else one that says the same
        (a recommendation: the same title, whoever recommended it; else the same person and task)."""
        names = item.person.aliases if item.person else ()
        if item.same_as is not None:
            named = await store.get_item(self.conn, item.same_as)
            if named and named.kind == item.kind and (item.kind == "recommendation" or fold(named.person or "")
                                                      in {fold(n) for n in names}):
                return named
        if item.kind == "recommendation":
            return next((r for r in await store.candidates(self.conn, kinds=("recommendation",))
                         if same_title(r.title or r.text, item.title or item.text)), None)
        leave_out = name_words(names)
        return next((r for r in await store.candidates(self.conn, kinds=(item.kind,), person_names=names)
                     if same_task(r.text, item.text, names=leave_out)), None)

    async def _insert(self, item: ValidItem, *, via: str, origin: str) -> int:
        at = self.now()
        status_at = max(e.said_at for e in item.status_evidence) if item.status_evidence else None
        item_id = await store.insert_item(
            self.conn, kind=item.kind, text=item.text, person=item.person.name if item.person else None,
            title=item.title, category=item.category, due=item.due, status=item.status, origin=origin,
            first_said=min(e.said_at for e in item.stated), status_at=status_at, at=at)
        await self._sources(item_id, "stated", item.stated, via=via)
        if item.status_evidence:
            await self._sources(item_id, item.status, item.status_evidence, via=via)
        return item_id

    async def _merge(self, existing: LedgerItem, item: ValidItem, *, via: str) -> None:
        await self._sources(existing.id, "stated", item.stated, via=via)
        if item.due and not existing.due:
            await store.set_due(self.conn, existing.id, item.due, at=self.now())
        if item.status_evidence:
            await self._set_status(existing, item.status, item.status_evidence, via=via)

    async def _update(self, update: ValidUpdate, *, via: str) -> None:
        current = await store.get_item(self.conn, update.item.id) or update.item
        if update.status:
            await self._set_status(current, update.status, update.evidence, via=via)
        if update.due:
            await self._sources(current.id, "due", update.evidence, via=via)
            await store.set_due(self.conn, current.id, update.due, at=self.now())

    async def _set_status(self, item: LedgerItem, status: str, evidence: Sequence[Evidence], *, via: str) -> None:
        """A status from a source newer than the one the current status rests on (an old message
        read late never undoes the owner's newer word)."""
        await self._sources(item.id, status, evidence, via=via)
        said = max(e.said_at for e in evidence)
        if item.status_at is None or said >= item.status_at:
            await store.set_status(self.conn, item.id, status, status_at=said, at=self.now())

    async def _sources(self, item_id: int, role: str, evidence: Sequence[Evidence], *, via: str) -> None:
        for e in evidence:
            await store.add_source(self.conn, item_id, role=role, document_id=e.document_id, char_start=e.char_start,
                                   char_end=e.char_end, quote=e.quote, speaker=e.speaker, said_at=e.said_at,
                                   via=via, at=self.now())

    # ------------------------------------------------------------ the owner, by hand or in the chat

    async def add(self, kind: str, text: str, *, person: str | None = None, due: date | None = None,
                  title: str | None = None, category: str | None = None, status: str = "open",
                  new_person: bool = False, source: Evidence | None = None, via: str = "cli") -> tuple[LedgerItem, bool]:
        """An item the owner states (by hand: no source document; in the chat: their message).
        Returns the item and whether it is new (an item already kept gets one more source)."""
        check_kind(kind)
        if not text.strip():
            raise UserFacingError("the item has no text", hint="say what was promised or recommended")
        if kind in ("commitment", "owed", "fact") and not person:
            what = {"commitment": "a promise", "owed": "something owed", "fact": "a fact"}[kind]
            raise UserFacingError(f"{what} needs the person it is with", hint="add --person NAME")
        if category and category not in (FACT_TYPES if kind == "fact" else CATEGORIES):
            raise UserFacingError(f"not a category: {category!r}", hint="one of: " + ", ".join(
                FACT_TYPES if kind == "fact" else CATEGORIES))
        match = await self.person(person, allow_new=new_person) if person else None
        said = self.now()
        item = ValidItem(kind=kind, text=text.strip(), stated=(source,) if source else (), person=match,
                         title=(title or text.strip()) if kind == "recommendation" else None,
                         category=(category or "other") if kind in ("recommendation", "fact") else None,
                         due=due.isoformat() if due else None)
        async with self.conn.transaction():
            existing = await self._existing(item)
            if existing is None:
                item_id = await store.insert_item(
                    self.conn, kind=kind, text=item.text, person=match.name if match else None, title=item.title,
                    category=item.category, due=item.due, status="open", origin="chat" if source else "hand",
                    first_said=said, status_at=None, at=said)
            else:
                item_id = existing.id
                if item.due:
                    await store.set_due(self.conn, item_id, item.due, at=said)
            await self._owner_source(item_id, "stated", source, text=item.text, via=via)
        if status != "open":
            await self.set_status(item_id, status, source=source, via=via)
        return await self.item(item_id), existing is None

    async def set_status(self, item_id: int, status: str, *, source: Evidence | None = None,
                         via: str = "cli") -> LedgerItem:
        """The owner says an item is done, dropped, started or open again."""
        status = check_status(status)
        item = await self.item(item_id)
        async with self.conn.transaction():
            await self._owner_source(item.id, status, source, text=f"marked {status}", via=via)
            await store.set_status(self.conn, item.id, status, status_at=self.now(), at=self.now())
        return await self.item(item_id)

    async def reschedule(self, item_id: int, due: date | None, *, source: Evidence | None = None,
                         via: str = "cli") -> LedgerItem:
        """The owner moves an item's due date (or clears it)."""
        item = await self.item(item_id)
        async with self.conn.transaction():
            await self._owner_source(item.id, "due", source, text=f"due {due}" if due else "no due date", via=via)
            await store.set_due(self.conn, item.id, due.isoformat() if due else None, at=self.now())
        return await self.item(item_id)

    async def _owner_source(self, item_id: int, role: str, source: Evidence | None, *, text: str, via: str) -> None:
        if source is not None:
            await self._sources(item_id, role, [source], via=via)
            return
        await store.add_source(self.conn, item_id, role=role, document_id=None, char_start=None, char_end=None,
                               quote=text, speaker="owner", said_at=self.now(), via=via, at=self.now())
