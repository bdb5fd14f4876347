"""The memory as other agents see it through the memory server: search, read and list, each
within what the client may see, with the answers an agent can trust.

- search says which of three things happened: passages matched; nothing matched in a complete
  index; or nothing matched *yet* because the index is still building. When search cannot run at
  all, that is a fourth answer ("unavailable"), never an empty list.
- every passage carries its content hash and the index generation; a read bound to either is
  refused (Conflict) when the source was removed or corrected since, instead of returning other text.
- list is exhaustive and unranked: keyset cursors, every passage exactly once.
Ranking and SQL stay where they are (core/memory/search.py, storage/); this module only scopes, checks
and describes."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, tzinfo

from core.serving.api_errors import Conflict, NotFound, NotPermitted, no_document
from core.serving.clients import Client
from core.serving.generations import generation_for, removal_seen_by
from core.dates import parse_bound
from core.errors import EmbeddingModelMismatch, ModelUnavailable, UserFacingError
from core.times import parse_utc, utc_iso
from core.memory.facade import Memory
from core.memory.search import LIST_HINT
from core.serving.saves import passage_hash, version_locator
from core.serving.sections import (IMPORTED_SECTIONS, SAVE_KINDS, check_section_name, imported_kinds_in, imported_section,
                           is_imported_section)
from core.types import Locator, SearchFilters, SearchHit
from core.words import counted
from storage import chunks as chunk_store
from storage import documents as document_store
from storage import listing
from storage import saves as save_store

LIST_STATUSES = ("current", "superseded", "pending", "searchable", "all")
MAX_LIMIT = 100  # search results
MAX_LIST_LIMIT = 500  # passages per list page
MAX_WINDOW = 5_000


def _iso(value: datetime | str | None, zone: tzinfo) -> str | None:
    """A time as ISO 8601 in the owner's zone (with its offset, so it is one instant everywhere)."""
    if isinstance(value, str):
        value = parse_utc(value)
    return value.astimezone(zone).isoformat() if value else None


@dataclass(frozen=True)
class IndexState:
    generation: int  # moves on whenever a source is added, removed or corrected
    passages: int
    pending: int  # passages saved but not yet in semantic search

    @property
    def state(self) -> str:
        return "building" if self.pending else "ready"

    def to_json(self) -> dict:
        return {"generation": self.generation, "passages": self.passages, "pending": self.pending,
                "state": self.state}


@dataclass(frozen=True)
class Passage:
    """A passage as the server returns it from search or list."""

    locator: Locator
    text: str
    source: str  # the source's name: "WhatsApp with Maya"
    kind: str
    section: str
    time_start: str | None
    time_end: str | None
    speakers: tuple[str, ...]
    generation: int
    score: float | None = None  # search only
    record: int | None = None  # a saved record's id
    status: str | None = None  # saved records: current | superseded
    searchable: bool | None = None  # list only: its vectors are in

    def to_json(self) -> dict:
        return {"locator": str(self.locator), "text": self.text, "source": self.source, "kind": self.kind,
                "section": self.section, "time": self.time_start, "time_end": self.time_end,
                "speakers": list(self.speakers), "source_hash": passage_hash(self.text),
                "generation": self.generation, "score": round(self.score, 6) if self.score is not None else None,
                "searchable": self.searchable, "record": self.record, "status": self.status}


OUTCOMES = {
    "matched": "{passages} matched",
    "nothing_matched": "nothing matched: the index is complete and no passage fits the query and filters",
    "index_building": "nothing matched yet, but the index is still building ({pending} wait for "
                      "indexing); ask again later",
    "unavailable": "search is unavailable: {reason}",
}


@dataclass(frozen=True)
class SearchAnswer:
    outcome: str  # matched | nothing_matched | index_building | unavailable
    results: list[Passage]
    index: IndexState
    reason: str = ""  # why search was unavailable
    # semantic search always has a nearest passage: "words" when some passage holds the query's
    # words (a keyword match), "meaning_only" when the results are only the closest in meaning
    evidence: str | None = None
    # the query asks for a list ("list every trip", "what pets have I had?"): ranked results are
    # not the whole list
    exhaustive_list: bool = False
    # nothing matched because a filter names nothing the client may see: which, and what there is
    note: str = ""

    @property
    def message(self) -> str:
        text = OUTCOMES[self.outcome].format(passages=counted(len(self.results), "passage"),
                                             pending=counted(self.index.pending, "passage"), reason=self.reason)
        if self.evidence == "meaning_only":
            text += " by meaning only: none contains the query's words, so they may be unrelated"
        if self.outcome == "matched" and self.index.pending:
            text += (f"; the index is still building ({counted(self.index.pending, 'passage')} "
                     f"wait{'s' if self.index.pending == 1 else ''}), so more may match later")
        if self.exhaustive_list:
            text += f"; {LIST_HINT}"
        if self.note:
            text += f"; {self.note}"
        return text

    def to_json(self) -> dict:
        return {"outcome": self.outcome, "message": self.message, "evidence": self.evidence,
                "exhaustive_list": self.exhaustive_list,
                "results": [p.to_json() for p in self.results], "index": self.index.to_json()}


@dataclass(frozen=True)
class ReadAnswer:
    locator: Locator
    text: str
    source: str
    kind: str
    section: str
    senders: tuple[str, ...]
    time_start: str | None
    time_end: str | None
    generation: int
    document_length: int
    record: int | None = None
    version: int | None = None
    superseded_by: Locator | None = None  # a corrected record's current version

    def to_json(self) -> dict:
        return {"locator": str(self.locator), "text": self.text, "source": self.source, "kind": self.kind,
                "section": self.section, "senders": list(self.senders), "time": self.time_start,
                "time_end": self.time_end, "source_hash": passage_hash(self.text), "generation": self.generation,
                "document_length": self.document_length, "record": self.record, "version": self.version,
                "superseded_by": str(self.superseded_by) if self.superseded_by else None}


@dataclass(frozen=True)
class ListPage:
    items: list[Passage]
    next_cursor: str | None
    generation: int
    message: str | None = None  # an empty page's filters that name nothing: which, and what there is

    def to_json(self) -> dict:
        return {"items": [p.to_json() for p in self.items], "next_cursor": self.next_cursor,
                "generation": self.generation, "message": self.message}


@dataclass(frozen=True)
class Filters:
    """Filters as agents send them: kinds, a person, date bounds as text (see core/dates.py)."""

    kinds: tuple[str, ...] = ()
    person: str | None = None
    since: str | None = None
    until: str | None = None


@dataclass
class _Visibility:
    """What a client may see: kinds to ask the store for, and the sections a hit must be in."""

    kinds: tuple[str, ...]
    sections: tuple[str, ...] | None  # None: every section
    nothing: bool = False  # the client may see nothing the request asks for
    imported_kinds: tuple[str, ...] | None = None
    saved_sections: tuple[str, ...] | None = None


class MemoryApi:
    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.conn = memory.conn

    async def index_state(self, client: Client | None = None) -> IndexState:
        """The index's counts over what `client` may see (all of it for the owner or None); the
        generation is the one the client is told (core/serving/generations.py)."""
        generation = await generation_for(self.conn, client)
        if client is None or not client.sections:
            counts = await listing.index_counts(self.conn)
        else:
            visibility = await self._visibility(client, ())
            counts = await listing.index_counts_in(self.conn, listing.ListScope(
                imported_kinds=visibility.imported_kinds, saved_sections=visibility.saved_sections, status="all"))
        return IndexState(generation=generation, passages=counts.passages, pending=counts.pending)

    async def _sections_held(self, client: Client) -> list[str]:
        """The sections that hold something, of those the client may see."""
        held = await document_store.kinds(self.conn)
        holding = dict.fromkeys([imported_section(k) for k in held if k not in SAVE_KINDS]
                                + await save_store.sections(self.conn))
        return [s for s in holding if client.may_see(s)]

    async def capabilities(self, client: Client) -> dict:
        """What this client may do and see, and the state of the index, over what it may see."""
        return {"client": client.name, "operations": list(client.operations),
                "sections": list(client.sections) or "all",
                "sections_held": await self._sections_held(client),
                "save_kinds": list(SAVE_KINDS), "index": (await self.index_state(client)).to_json()}

    # ------------------------------------------------------------------ who may see what

    async def _visibility(self, client: Client, kinds: tuple[str, ...], section: str | None = None) -> _Visibility:
        held = await document_store.kinds(self.conn)
        saved = await save_store.sections(self.conn)
        allowed = tuple(client.sections) if client.sections else tuple(IMPORTED_SECTIONS) + tuple(saved)
        if section is not None:
            section = check_section_name(section)
            client.require_section(section)
            allowed = (section,)
        imported = tuple(s for s in allowed if is_imported_section(s))
        saved_allowed = tuple(s for s in allowed if not is_imported_section(s))
        visible_kinds = set(imported_kinds_in(imported, held)) | ({k for k in held if k in SAVE_KINDS}
                                                                  if saved_allowed else set())
        unrestricted = not client.sections and section is None
        if not unrestricted:
            # decided by the token and the kind's name alone, never by what the store holds
            for kind in kinds:
                if not (kind in SAVE_KINDS and saved_allowed or imported_section(kind) in imported):
                    raise NotPermitted(f"client {client.name!r} may not see sources of kind {kind!r} "
                                       f"(section {imported_section(kind)!r})" if kind not in SAVE_KINDS else
                                       f"client {client.name!r} may not see saved {kind!r} records here",
                                       hint="ask the owner for a token with that section (clients add --sections)")
        wanted = kinds or (() if unrestricted else tuple(sorted(visible_kinds)))
        return _Visibility(
            kinds=wanted, sections=None if unrestricted else allowed,
            nothing=not unrestricted and not kinds and not visible_kinds,
            imported_kinds=None if unrestricted else imported_kinds_in(imported, held),
            saved_sections=None if unrestricted else saved_allowed)

    async def _why_nothing(self, client: Client, filters: Filters, section: str | None = None) -> str:
        """Why the filters keep nothing, when one of them names nothing the client may see: the
        kind, person or section, and what there is instead ("" when each names something). A
        client kept to some sections hears only of what they hold; of people, nothing (a name's
        absence from its sections would tell of the others)."""
        notes = []
        held = await document_store.kinds(self.conn)
        visible = held if not client.sections else list((await self._visibility(client, ())).kinds)
        if unknown := [k for k in filters.kinds if k not in visible]:
            notes.append(f"no sources of kind {', '.join(map(repr, unknown))} (kinds held: "
                         f"{', '.join(visible) or 'none yet'})")
        if filters.person and not client.sections:
            others = await self.memory.others_than(filters.person)
            if others is not None:
                notes.append(f"no one called {filters.person!r} (people with the most messages: "
                             f"{', '.join(others) or 'none yet'})")
        sections = await self._sections_held(client) if section is not None else []
        if sections and check_section_name(section) not in sections:
            notes.append(f"section {section!r} holds nothing (sections that hold something: {', '.join(sections)})")
        return "; ".join(notes)

    async def _search_filters(self, filters: Filters, kinds: tuple[str, ...]) -> SearchFilters:
        zone = self.memory.context.timezone
        return SearchFilters(kinds=kinds, person=filters.person,
                             since=parse_bound(filters.since, zone=zone, end=False) if filters.since else None,
                             until=parse_bound(filters.until, zone=zone, end=True) if filters.until else None)

    # ------------------------------------------------------------------ search

    async def search(self, client: Client, query: str, *, limit: int = 10, mode: str = "hybrid",
                     filters: Filters = Filters()) -> SearchAnswer:
        client.require("search")
        if not 1 <= limit <= MAX_LIMIT:
            raise UserFacingError(f"limit {limit} is out of range", hint=f"use 1 to {MAX_LIMIT}")
        visibility = await self._visibility(client, filters.kinds)
        search_filters = await self._search_filters(filters, visibility.kinds)
        index = await self.index_state(client)
        if visibility.nothing:
            return SearchAnswer("nothing_matched" if not index.pending else "index_building", [], index,
                                note=await self._why_nothing(client, filters))
        try:
            passages = await self._visible_hits(query, limit=limit, mode=mode, filters=search_filters,
                                                sections=visibility.sections, generation=index.generation)
        except (ModelUnavailable, EmbeddingModelMismatch) as error:
            return SearchAnswer("unavailable", [], index, reason=str(error))
        listing_asked = (await self.memory.searcher.understand(query)).intent.asks_for_list
        if not passages:
            return SearchAnswer("index_building" if index.pending else "nothing_matched", [], index,
                                exhaustive_list=listing_asked, note=await self._why_nothing(client, filters))
        evidence = "words"
        if mode != "keyword" and not await self._visible_hits(query, limit=1, mode="keyword", filters=search_filters,
                                                              sections=visibility.sections, generation=index.generation):
            evidence = "meaning_only"  # (asked within what the client may see: hidden words tell nothing)
        return SearchAnswer("matched", passages, index, evidence=evidence, exhaustive_list=listing_asked)

    async def _visible_hits(self, query: str, *, limit: int, mode: str, filters: SearchFilters,
                            sections: tuple[str, ...] | None, generation: int) -> list[Passage]:
        """Hits the client may see, superseded versions of saved records left out. Ranking is the
        memory's; when some hits are dropped, it is asked again for more (at most three times)."""
        asked = limit
        for _ in range(3):
            hits = await self.memory.search(query, limit=asked, mode=mode, filters=filters, explain_filters=False)
            passages = await self._passages(hits, generation)
            kept = [p for p in passages if p.status != "superseded" and (sections is None or p.section in sections)]
            if len(kept) >= limit or len(hits) < asked or len(kept) == len(passages):
                return kept[:limit]
            asked = min(asked + 2 * (len(passages) - len(kept)) + 5, MAX_LIMIT * 3)
        return kept[:limit]

    async def _passages(self, hits: list[SearchHit], generation: int) -> list[Passage]:
        versions = await save_store.versions_of_documents(self.conn, [h.locator.document_id for h in hits])
        zone = self.memory.context.timezone
        out = []
        for hit in hits:
            version = versions.get(hit.locator.document_id)
            out.append(Passage(
                locator=hit.locator, text=hit.text, source=hit.document, kind=hit.kind,
                section=version.section if version else imported_section(hit.kind),
                time_start=_iso(hit.time_start, zone), time_end=_iso(hit.time_end, zone), speakers=hit.speakers,
                generation=generation, score=hit.score, record=version.record_id if version else None,
                status=("superseded" if version.superseded_by else "current") if version else None))
        return out

    # ------------------------------------------------------------------ read

    async def read(self, client: Client, locator: str, *, generation: int | None = None,
                   expected_hash: str | None = None, window: int = 0) -> ReadAnswer:
        """The exact text at a locator, with its senders, time and source. Bound to a generation
        or a content hash, a source removed or corrected since is a Conflict, never other text."""
        client.require("read")
        if not 0 <= window <= MAX_WINDOW:
            raise UserFacingError(f"window {window} is out of range", hint=f"use 0 to {MAX_WINDOW}")
        loc = Locator.parse(locator)
        bound = generation is not None or expected_hash is not None
        now = await generation_for(self.conn, client)
        document = await document_store.get_document(self.conn, loc.document_id)
        if document is None:
            removal = removal_seen_by(client, await listing.removal_of(self.conn, loc.document_id))
            if removal is None:
                raise no_document(loc.document_id)
            removed = removal.generation
            error = Conflict if bound else NotFound
            raise error(f"doc{loc.document_id} was removed (forgotten by the owner) at generation {removed}",
                        hint="search again: its text is no longer in the memory",
                        **({"details": {"removed_generation": removed, "generation": now}} if bound else {}))
        version = (await save_store.versions_of_documents(self.conn, [document.id])).get(document.id)
        section = version.section if version else imported_section(document.kind)
        if not client.may_see(section):
            raise no_document(document.id)
        current = None
        if version is not None and version.superseded_by is not None:
            current = await save_store.current_version(self.conn, version.record_id)
            if generation is not None and (version.superseded_generation or 0) > generation:
                raise Conflict(f"record {version.record_id} was corrected at generation "
                               f"{version.superseded_generation}, after generation {generation}",
                               hint="read its current version",
                               details={"record": version.record_id, "generation": now,
                                        "current": str(version_locator(current)) if current else None})
        source = await self.memory.read(loc, window=window)
        if expected_hash is not None and passage_hash(source.text) != expected_hash:
            raise Conflict(f"the text at {loc} is not the text you saw (its content hash differs)",
                           hint="search or list again for the current passage",
                           details={"source_hash": passage_hash(source.text), "generation": now})
        zone = self.memory.context.timezone
        facts = await listing.passage_facts(self.conn, document.id, source.locator.char_start,
                                            source.locator.char_end)
        return ReadAnswer(
            locator=source.locator, text=source.text, source=document.name, kind=document.kind, section=section,
            senders=facts.senders, time_start=_iso(facts.time_start, zone), time_end=_iso(facts.time_end, zone),
            generation=now, document_length=document.text_length,
            record=version.record_id if version else None, version=version.version if version else None,
            superseded_by=version_locator(current) if current else None)

    # ------------------------------------------------------------------ list

    async def list(self, client: Client, *, filters: Filters = Filters(), section: str | None = None,
                   status: str = "current", cursor: str | None = None, limit: int = 100) -> ListPage:
        """Every passage the filters keep, oldest first then undated, a page at a time."""
        client.require("list")
        if status not in LIST_STATUSES:
            raise UserFacingError(f"unknown status {status!r}", hint=f"use one of {', '.join(LIST_STATUSES)}")
        if not 1 <= limit <= MAX_LIST_LIMIT:
            raise UserFacingError(f"limit {limit} is out of range", hint=f"use 1 to {MAX_LIST_LIMIT}")
        visibility = await self._visibility(client, filters.kinds, section)
        search_filters = await self._search_filters(filters, filters.kinds)
        names = await self.memory.searcher.person_names(filters.person) if filters.person else []
        where = chunk_store.ChunkFilter(kinds=filters.kinds, speakers=tuple(dict.fromkeys(names)),
                                        since=utc_iso(search_filters.since), until=utc_iso(search_filters.until))
        scope = listing.ListScope(imported_kinds=visibility.imported_kinds, saved_sections=visibility.saved_sections,
                                  status=status)
        fingerprint = _digest(json.dumps([client.id, filters.__dict__, section, status], default=str))
        position = _decode_cursor(cursor, fingerprint) if cursor else listing.ListPosition()
        generation = await generation_for(self.conn, client)
        zone = self.memory.context.timezone
        page = await listing.list_chunks(self.conn, where=where, scope=scope, after=position, limit=limit)
        items = [Passage(
            locator=Locator(c.document_id, c.char_start, c.char_end), text=c.text, source=c.document, kind=c.kind,
            section=r.section or imported_section(c.kind), time_start=_iso(c.time_start, zone),
            time_end=_iso(c.time_end, zone), speakers=c.speakers, generation=generation, record=r.record_id,
            status=("superseded" if r.superseded_by else "current") if r.record_id else None,
            searchable=r.embedded) for r in page.chunks for c in (r.chunk,)]
        why = await self._why_nothing(client, filters, section) if not items and cursor is None else ""
        return ListPage(items=items, next_cursor=_encode_cursor(page.next, fingerprint) if page.next else None,
                        generation=generation, message=why or None)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _encode_cursor(position: listing.ListPosition, fingerprint: str) -> str:
    raw = json.dumps([int(position.dated), position.time, position.chunk_id, fingerprint], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode_cursor(cursor: str, fingerprint: str) -> listing.ListPosition:
    try:
        dated, time, chunk_id, made_for = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        position = listing.ListPosition(bool(dated), str(time), int(chunk_id))
        if not 0 <= position.chunk_id < 2**63:  # beyond SQLite's integers
            raise ValueError(chunk_id)
    except (ValueError, TypeError, OverflowError, RecursionError, binascii.Error):  # 1e400 is infinity: int() overflows
        raise UserFacingError("not a cursor this server gave", hint="pass next_cursor exactly as it came") from None
    if made_for != fingerprint:
        raise UserFacingError("this cursor belongs to another listing (other filters or another client)",
                              hint="send the same filters with it, or start again without a cursor")
    return position
