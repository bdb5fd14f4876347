"""grep: every occurrence of whole words or a phrase, or of a regular expression, newest (or
oldest) first, one page at a time.

Two rules keep it from hurting the bot, which shares its event loop and store connection with
everything else:
- no matching on the event loop: text is matched in a worker thread, a batch at a time, and a
  regular expression runs on RE2, whose time is linear in the text (`(a+)+$` cannot explode);
- no more reading than the page needs: words and phrases are found through the keyword index,
  whose matches SQLite sorts and hands over in order until the page is full. Their total is
  counted exactly while few passages hold them, and estimated (and marked so) beyond. A regular
  expression has no index to narrow it: it reads every passage, within a deadline.
"""

from __future__ import annotations

import asyncio
import heapq
import re
import time
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.errors import UserFacingError
from core.words import counted
from storage import chunks as chunk_store
from storage.chunks import ChunkFilter, StoredChunk
from storage.keyword.terms import is_unspaced, same_word

if TYPE_CHECKING:
    from storage.db import Store

WALK_BATCH = 200  # passages read per step of an in-order walk
SCAN_BATCH = 2000  # passages read per step of a regular expression's full scan
EXACT_TOTAL_CAP = 10_000  # passages holding the words: counted exactly up to this many
ESTIMATE_SAMPLE = 400  # passages read at least, when the total is estimated
MAX_DEPTH = 100_000  # matches skipped to reach a page
DEADLINE_SECONDS = 30.0  # for a regular expression's full scan

Spans = Callable[[str], list[tuple[int, int]]]
#: whether a match at (document id, character position) counts, e.g. said by the person filtered on
Accept = Callable[[int, int], Awaitable[bool]]


@dataclass(frozen=True)
class Hit:
    row: StoredChunk
    start: int  # in the chunk's text
    end: int


@dataclass(frozen=True)
class Found:
    hits: list[Hit]  # the page, in order
    total: int
    total_is_estimate: bool
    has_more: bool


def word_spans(pattern: str) -> Spans:
    """Whole words or a phrase, case-insensitive. A word ends where the text has no word
    character, and also where the script changes (a Latin word glued to Chinese, "做project",
    is a word of its own, as the index cuts it). Text written without spaces (Chinese,
    Japanese, Thai...) has no word ends to look for: there a pattern that begins or ends with
    such a letter matches wherever it stands. An escaped literal cannot backtrack, so Python's
    engine is safe here."""
    compiled = re.compile(re.escape(pattern), re.IGNORECASE)
    check_start, check_end = not is_unspaced(pattern[0]), not is_unspaced(pattern[-1])

    def spans(text: str) -> list[tuple[int, int]]:
        found, at = [], 0
        while (match := compiled.search(text, at)) is not None:
            start, end = match.span()
            if (not check_start or start == 0 or not same_word(text[start - 1], text[start])) and \
                    (not check_end or end == len(text) or not same_word(text[end - 1], text[end])):
                found.append((start, end))
                at = end
            else:
                at = start + 1  # a later, overlapping occurrence may stand at word ends
        return found

    return spans


def regex_spans(pattern: str) -> Spans:
    """A regular expression, case-insensitive, on RE2; `^` and `$` match at each line's start and
    end, as in grep; empty matches are no occurrence."""
    import re2  # an extension module: only `grep --regex` loads it

    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False  # RE2 would print its complaint on stderr too
    try:
        compiled = re2.compile(f"(?m){pattern}", options)
    except re2.error as error:
        detail = error.args[0].decode(errors="replace") if isinstance(error.args[0], bytes) else error.args[0]
        try:
            re.compile(pattern)
        except re.error as python_error:
            raise UserFacingError(f"bad regular expression: {python_error}",
                                  hint="drop --regex to search for the text as written") from None
        raise UserFacingError(f"this regular expression uses what grep does not support ({detail}): grep "
                              "runs RE2, which has no look-around or back-references and always "
                              "answers in linear time", hint="rewrite it without them, or drop --regex") from None
    return lambda text: [m.span() for m in compiled.finditer(text) if m.end() > m.start()]


def _spans_of(spans: Spans, rows: list[StoredChunk], *, reverse: bool) -> list[list[tuple[int, int]]]:
    """The matches of each row (run in a worker thread)."""
    found = [spans(row.text) for row in rows]
    return [list(reversed(s)) for s in found] if reverse else found


class _Overlaps:
    """Consecutive prose chunks of a document share 150 characters: a match there is found twice.
    A match is the same when its document and position are; only the document's previous chunk
    can repeat one."""

    def __init__(self) -> None:
        self._last: dict[int, set[int]] = {}

    def fresh(self, document_id: int, char_start: int, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        seen = self._last.get(document_id, set())
        kept = [(s, e) for s, e in spans if char_start + s not in seen]
        self._last[document_id] = {char_start + s for s, _ in spans}
        return kept


async def find_words(conn: Store, pattern: str, match: str, *, where: ChunkFilter, skip: int,
                     size: int, newest_first: bool, exact_cap: int = EXACT_TOTAL_CAP,
                     accept: Accept | None = None) -> Found:
    """A page of whole-word matches, walking the keyword index's matches (`match`, an FTS5 phrase
    that every occurrence satisfies) in order; `accept` can turn a match down."""
    spans = word_spans(pattern)
    candidates = await chunk_store.count_matching(conn, match, where=where)
    exact = candidates <= exact_cap
    page: list[Hit] = []
    counted = walked = 0
    overlaps = _Overlaps()
    finished = True
    async with aclosing(chunk_store.walk_matching(conn, match, where=where, newest_first=newest_first,
                                                  batch=WALK_BATCH)) as batches:
        async for rows in batches:
            per_row = await asyncio.to_thread(_spans_of, spans, rows, reverse=newest_first)
            for row, found in zip(rows, per_row):
                walked += 1
                for start, end in overlaps.fresh(row.document_id, row.char_start, found):
                    if accept is not None and not await accept(row.document_id, row.char_start + start):
                        continue
                    if skip <= counted < skip + size + 1:
                        page.append(Hit(row, start, end))
                    counted += 1
            if not exact and len(page) > size and walked >= min(ESTIMATE_SAMPLE, candidates):
                finished = walked >= candidates
                break
    total = counted if finished else round(counted / walked * candidates)
    return Found(hits=page[:size], total=max(total, counted), total_is_estimate=not finished,
                 has_more=len(page) > size)


async def find_regex(conn: Store, pattern: str, *, where: ChunkFilter, skip: int, size: int,
                     newest_first: bool, deadline_seconds: float = DEADLINE_SECONDS,
                     accept: Accept | None = None) -> Found:
    """A page of a regular expression's matches: every passage is read (a batch at a time, matched
    in a worker thread), the total is exact, and the first `skip + size + 1` in order are kept;
    `accept` can turn a match down."""
    spans = regex_spans(pattern)
    deadline = time.monotonic() + deadline_seconds
    keep = skip + size + 1
    pick = heapq.nlargest if newest_first else heapq.nsmallest
    best: list[tuple] = []  # ((time, document, position), chunk id, start, end)
    total = after = read = 0
    overlaps = _Overlaps()
    while rows := await chunk_store.scan_texts(conn, after_id=after, page_size=SCAN_BATCH, where=where):
        if time.monotonic() > deadline:
            raise UserFacingError(
                f"the regular expression took longer than {deadline_seconds:g} s ({counted(read, 'passage')} read)",
                hint="narrow it with --since/--until, --person or --kind, or grep for words instead")
        after, read = rows[-1].chunk_id, read + len(rows)
        found = await asyncio.to_thread(_scan_batch, spans, rows, overlaps)
        if accept is not None:
            found = [f for f in found if await accept(f[0][1], f[0][2])]
        total += len(found)
        best = pick(keep, best + found)
    chunks = await chunk_store.get_chunks(conn, list({chunk_id for _, chunk_id, _, _ in best}))
    hits = [Hit(chunks[chunk_id], start, end) for _, chunk_id, start, end in best]
    return Found(hits=hits[skip:skip + size], total=total, total_is_estimate=False,
                 has_more=len(hits) > skip + size)


def _scan_batch(spans: Spans, rows: list[chunk_store.ScannedText], overlaps: _Overlaps) -> list[tuple]:
    """Every new match in a batch of chunk texts, with its sort key (run in a worker thread)."""
    found = []
    for row in rows:
        for start, end in overlaps.fresh(row.document_id, row.char_start, spans(row.text)):
            found.append(((row.time_start, row.document_id, row.char_start + start), row.chunk_id, start, end))
    return found
