"""The agent's tools: JSON schemas and dispatch. Every tool reads or writes only the owner's own
store and profile; source text goes back to the model inside <source> delimiters, as data."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, time, tzinfo
from typing import Any

from core.agent.citations import Evidence
from core.errors import UserFacingError
from core.memory import Memory
from core.profile import EditRejected
from core.profile_book import ProfileBook, iso, parse_iso
from core.types import Locator, SearchFilters
from storage import documents as document_store
from storage import messages as message_store
from storage import questions as question_store
from storage import timeline as timeline_store
from storage.db import transaction

MAX_SEARCH = 20
MAX_WINDOW = 3000
MAX_READ_CHARS = 8000
_DATE_RE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")

Remember = Callable[[str, datetime | None], Awaitable[Locator]]


class ToolError(Exception):
    """A tool call the model got wrong: the message goes back to it so it can fix the call."""


def _s(description: str, **extra: Any) -> dict:
    return {"type": "string", "description": description, **extra}


def _i(description: str, **extra: Any) -> dict:
    return {"type": "integer", "description": description, **extra}


_FILTERS = {
    "person": _s("only text where this person speaks (any of their names)"),
    "since": _s("only from this date, YYYY-MM-DD"),
    "until": _s("only up to this date, YYYY-MM-DD (inclusive)"),
}
_LOCATORS = {"type": "array", "items": {"type": "string"},
             "description": "locators (docN:START-END) of the sources this rests on, as tools returned them"}

SCHEMAS: dict[str, tuple[str, dict, list[str]]] = {
    "search": ("Hybrid search (meaning + keywords) over all the owner's sources. Returns passages with locators.",
               {"query": _s("what to look for"), "limit": _i("how many passages, 1-20", minimum=1, maximum=20),
                "mode": _s("hybrid (default), keyword or semantic", enum=["hybrid", "keyword", "semantic"]),
                "kinds": {"type": "array", "items": {"type": "string"}, "description": "only these source kinds"},
                **_FILTERS}, ["query"]),
    "grep": ("Every occurrence of a word or phrase (or regex), in time order, paginated.",
             {"pattern": _s("word, phrase or regular expression"), "regex": {"type": "boolean"},
              "page": _i("page number, from 1", minimum=1), "oldest_first": {"type": "boolean"}, **_FILTERS},
             ["pattern"]),
    "read_source": ("Read the source text at a locator, widened by `window` characters each side.",
                    {"locator": _s("docN:START-END as returned by search or grep"),
                     "window": _i("characters of context each side, 0-3000", minimum=0, maximum=MAX_WINDOW)},
                    ["locator"]),
    "edit_profile": ("Surgical edit of bio.md: old_text must match the current profile exactly once. "
                     "Empty old_text appends new_text to `section`; empty new_text deletes old_text. "
                     "Cite sources as [docN:START-END].",
                     {"old_text": _s("exact current text to replace, or empty to append"),
                      "new_text": _s("replacement text, or empty to delete"),
                      "section": _s("section to append to when old_text is empty")},
                     ["old_text", "new_text"]),
    "add_open_question": ("Record a question for the owner that would fill a gap or settle a contradiction.",
                          {"question": _s("the question, as you would ask it"),
                           "why": _s("what it would settle in the profile"),
                           "priority": _i("1 (nice to know) to 5 (the profile is wrong or empty without it)",
                                          minimum=1, maximum=5),
                           "locators": _LOCATORS}, ["question"]),
    "resolve_open_question": ("Close an open question once the sources or the owner answered it.",
                              {"id": _i("the question's number"), "resolution": _s("what the answer was"),
                               "status": _s("answered (default) or dropped", enum=["answered", "dropped"])},
                              ["id", "resolution"]),
    "add_timeline_event": ("Add a dated event of the owner's life to the timeline.",
                           {"date": _s("YYYY, YYYY-MM or YYYY-MM-DD"), "title": _s("what happened, briefly"),
                            "detail": _s("a sentence of detail"), "locators": _LOCATORS},
                           ["date", "title", "locators"]),
    "remember": ("Store something the owner told you in this chat as a dated source, so it can be cited.",
                 {"text": _s("the owner's words (or a faithful summary of them)"),
                  "when": _s("when it happened, YYYY-MM-DD, if the owner said")}, ["text"]),
}

_TYPES = {"string": str, "integer": int, "boolean": bool, "array": list}


def tool_schemas(names: tuple[str, ...] | None = None) -> list[dict]:
    return [{"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": props, "required": required,
                       "additionalProperties": False}}}
        for name, (description, props, required) in SCHEMAS.items() if names is None or name in names]


def parse_arguments(name: str, raw: str) -> dict:
    """Arguments checked against the tool's schema; ToolError says what is wrong."""
    if name not in SCHEMAS:
        raise ToolError(f"unknown tool {name!r}; the tools are: {', '.join(SCHEMAS)}")
    try:
        args = json.loads(raw or "{}")
    except json.JSONDecodeError as error:
        raise ToolError(f"the arguments of {name} are not valid JSON ({error.msg} at char {error.pos}); "
                        "send one JSON object") from None
    if not isinstance(args, dict):
        raise ToolError(f"the arguments of {name} must be a JSON object")
    _, props, required = SCHEMAS[name]
    missing = [key for key in required if key not in args]
    unknown = [key for key in args if key not in props]
    if missing or unknown:
        raise ToolError(f"{name}: " + "; ".join(
            ([f"missing {', '.join(missing)}"] if missing else [])
            + ([f"unknown argument {', '.join(unknown)}"] if unknown else []))
            + f"; it takes {', '.join(props)}")
    for key, value in args.items():
        kind = props[key].get("type")
        expected = _TYPES.get(kind)
        if value is None and key not in required:
            continue
        if expected and (not isinstance(value, expected) or (kind == "integer" and isinstance(value, bool))):
            raise ToolError(f"{name}: {key} must be a {kind}, not {type(value).__name__}")
        if "enum" in props[key] and value not in props[key]["enum"]:
            raise ToolError(f"{name}: {key} must be one of {', '.join(props[key]['enum'])}")
    return {k: v for k, v in args.items() if v is not None}


@dataclass
class Turn:
    """What one run did: the evidence it saw and the changes it made."""

    run_id: int | None
    edit_kind: str = "edit"  # "correction" when the owner's own words made the change
    evidence: Evidence = field(default_factory=Evidence)
    edits: int = 0
    questions_added: int = 0
    questions_resolved: list[int] = field(default_factory=list)
    events_added: int = 0


def _escape(text: str) -> str:
    # a source cannot close its own delimiter and speak as the system
    return text.replace("</source", "<\\/source").replace("<source", "<\\source")


class Toolbox:
    def __init__(self, *, memory: Memory, book: ProfileBook, zone: tzinfo, remember: Remember) -> None:
        self.memory = memory
        self.conn = memory.conn
        self.book = book
        self.zone = zone
        self.remember = remember

    async def dispatch(self, name: str, raw_arguments: str, turn: Turn) -> str:
        """Run one tool call; a mistake comes back as ToolError (the loop feeds it to the model)."""
        args = parse_arguments(name, raw_arguments)
        try:
            return await getattr(self, f"_{name}")(turn, **args)
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

    def _source(self, locator: Locator, document: str, when: datetime | None, text: str, **attrs: str) -> str:
        extra = "".join(f' {k}="{v}"' for k, v in attrs.items() if v)
        stamp = when.strftime("%Y-%m-%d %H:%M") if when else "undated"
        return (f'<source locator="{locator}" document="{_escape(document)}" when="{stamp}"{extra}>\n'
                f"{_escape(text)}\n</source>")

    async def _search(self, turn: Turn, *, query: str, limit: int = 8, mode: str = "hybrid",
                      kinds: list[str] | None = None, person: str | None = None, since: str | None = None,
                      until: str | None = None) -> str:
        hits = await self.memory.search(query, limit=max(1, min(limit, MAX_SEARCH)), mode=mode,
                                        filters=self._filters(person, since, until, kinds))
        if not hits:
            return "no passages found; try other words, keyword mode, or grep"
        out = []
        for hit in hits:
            when = self._local(hit.time_start)
            turn.evidence.add(hit.locator, hit.document, when)
            out.append(self._source(hit.locator, hit.document, when, hit.text, kind=hit.kind,
                                    speakers=", ".join(hit.speakers)))
        return "\n".join(out)

    async def _grep(self, turn: Turn, *, pattern: str, regex: bool = False, page: int = 1,
                    oldest_first: bool = False, person: str | None = None, since: str | None = None,
                    until: str | None = None) -> str:
        result = await self.memory.grep(pattern, regex=regex, page=page, page_size=20,
                                        newest_first=not oldest_first,
                                        filters=self._filters(person, since, until))
        lines = []
        for match in result.matches:
            when = self._local(match.time)
            turn.evidence.add(match.locator, match.document, when)
            lines.append(self._source(match.locator, match.document, when, match.line, kind=match.kind))
        more = f"; next page: {result.page + 1}" if result.has_more else ""
        return f"{result.total} matches, page {result.page}{more}\n" + "\n".join(lines)

    async def _read_source(self, turn: Turn, *, locator: str, window: int = 300) -> str:
        source = await self.memory.read(locator, window=max(0, min(window, MAX_WINDOW)))
        text, loc = source.text, source.locator
        note = ""
        if len(text) > MAX_READ_CHARS:
            text = text[:MAX_READ_CHARS]
            loc = Locator(loc.document_id, loc.char_start, loc.char_start + len(text))
            note = f"\n(cut at {MAX_READ_CHARS} characters; read on from doc{loc.document_id}:{loc.char_end}-...)"
        when = await self.when_at(loc)
        turn.evidence.add(loc, source.document, when)
        return self._source(loc, source.document, when, text, kind=source.kind) + note

    async def when_at(self, locator: Locator) -> datetime | None:
        message = await message_store.message_at(self.conn, locator.document_id, locator.char_start)
        moment = message.time if message else None
        if moment is None:
            document = await document_store.get_document(self.conn, locator.document_id)
            moment = document.time_start if document else None
        return self._local(parse_iso(moment))

    # ------------------------------------------------------------ writing

    def _check_cited(self, turn: Turn, text: str) -> None:
        unseen = turn.evidence.unseen(text)
        if unseen:
            raise ToolError(f"{', '.join(unseen)} were not returned by a tool in this run; "
                            "cite only locators you searched or read")

    async def _edit_profile(self, turn: Turn, *, old_text: str, new_text: str, section: str | None = None) -> str:
        self._check_cited(turn, new_text)
        edit = await self.book.edit(old_text, new_text, section=section, run_id=turn.run_id,
                                    kind=turn.edit_kind)
        turn.edits += 1
        return f"edit {edit.id} applied to {edit.section or 'bio.md'}"

    async def _add_open_question(self, turn: Turn, *, question: str, why: str = "", priority: int = 3,
                                 locators: list[str] | None = None) -> str:
        self._check_cited(turn, " ".join(locators or []))
        existing = await question_store.find_open_by_text(self.conn, question)
        if existing:
            return f"question #{existing} is already open"
        async with transaction(self.conn):
            qid = await question_store.add_question(
                self.conn, text=question, why=why, priority=max(1, min(priority, 5)), run_id=turn.run_id,
                locators=list(locators or []), at=iso(self.book.clock()))
        turn.questions_added += 1
        return f"question #{qid} added"

    async def _resolve_open_question(self, turn: Turn, *, id: int, resolution: str, status: str = "answered") -> str:
        async with transaction(self.conn):
            done = await question_store.resolve(self.conn, id, status=status, resolution=resolution,
                                                at=iso(self.book.clock()))
        if not done:
            raise ToolError(f"there is no open question #{id}")
        turn.questions_resolved.append(id)
        return f"question #{id} {status}"

    async def _add_timeline_event(self, turn: Turn, *, date: str, title: str, locators: list[str],
                                  detail: str = "") -> str:
        if not _DATE_RE.match(date):
            raise ToolError(f"not a timeline date: {date!r}; use YYYY, YYYY-MM or YYYY-MM-DD")
        if not locators:
            raise ToolError("a timeline event needs at least one locator for its source")
        self._check_cited(turn, " ".join(locators))
        async with transaction(self.conn):
            eid, created = await timeline_store.add_event(
                self.conn, date=date, title=title, detail=detail, locators=locators, run_id=turn.run_id,
                at=iso(self.book.clock()))
        turn.events_added += created
        return f"timeline event #{eid} " + ("added" if created else "already there; sources merged")

    async def _remember(self, turn: Turn, *, text: str, when: str | None = None) -> str:
        locator = await self.remember(text, self._date(when))
        moment = await self.when_at(locator)
        turn.evidence.add(locator, "Told to the biographer", moment)
        return f"stored; cite it as [{locator}]"
