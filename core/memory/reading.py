"""Reading the sources back: grep (every occurrence, in time order) and read (the text at a
locator, widened to whole lines), and the checks and filters they share with search."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

from core.errors import LocatorError, UserFacingError
from core.memory.grep import DEADLINE_SECONDS, EXACT_TOTAL_CAP, MAX_DEPTH, find_regex, find_words
from core.times import parse_utc, utc_iso
from core.types import DOCUMENT_END, GrepMatch, GrepPage, Locator, SearchFilters, SourceText
from core.words import counted
from storage import chunks as chunk_store
from storage import documents as document_store
from storage import messages as message_store
from storage.db import Store
from storage.keyword.query import keyword_phrase

LINE_MARGIN = 400  # characters read beyond a window to finish its first and last lines
MAX_LIMIT = 1000  # search results, grep page size
MAX_PAGE = 1_000_000

PersonNames = Callable[[str], Awaitable[list[str]]]


class Span(Protocol):
    """A piece of a document's text and where it lies (a chunk row, or a chunk's span)."""

    @property
    def char_start(self) -> int: ...
    @property
    def char_end(self) -> int: ...
    @property
    def text(self) -> str: ...


def checked_number(name: str, value: int, *, low: int, high: int) -> int:
    """`value` when it is a whole number in [low, high]; else one line saying what is wanted (the
    agent's tool path and library callers reach here without the CLI's argument checks)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        shown = repr(value) if len(repr(value)) <= 24 else repr(value)[:21] + "..."
        raise UserFacingError(f"{name} must be a whole number from {low} to {high}, not {shown}",
                              hint=f"give {name} a value in that range")
    return value


async def just_the_name(person: str) -> list[str]:
    return [person]


async def chunk_filter(conn: Store, filters: SearchFilters, person_names: PersonNames) -> chunk_store.ChunkFilter:
    """The chunks `filters` keep: a person by every name the people table knows for them."""
    speakers: tuple[str, ...] = ()
    if filters.person:
        speakers = tuple(dict.fromkeys(await person_names(filters.person)))
    return chunk_store.ChunkFilter(
        kinds=filters.kinds, speakers=speakers,
        since=utc_iso(filters.since), until=utc_iso(filters.until),
    )


class SourceReader:
    def __init__(self, conn: Store, *, person_names: PersonNames = just_the_name) -> None:
        self.conn = conn
        self.person_names = person_names
        self.exact_total_cap = EXACT_TOTAL_CAP  # grep totals are estimated past this many passages
        self.grep_deadline_seconds = DEADLINE_SECONDS

    # ------------------------------------------------------------------ grep

    async def grep(self, pattern: str, *, regex: bool = False, page: int = 1, page_size: int = 20,
                   newest_first: bool = True, filters: SearchFilters = SearchFilters()) -> GrepPage:
        """Every occurrence, in time order, case-insensitive: of whole words or a phrase, or of a
        regular expression with `regex` (see core/memory/grep.py). Ranked search is no way to answer
        "show me everything"."""
        if not pattern.strip():
            raise UserFacingError("empty grep pattern", hint="give a word, a phrase or a regex")
        checked_number("page", page, low=1, high=MAX_PAGE)
        checked_number("page_size", page_size, low=1, high=MAX_LIMIT)
        skip = (page - 1) * page_size
        if skip > MAX_DEPTH:
            raise UserFacingError(f"page {page} lies past the first {counted(MAX_DEPTH, 'match')}",
                                  hint="narrow it with --since/--until or --person, or use --oldest-first")
        where = await chunk_filter(self.conn, filters, self.person_names)
        accept = await self._said_by(filters.person) if filters.person else None
        words = re.findall(r"\w+", pattern)
        if regex or not words:
            found = await find_regex(self.conn, pattern if regex else re.escape(pattern), where=where,
                                     skip=skip, size=page_size, newest_first=newest_first,
                                     deadline_seconds=self.grep_deadline_seconds, accept=accept)
        else:
            phrase = keyword_phrase(pattern, await chunk_store.languages(self.conn))
            found = await find_words(self.conn, pattern, phrase, where=where,
                                     skip=skip, size=page_size, newest_first=newest_first,
                                     exact_cap=self.exact_total_cap, accept=accept)
        matches = []
        for hit in found.hits:
            row, at = hit.row, hit.row.char_start + hit.start
            message = await message_store.message_at(self.conn, row.document_id, at)
            matches.append(GrepMatch(
                locator=Locator(row.document_id, at, row.char_start + hit.end),
                document=row.document, kind=row.kind, line=_line_around(row.text, hit.start, hit.end),
                time=parse_utc(message.time if message else row.time_start),
                sender=message.sender if message else None,
            ))
        return GrepPage(matches=matches, page=page, page_size=page_size, total=found.total,
                        has_more=found.has_more, total_is_estimate=found.total_is_estimate)

    async def _said_by(self, person: str):
        """A grep match counts for --person only where that person wrote it: the passage filter
        lets through whole conversations in which they speak, but the others' lines are not theirs."""
        names = {n.lower() for n in await self.person_names(person)}

        async def accept(document_id: int, position: int) -> bool:
            message = await message_store.message_at(self.conn, document_id, position)
            return message is None or message.sender.lower() in names

        return accept

    # ------------------------------------------------------------------ read

    async def read(self, locator: Locator | str, *, window: int = 0) -> SourceText:
        """The text at a locator (`doc4` alone: the whole document). With a `window`, widened by
        that many characters each side and then to whole lines, so no line is cut in half."""
        loc = Locator.parse(locator) if isinstance(locator, str) else locator
        if window < 0:
            raise UserFacingError(f"window must not be negative, not {window}",
                                  hint="give the characters of context wanted on each side, 0 or more")
        document = await document_store.get_document(self.conn, loc.document_id)
        if document is None:
            raise LocatorError(f"no document {loc.document_id} in the store",
                               hint="run `biographer sources` or search again for a fresh locator")
        if loc.char_start >= document.text_length > 0 and loc.char_end != DOCUMENT_END:
            # past the end: an empty passage with status 0 would read as "this source says nothing"
            raise LocatorError(f"doc{loc.document_id} has {document.text_length:,} characters: "
                               f"{loc.char_start}-{loc.char_end} is past its end",
                               hint=f"read doc{loc.document_id} for the whole source, or search again for a fresh locator")
        start = max(0, loc.char_start - window)
        end = min(document.text_length, loc.char_end + window)
        if window:
            margin = LINE_MARGIN
            wide_start = max(0, start - margin)
            wide, _ = await self._text_between(loc.document_id, wide_start, min(document.text_length, end + margin))
            cut_start = wide.rfind("\n", 0, start - wide_start) + 1 if start > 0 else 0
            newline = wide.find("\n", end - wide_start)
            cut_end = newline if newline != -1 else len(wide)
            text, start, cursor = wide[cut_start:cut_end], wide_start + cut_start, wide_start + cut_end
        else:
            text, cursor = await self._text_between(loc.document_id, start, end)
        return SourceText(locator=Locator(loc.document_id, start, cursor), document=document.name,
                          kind=document.kind, text=text, document_length=document.text_length)

    async def _text_between(self, document_id: int, start: int, end: int) -> tuple[str, int]:
        """The document's text in [start, end), put back together from its chunks; and where it ends."""
        return stitched(await chunk_store.chunks_overlapping(self.conn, document_id, start, end), start, end)

    async def read_document(self, document_id: int) -> SourceText:
        return await self.read(Locator(document_id, 0, DOCUMENT_END))


def _line_around(text: str, start: int, end: int) -> str:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line = text[line_start: line_end if line_end != -1 else len(text)]
    return line if len(line) <= 300 else text[max(0, start - 120): end + 120]


def stitched(spans: Iterable[Span], start: int, end: int) -> tuple[str, int]:
    """A document's text in [start, end) put back together from chunks covering it (in order of
    their start: each is its document's text between its offsets, and they may overlap), and
    where the text ends: where the chunks stop covering it, or `end`."""
    pieces: list[str] = []
    cursor = start
    for span in spans:
        if span.char_end <= cursor:
            continue
        if span.char_start > cursor:
            pieces.append("\n" * (span.char_start - cursor))  # only whitespace falls between chunks
            cursor = span.char_start
        pieces.append(span.text[cursor - span.char_start: min(span.char_end, end) - span.char_start])
        cursor = min(span.char_end, end)
    return "".join(pieces), cursor
