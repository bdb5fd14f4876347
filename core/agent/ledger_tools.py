"""The agent's ledger tools: query the ledger exactly (the whole list, with sources the answer can
cite), and save or update items the owner states in the chat, with the owner's message as the
source. Mixed into core.agent.tools.Toolbox; a mistake is a UserFacingError, which the toolbox
hands back to the model as a tool error."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, tzinfo
from typing import TYPE_CHECKING, Any

from core.agent.citations import quote_occurs
from core.steering import STEERING_REFUSAL, addresses_the_model
from core.errors import UserFacingError
from core.times import parse_utc, utc_iso
from core.ledger.book import Ledger, LedgerItem, LedgerQuery, check_status
from core.ledger.matching import content_words, fold
from core.ledger.proposals import CATEGORIES, FACT_TYPES, KINDS, STATUSES
from core.ledger.text import items_text
from core.ledger.validation import Evidence
from core.types import Locator
from core.words import counted
from storage import messages as message_store

if TYPE_CHECKING:
    from storage.db import Store
    from collections.abc import Awaitable, Callable

    
    from core.agent.tools import Turn
    from core.memory.facade import Memory
    from core.biographer.profile_book import ProfileBook

MAX_LISTED = 200
SAVED_FROM = "Told to the biographer"


def _s(description: str, **extra: Any) -> dict:
    return {"type": "string", "description": description, **extra}


_DATE = "YYYY-MM-DD"
LEDGER_SCHEMAS: dict[str, tuple[str, dict, list[str]]] = {
    "ledger_query": (
        "The owner's ledger, exactly: every promise the owner made (commitment), everything owed to them (owed), "
        "every recommendation made to them, every recorded fact about a person, filtered as asked. It returns the "
        "complete list with each item's sources (cite them), not a sample: use it for any question about promises, "
        "debts, recommendations or what is open with someone.",
        {"kind": _s("commitment, owed, recommendation or fact", enum=list(KINDS)),
         "status": {"type": "array", "items": {"type": "string", "enum": list(STATUSES)},
                    "description": "only these statuses; open means still to do (default: all)"},
         "person": _s("only items with this person (any of their names)"),
         "category": _s("a recommendation's category (book, show, film, podcast, music, place, product, article, "
                        "person, other) or a fact's type (relationship, life_event, request, other)"),
         "words": _s("only items whose text or title holds these words"),
         "said_since": _s(f"only items first said on or after this date, {_DATE}"),
         "said_until": _s(f"only items first said on or before this date, {_DATE}"),
         "due_by": _s(f"only items due on or before this date, {_DATE}")},
        []),
    "ledger_save": (
        "Save what the owner tells you in this chat to their ledger: a promise they made (commitment), something "
        "someone owes them (owed), a recommendation someone made them, or a fact about a person. The owner's message "
        "becomes its source. An item already kept gets this message as one more source.",
        {"kind": _s("commitment, owed, recommendation or fact", enum=list(KINDS)),
         "text": _s("short, as a to-do or a fact: 'Send Ana the deck'"),
         "quote": _s("the owner's words in their message that say it, copied exactly"),
         "person": _s("who it is promised to / owed by / recommended by / about"),
         "title": _s("a recommendation's title"),
         "category": _s("a recommendation's category or a fact's type",
                        enum=list(CATEGORIES) + list(FACT_TYPES)),
         "due": _s(f"when it is due, {_DATE}, worked out from today if the owner said a day"),
         "status": _s("open (default), in_progress, done or dropped", enum=list(STATUSES)),
         "new_person": {"type": "boolean",
                        "description": "true only if the owner clearly named someone the ledger does not know yet"}},
        ["kind", "text", "quote"]),
    "ledger_update": (
        "Mark a ledger item done, dropped, in progress or open again, or move its due date, because the owner "
        "said so in this chat (\"I finished Slow Horses\"). Find its number with ledger_query first.",
        {"id": {"type": "integer", "description": "the item's number"},
         "quote": _s("the owner's words in their message that say it, copied exactly"),
         "status": _s("the new status", enum=list(STATUSES)),
         "due": _s(f"the new due date, {_DATE}")},
        ["id", "quote"]),
}


class LedgerTools:
    """The ledger tools; Toolbox provides the store, the profile's clock and `remember`."""

    conn: Store
    memory: Memory
    book: ProfileBook
    zone: tzinfo
    remember: Callable[[str, datetime | None], Awaitable[Locator]]
    when_at: Callable[[Locator], Awaitable[datetime | None]]
    _ledger: Ledger | None = None

    @property
    def ledger(self) -> Ledger:
        if self._ledger is None:
            self._ledger = Ledger(self.conn, owner_aliases=self.memory.context.owner_aliases, clock=self.book.clock)
        return self._ledger

    def _day(self, value: str | None, what: str) -> date | None:
        if not value:
            return None
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise UserFacingError(f"{what} is not a date: {value!r}", hint=f"write it as {_DATE}") from None

    async def _ledger_query(self, turn: Turn, *, kind: str | None = None, status: list[str] | None = None,
                            person: str | None = None, category: str | None = None, words: str | None = None,
                            said_since: str | None = None, said_until: str | None = None,
                            due_by: str | None = None) -> str:
        since, until = self._day(said_since, "said_since"), self._day(said_until, "said_until")
        items = await self.ledger.items(LedgerQuery(
            kinds=(kind,) if kind else (), statuses=tuple(check_status(s) for s in status or ()), person=person,
            category=category, due_until=self._day(due_by, "due_by"),
            said_since=self._midnight(since), said_until=self._midnight(until + timedelta(days=1)) if until else None))
        if words:
            wanted = content_words(words) or frozenset({fold(words).strip()})
            items = [i for i in items if wanted & (content_words(f"{i.text} {i.title or ''}")
                                                   | {fold(i.title or '').strip()})]
        for item in items[:MAX_LISTED]:
            self._cite(turn, item)
        more = f"\n(only the first {MAX_LISTED} of {len(items)} are listed; narrow the query)" \
            if len(items) > MAX_LISTED else ""
        header = f"{counted(len(items), 'item')}: the complete list for this query. Cite the sources' locators.\n"
        return header + items_text(items[:MAX_LISTED], self.zone, empty="(none)", sources=6) + more

    def _midnight(self, day: date | None) -> datetime | None:
        return datetime.combine(day, time(0), tzinfo=self.zone) if day else None

    def _cite(self, turn: Turn, item: LedgerItem) -> None:
        for source in item.sources:
            if source.document_id is not None:
                moment = parse_utc(source.said_at)
                turn.evidence.add(Locator.parse(source.locator), source.document or "",
                                  moment.astimezone(self.zone) if moment else None)

    async def _owner_said(self, turn: Turn, quote: str) -> Evidence:
        """The owner's message of this turn, stored as a source (once), as the evidence of `quote`."""
        said = turn.owner_said
        if not said:
            raise UserFacingError("the ledger takes only what the owner says in the chat, and this run has no "
                                  "message of theirs")
        if not quote.strip() or not quote_occurs(fold(quote), fold(said)):
            raise UserFacingError(f"the owner's message does not say {quote!r}", hint="quote their words exactly")
        if addresses_the_model(said):  # a planted line pasted into the chat is not the owner's promise
            raise UserFacingError(f"not saved: the owner's message quotes text that {STEERING_REFUSAL[3:]}",
                                  hint="ask the owner to say it in their own words")
        if turn.owner_source is None:
            turn.owner_source = await self.remember(said, None)
            moment = await self.when_at(turn.owner_source)
            turn.evidence.add(turn.owner_source, SAVED_FROM, moment)
        locator = turn.owner_source
        line = await message_store.message_at(self.conn, locator.document_id, locator.char_start)
        now = self.book.clock()
        return Evidence(locator.document_id, locator.char_start, locator.char_end, quote.strip(),
                        line.sender if line else "owner", True, line.time if line else utc_iso(now),
                        now.astimezone(self.zone).date())

    async def _ledger_save(self, turn: Turn, *, kind: str, text: str, quote: str, person: str | None = None,
                           title: str | None = None, category: str | None = None, due: str | None = None,
                           status: str = "open", new_person: bool = False) -> str:
        when = self._day(due, "due")
        today = self.book.clock().astimezone(self.zone).date()
        if when is not None and when < today - timedelta(days=1):
            raise UserFacingError(f"due {when} is in the past", hint="work the date out from today")
        source = await self._owner_said(turn, quote)
        item, new = await self.ledger.add(kind, text, person=person, due=when, title=title, category=category,
                                          status=status, new_person=new_person, source=source, via="chat")
        self._cite(turn, item)
        verb = "saved as" if new else "already in the ledger as; this message added as a source of"
        return f"{verb} #{item.id}: {items_text([item], self.zone)}"

    async def _ledger_update(self, turn: Turn, *, id: int, quote: str, status: str | None = None,
                             due: str | None = None) -> str:
        if status is None and due is None:
            raise UserFacingError("nothing to update", hint="give a status or a due date")
        await self.ledger.item(id)
        source = await self._owner_said(turn, quote)
        if due is not None:
            await self.ledger.reschedule(id, self._day(due, "due"), source=source, via="chat")
        item = await self.ledger.set_status(id, status, source=source, via="chat") if status \
            else await self.ledger.item(id)
        self._cite(turn, item)
        return "updated: " + items_text([item], self.zone)
