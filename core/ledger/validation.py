"""Deterministic checks of what the model proposed, before anything reaches the ledger.

A proposal survives only if every line it cites was shown to the model in this part of this
conversation and holds the quoted words; if the quoted line was said by someone who could have
said it (the owner's own promise, the recommender's recommendation); if its person is one the
people table knows (and not the owner); and, for a status or a date, if the evidence comes after
what it completes. Whatever fails is rejected with a reason, and the rest goes on.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from core.agent.citations import quote_occurs, shares_words
from core.steering import STEERING_REFUSAL, addresses_the_model
from core.times import as_sent
from core.errors import LocatorError
from core.ledger.matching import fold
from core.ledger.proposals import CATEGORIES, FACT_TYPES, Cited, ProposedItem, ProposedUpdate, Proposals
from core.types import Locator
from storage.ledger import ItemRow, MessageLine, PersonMatch

DUE_HORIZON = timedelta(days=3 * 366)  # a promise for more than three years ahead is a misreading
_WORDY = re.compile(r"\w")

PeopleNamed = Callable[[str], Awaitable[list[PersonMatch]]]


@dataclass(frozen=True)
class Evidence:
    """A checked source: one message of the conversation and the words quoted from it."""

    document_id: int
    char_start: int
    char_end: int
    quote: str
    speaker: str
    is_owner: bool
    said_at: str  # UTC ISO
    local_day: date  # the day in the speaker's own time (what "Friday" was said against)

    @property
    def locator(self) -> Locator:
        return Locator(self.document_id, self.char_start, self.char_end)


@dataclass(frozen=True)
class ValidItem:
    kind: str
    text: str
    stated: tuple[Evidence, ...]
    person: PersonMatch | None = None
    title: str | None = None
    category: str | None = None
    due: str | None = None
    status: str = "open"
    status_evidence: tuple[Evidence, ...] = ()
    same_as: int | None = None


@dataclass(frozen=True)
class ValidUpdate:
    item: ItemRow
    evidence: tuple[Evidence, ...]
    status: str | None = None
    due: str | None = None


@dataclass(frozen=True)
class Rejection:
    reason: str  # "invented locator", "misquote", "unknown person", ...
    detail: str

    def __str__(self) -> str:
        return f"{self.reason}: {self.detail}"


@dataclass
class Checked:
    items: list[ValidItem] = field(default_factory=list)
    updates: list[ValidUpdate] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)


class _Rejected(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.rejection = Rejection(reason, detail)


def _local_day(line: MessageLine) -> date:
    moment = as_sent(line.time, line.utc_offset_minutes)
    return moment.date()


class Validator:
    """Checks the proposals for one window of one conversation."""

    def __init__(self, *, lines: Sequence[MessageLine], people_named: PeopleNamed,
                 owner_names: frozenset[str], carried: dict[int, ItemRow]) -> None:
        self.lines = list(lines)  # every line the model was shown (context and new)
        self.people_named = people_named
        self.carried = carried
        self.owner_names = {fold(n) for n in owner_names} | {fold(l.sender) for l in lines if l.is_owner}
        self.others = list(dict.fromkeys(l.sender for l in lines if not l.is_owner))

    async def check(self, proposals: Proposals) -> Checked:
        checked = Checked()
        for proposal in proposals.items:
            try:
                item, notes = await self._item(proposal)
            except _Rejected as rejected:
                checked.rejections.append(rejected.rejection)
                continue
            checked.items.append(item)
            checked.rejections.extend(notes)
        for update in proposals.updates:
            try:
                checked.updates.append(self._update(update))
            except _Rejected as rejected:
                checked.rejections.append(rejected.rejection)
        return checked

    # ------------------------------------------------------------ sources

    def evidence(self, cited: Cited) -> Evidence:
        """The line a citation points at, if it was shown and holds the quoted words."""
        try:
            locator = Locator.parse(cited.locator)
        except LocatorError:
            raise _Rejected("invented locator", f"{cited.locator!r} is not a locator") from None
        covered = [line for line in self.lines if line.document_id == locator.document_id
                   and line.char_start < max(locator.char_end, locator.char_start + 1)
                   and locator.char_start < line.char_end]
        inside_one = any(l.char_start <= locator.char_start and locator.char_end <= l.char_end for l in covered)
        whole_lines = any(l.char_start == locator.char_start for l in covered) and any(
            l.char_end == locator.char_end for l in covered)
        if not (inside_one or whole_lines):
            raise _Rejected("invented locator", f"{cited.locator} is not a line of this conversation that was read")
        quote = cited.quote.strip().strip('"“”').strip()
        if not _WORDY.search(quote):
            raise _Rejected("misquote", f"an empty quote for {cited.locator}")
        for line in covered:
            if quote_occurs(fold(quote), fold(line.text)):
                if addresses_the_model(line.text):
                    raise _Rejected("instruction", f"{cited.locator}: {STEERING_REFUSAL}")
                return Evidence(line.document_id, line.char_start, line.char_end, quote, line.sender,
                                line.is_owner, line.time, _local_day(line))
        raise _Rejected("misquote", f"{cited.locator} does not say {quote!r}")

    def _all_evidence(self, cited: Sequence[Cited]) -> tuple[Evidence, ...]:
        return tuple(dict.fromkeys(self.evidence(c) for c in cited))

    # ------------------------------------------------------------ people

    async def person(self, name: str) -> PersonMatch:
        """The one person a name stands for, preferring the people of this conversation."""
        matches = await self.people_named(name)
        if len(matches) > 1:
            here = {fold(s) for s in self.others}
            local = [m for m in matches if here & {fold(a) for a in m.aliases}]
            matches = local or matches
        if not matches:
            raise _Rejected("unknown person", f"no one in the people table is called {name!r}")
        if len(matches) > 1:
            raise _Rejected("ambiguous person", f"{name!r} could be {', '.join(m.name for m in matches[:4])}")
        match = matches[0]
        if self.owner_names & {fold(a) for a in match.aliases}:
            raise _Rejected("owner as person", f"{name!r} is the owner")
        return match

    def _speaks(self, evidence: Evidence, person: PersonMatch | None) -> bool:
        return person is not None and fold(evidence.speaker) in {fold(a) for a in person.aliases}

    # ------------------------------------------------------------ items

    async def _item(self, proposal: ProposedItem) -> tuple[ValidItem, list[Rejection]]:
        notes: list[Rejection] = []
        stated = self._all_evidence(proposal.evidence)
        person = await self._person_of(proposal, stated)
        kind = proposal.kind
        if kind == "commitment" and not any(e.is_owner for e in stated):
            raise _Rejected("wrong speaker", f"the owner's promise {proposal.text!r} cites no line of the owner's")
        if kind != "commitment" and not any(e.is_owner or self._speaks(e, person) for e in stated):
            speakers = ", ".join(sorted({e.speaker for e in stated}))
            raise _Rejected("wrong speaker", f"{proposal.text!r} ({kind}) rests on words of {speakers}, not of "
                                             f"{person.name if person else 'its person'} or the owner")
        # the line that makes it the owner's (or its person's) must say it, not a line cited beside it
        self._holds_its_words(proposal, [e for e in stated if e.is_owner or kind != "commitment"
                                         and self._speaks(e, person)])
        title = proposal.title
        category = proposal.category
        if kind == "recommendation":
            title = title or proposal.text
            category = category if category in CATEGORIES else "other"
        elif kind == "fact":
            category = category if category in FACT_TYPES else "other"
        else:
            title, category = None, None
        item = ValidItem(kind=kind, text=proposal.text or title or "", stated=stated, person=person, title=title,
                         category=category, same_as=proposal.same_as)
        if proposal.due and kind in ("commitment", "owed"):
            due, note = self._due(proposal.due, stated)
            item = replace(item, due=due)
            notes += [note] if note else []
        if proposal.status != "open" and kind != "fact":
            try:
                status_evidence = self._status_evidence(kind, proposal.status, proposal.status_evidence,
                                                        not_before=min(e.said_at for e in stated))
                item = replace(item, status=proposal.status, status_evidence=status_evidence)
            except _Rejected as rejected:
                notes.append(rejected.rejection)  # the item stands; its status stays open
        return item, notes

    def _holds_its_words(self, proposal: ProposedItem, stated: Sequence[Evidence]) -> None:
        """An item says only what a line of its own says: one of these lines holds a word of its
        text (a name, a thing, a number), so its words cannot be borrowed from a line beside them."""
        words = " ".join(filter(None, (proposal.text, proposal.title)))
        lines = {(e.document_id, e.char_start): e for e in stated}
        texts = [line.text for line in self.lines if (line.document_id, line.char_start) in lines]
        if words and not any(shares_words(words, text) for text in texts):
            raise _Rejected("unsupported", f"no line cited for {words[:80]!r} holds any of its words")

    async def _person_of(self, proposal: ProposedItem, stated: tuple[Evidence, ...]) -> PersonMatch | None:
        if proposal.person:
            return await self.person(proposal.person)
        # unnamed: whoever said it, else the one other person of a one-to-one conversation
        speakers = [e.speaker for e in stated if not e.is_owner]
        candidates = speakers[:1] or (self.others if len(self.others) == 1 else [])
        if not candidates:
            raise _Rejected("no person", f"{proposal.text!r} names no person and the lines do not say who")
        return await self.person(candidates[0])

    def _due(self, value: str, stated: Sequence[Evidence]) -> tuple[str | None, Rejection | None]:
        try:
            due = date.fromisoformat(value)
        except ValueError:
            return None, Rejection("bad date", f"{value!r} is not a date; kept without one")
        said = min(e.local_day for e in stated)
        if due < said - timedelta(days=1) or due > said + DUE_HORIZON:
            return None, Rejection("bad date", f"due {value} does not fit a promise made on {said}; kept without one")
        return due.isoformat(), None

    def _status_evidence(self, kind: str, status: str, cited: Sequence[Cited], *,
                         not_before: str) -> tuple[Evidence, ...]:
        if not cited:
            raise _Rejected("status without evidence", f"{status} needs the line that says so")
        evidence = self._all_evidence(cited)
        if kind == "recommendation" and not any(e.is_owner for e in evidence):
            raise _Rejected("wrong speaker", f"only the owner can say a recommendation is {status}")
        if any(e.said_at < not_before for e in evidence):
            raise _Rejected("out of order", f"the line for {status} comes before the item was said")
        return evidence

    # ------------------------------------------------------------ updates of open items

    def _update(self, update: ProposedUpdate) -> ValidUpdate:
        item = self.carried.get(update.id)
        if item is None:
            raise _Rejected("unknown item", f"#{update.id} is not one of the open items shown")
        if update.status is None and update.due is None:
            raise _Rejected("empty update", f"#{update.id}: neither a status nor a date")
        evidence = (self._status_evidence(item.kind, update.status, update.evidence,
                                          not_before=item.first_said or "")
                    if update.status else self._all_evidence(update.evidence))
        due = None
        if update.due:
            due, note = self._due(update.due, evidence)
            if note:
                raise _Rejected(note.reason, f"#{update.id}: {note.detail}")
        return ValidUpdate(item=item, evidence=evidence, status=update.status, due=due)
