"""The agent's tools and their dispatch. Every tool reads or writes only the owner's own store
and profile; source text goes back to the model inside <source> delimiters, as data
(core/agent/delimiters.py). Writes must rest on evidence: a new profile line cites a source a
tool returned in this run that says it, and `remember` keeps only the owner's own words."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, time, tzinfo

from core.agent.citations import Evidence, claim_problems, said_by_owner
from core.steering import STEERING_REFUSAL, addresses_the_model
from core.agent.delimiters import neutralise, source_block
from core.agent.ledger_tools import LedgerTools
from core.agent.schemas import MAX_SEARCH, MAX_WINDOW, Catalogue, ToolError, parse_arguments
from core.privacy.disclosure import ALLOW, WITHHELD, Disclosure, Shown, model_sees
from core.errors import UserFacingError
from core.memory.facade import Memory
from core.biographer.profile import EditRejected
from core.biographer.profile_book import ProfileBook
from core.times import parse_utc, utc_iso_precise
from core.types import Locator, SearchFilters
from core.words import counted
from storage import documents as document_store
from storage import messages as message_store
from storage import questions as question_store
from storage import timeline as timeline_store

MAX_READ_CHARS = 8000

Remember = Callable[[str, datetime | None], Awaitable[Locator]]


@dataclass
class Turn:
    """What one run did: the evidence it saw and the changes it made."""

    run_id: int | None
    edit_kind: str = "edit"  # "correction" when the owner's own words made the change
    evidence: Evidence = field(default_factory=Evidence)
    catalogue: Catalogue = field(default_factory=Catalogue)
    owner_words: tuple[str, ...] = ()  # what the owner said in this conversation: all `remember` may keep
    owner_said: str = ""  # the owner's message this run answers (the ledger tools' source)
    owner_source: Locator | None = None  # where that message was stored, once a tool stored it
    edits: int = 0
    questions_added: int = 0
    questions_resolved: list[int] = field(default_factory=list)
    events_added: int = 0


class Toolbox(LedgerTools):
    """`remote`: the model reading the results is elsewhere, so sources are shown by the owner's
    disclosure policy: a denied source's passages are counted as withheld, a descriptors_only
    source's shown by kind, people and date only (core/privacy/disclosure.py)."""

    def __init__(self, *, memory: Memory, book: ProfileBook, zone: tzinfo, remember: Remember,
                 remote: bool = False) -> None:
        self.memory = memory
        self.conn = memory.conn
        self.book = book
        self.zone = zone
        self.remember = remember
        self.remote = remote
        self.disclosure = Disclosure(memory.conn)
        # every tool by the name the model calls it (the schemas in core/agent/schemas.py)
        self.tools: dict[str, Callable[..., Awaitable[str]]] = {
            "search": self._search, "grep": self._grep, "read_source": self._read_source,
            "edit_profile": self._edit_profile, "add_open_question": self._add_open_question,
            "resolve_open_question": self._resolve_open_question, "add_timeline_event": self._add_timeline_event,
            "remember": self._remember,
            "ledger_query": self._ledger_query, "ledger_save": self._ledger_save, "ledger_update": self._ledger_update,
        }

    async def _shown(self, document_ids: Iterable[int]) -> dict[int, Shown]:
        """What the model may see of each source (no policy is read for a model on this machine)."""
        ids = list(document_ids)
        policies = await self.disclosure.for_documents(ids) if self.remote else {}
        return {i: model_sees(policies.get(i, ALLOW), remote=self.remote) for i in ids}

    def _described(self, locator: Locator, kind: str, when: datetime | None, speakers: str) -> str:
        return self.source(locator, kind, when, f"(its text is {WITHHELD}: only its kind, people and date "
                                                f"are shared)", kind=kind, speakers=speakers)

    async def dispatch(self, schema: dict, raw_arguments: str, turn: Turn) -> str:
        """Run one tool call; a mistake comes back as ToolError (the loop feeds it to the model)."""
        args = parse_arguments(schema, raw_arguments)
        try:
            return await self.tools[schema["function"]["name"]](turn, **args)
        except EditRejected as error:
            raise ToolError(f"{error.message}; {error.hint}") from None
        except UserFacingError as error:
            raise ToolError(str(error)) from None

    # ------------------------------------------------------------ reading

    def _date(self, value: str | None, *, end: bool = False) -> datetime | None:
        if not value:
            return None
        try:
            day = datetime.fromisoformat(value)
        except ValueError:
            raise ToolError(f"not a date: {value!r}; use YYYY-MM-DD") from None
        if end and day.time() == time(0):
            day = day.replace(hour=23, minute=59, second=59)
        return day if day.tzinfo else day.replace(tzinfo=self.zone)

    def _filters(self, person: str | None, since: str | None, until: str | None,
                 kinds: list[str] | None = None) -> SearchFilters:
        return SearchFilters(kinds=tuple(kinds or ()), person=person, since=self._date(since),
                             until=self._date(until, end=True))

    def _local(self, moment: datetime | None) -> datetime | None:
        return moment.astimezone(self.zone) if moment else None

    @staticmethod
    def source(locator: Locator, document: str, when: datetime | None, text: str, **attrs: str) -> str:
        return source_block(str(locator), document, when.strftime("%Y-%m-%d %H:%M") if when else "undated",
                            text, **attrs)

    async def _search(self, turn: Turn, *, query: str, limit: int = 8, mode: str = "hybrid",
                      kinds: list[str] | None = None, person: str | None = None, since: str | None = None,
                      until: str | None = None) -> str:
        filters = self._filters(person, since, until, kinds)
        hits = await self.memory.search(query, limit=max(1, min(limit, MAX_SEARCH)), mode=mode, filters=filters,
                                        explain_filters=False)
        if not hits:
            return nothing_found("passages", turn.catalogue, kinds=kinds, person=person, since=since, until=until,
                                 advice="try other words, keyword mode, or grep")
        out = []
        seen = await self._shown(hit.locator.document_id for hit in hits)
        withheld = 0
        for hit in hits:
            if seen[hit.locator.document_id] is Shown.NOTHING:
                withheld += 1
                continue
            when = self._local(hit.time_start)
            turn.evidence.add(hit.locator, hit.document, when)
            if seen[hit.locator.document_id] is Shown.DESCRIPTOR:
                out.append(self._described(hit.locator, hit.kind, when, ", ".join(hit.speakers)))
                continue
            out.append(self.source(hit.locator, hit.document, when, hit.text, kind=hit.kind,
                                   speakers=", ".join(hit.speakers)))
        if withheld:
            out.append(f"({counted(withheld, 'passage')} {WITHHELD}: their source stays on the owner's machine)")
        if hits[0].hint:
            out.append(f"(note: {hits[0].hint})")
        return "\n".join(out)

    async def _grep(self, turn: Turn, *, pattern: str, regex: bool = False, page: int = 1,
                    oldest_first: bool = False, kinds: list[str] | None = None, person: str | None = None,
                    since: str | None = None, until: str | None = None) -> str:
        result = await self.memory.grep(pattern, regex=regex, page=page, page_size=20,
                                        newest_first=not oldest_first,
                                        filters=self._filters(person, since, until, kinds), explain_filters=False)
        if not result.matches:
            return nothing_found(f"matches of {pattern!r}" + (f" on page {page}" if page > 1 else ""),
                                 turn.catalogue, kinds=kinds, person=person, since=since, until=until,
                                 advice="try another spelling, a shorter word, or search")
        lines = []
        seen = await self._shown(match.locator.document_id for match in result.matches)
        withheld = 0
        for match in result.matches:
            if seen[match.locator.document_id] is Shown.NOTHING:
                withheld += 1
                continue
            when = self._local(match.time)
            turn.evidence.add(match.locator, match.document, when)
            if seen[match.locator.document_id] is Shown.DESCRIPTOR:
                lines.append(self._described(match.locator, match.kind, when, match.sender or ""))
                continue
            lines.append(self.source(match.locator, match.document, when, match.line, kind=match.kind))
        if withheld:
            lines.append(f"({withheld} match(es) {WITHHELD}: their source stays on the owner's machine)")
        more = f"; next page: {result.page + 1}" if result.has_more else ""
        return f"{counted(result.total, 'match')}, page {result.page}{more}\n" + "\n".join(lines)

    async def _read_source(self, turn: Turn, *, locator: str, window: int = 300) -> str:
        source = await self.memory.read(locator, window=max(0, min(window, MAX_WINDOW)))
        seen = (await self._shown([source.locator.document_id]))[source.locator.document_id]
        if seen is Shown.NOTHING:
            return f"{locator}: {WITHHELD}; its source stays on the owner's machine"
        if seen is Shown.DESCRIPTOR:
            when = await self.when_at(source.locator)
            turn.evidence.add(source.locator, source.document, when)
            return self._described(source.locator, source.kind, when, "")
        text, loc = source.text, source.locator
        note = ""
        if len(text) > MAX_READ_CHARS:
            text = text[:MAX_READ_CHARS]
            loc = Locator(loc.document_id, loc.char_start, loc.char_start + len(text))
            note = f"\n(cut at {MAX_READ_CHARS} characters; read on from doc{loc.document_id}:{loc.char_end}-...)"
        when = await self.when_at(loc)
        turn.evidence.add(loc, source.document, when)
        return self.source(loc, source.document, when, text, kind=source.kind) + note

    async def when_at(self, locator: Locator) -> datetime | None:
        message = await message_store.message_at(self.conn, locator.document_id, locator.char_start)
        moment = message.time if message else None
        if moment is None:
            document = await document_store.get_document(self.conn, locator.document_id)
            moment = document.time_start if document else None
        return self._local(parse_utc(moment))

    # ------------------------------------------------------------ writing

    def _check_cited(self, turn: Turn, text: str) -> None:
        unseen = turn.evidence.unseen(text)
        if unseen:
            raise ToolError(f"{', '.join(unseen)} were not returned by a tool in this run; "
                            "cite only locators you searched or read")

    async def _edit_profile(self, turn: Turn, *, old_text: str, new_text: str, section: str | None = None) -> str:
        problems = await claim_problems(new_text, old_text, turn.evidence, self._read_text)
        if problems:
            raise ToolError("edit refused: " + "; ".join(problems))
        edit = await self.book.edit(old_text, new_text, section=section, run_id=turn.run_id,
                                    kind=turn.edit_kind)
        turn.edits += 1
        return f"edit {edit.id} applied to {edit.section or 'bio.md'}"

    async def _read_text(self, locator: Locator, window: int) -> str:
        return (await self.memory.read(locator, window=window)).text

    async def _add_open_question(self, turn: Turn, *, question: str, why: str = "", priority: int = 3,
                                 locators: list[str] | None = None) -> str:
        self._check_cited(turn, " ".join(locators or []))
        existing = await question_store.find_open_by_text(self.conn, question)
        if existing:
            return f"question #{existing} is already open"
        async with self.conn.transaction():
            qid = await question_store.add_question(
                self.conn, text=question, why=why, priority=max(1, min(priority, 5)), run_id=turn.run_id,
                locators=list(locators or []), at=utc_iso_precise(self.book.clock()))
        turn.questions_added += 1
        return f"question #{qid} added"

    async def _resolve_open_question(self, turn: Turn, *, id: int, resolution: str, status: str = "answered") -> str:
        async with self.conn.transaction():
            done = await question_store.resolve(self.conn, id, status=status, resolution=resolution,
                                                at=utc_iso_precise(self.book.clock()))
        if not done:
            raise ToolError(f"there is no open question #{id}")
        turn.questions_resolved.append(id)
        return f"question #{id} {status}"

    async def _add_timeline_event(self, turn: Turn, *, date: str, title: str, locators: list[str],
                                  detail: str = "") -> str:
        self._check_cited(turn, " ".join(locators))
        async with self.conn.transaction():
            saved = await timeline_store.add_event(
                self.conn, date=date, title=title, detail=detail, locators=locators, run_id=turn.run_id,
                at=utc_iso_precise(self.book.clock()))
        turn.events_added += saved.created
        return f"timeline event #{saved.id} " + ("added" if saved.created else "already there; sources merged")

    async def _remember(self, turn: Turn, *, text: str, when: str | None = None) -> str:
        if not said_by_owner(text, turn.owner_words):
            raise ToolError("remember keeps only what the owner said in this conversation, copied from their "
                            "messages; words from a source are already stored there: cite its locator instead")
        if addresses_the_model(text):  # the owner pasting a planted line does not make it theirs
            raise ToolError(f"not remembered: {STEERING_REFUSAL}")
        locator = await self.remember(text, self._date(when))
        moment = await self.when_at(locator)
        turn.evidence.add(locator, "Told to the biographer", moment)
        return f"stored; cite it as [{locator}]"


def nothing_found(what: str, catalogue: Catalogue, *, kinds: list[str] | None, person: str | None,
                  since: str | None, until: str | None, advice: str) -> str:
    """An empty result that names the filters it used and what the store does hold, so the model
    can drop a wrong filter instead of concluding that nothing exists."""
    used = []
    if kinds:
        used.append(f"of kind {', '.join(map(repr, kinds))} (kinds here: {', '.join(catalogue.kinds) or 'none'})")
    if person:
        listed = ", ".join(map(neutralise, catalogue.people[:8]))  # names come from sources
        used.append(f"spoken by {neutralise(person)!r}" + (f" (people here include {listed})" if listed else ""))
    if since or until:
        used.append(f"dated {since or '…'} to {until or '…'} ({catalogue.span()})")
    if not used:
        return f"no {what} found; {advice}"
    return f"no {what} " + "; ".join(used) + f"; {advice}, or drop a filter"
