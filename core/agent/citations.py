"""Deterministic checks of what the model cites.

The model cites with locators in brackets, `[doc3:120-480]`, and may quote before them,
`"we should move" [doc3:120-480]`. A citation survives only if a tool returned that range (or a
range holding it) in this turn, and a quotation only if it occurs verbatim in the cited source.
Everything else is removed and marked, so an invented locator is never shown as evidence.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime

from core.types import Answer, Citation, Locator

REMOVED_MARK = "[citation removed: not among the sources read]"
MISQUOTE_MARK = "[quote not found in the cited source]"
QUOTE_WINDOW = 300  # a grep hit locates one word; the quoted line lies around it

_LOC = r"doc\d+:\d+-\d+"
_CITE_RE = re.compile(
    r"(?:(?P<open>[\"“])(?P<quote>[^\"“”\n]{1,600})[\"”]\s*)?"
    rf"\[(?P<locs>{_LOC}(?:\s*[,;]\s*{_LOC})*)\]"
)
_QUOTE_CHARS = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})

ReadText = Callable[[Locator, int], Awaitable[str]]


@dataclass(frozen=True)
class Seen:
    locator: Locator
    document: str
    when: datetime | None


@dataclass
class Evidence:
    """Every range a tool returned in the current turn."""

    seen: dict[int, list[Seen]] = field(default_factory=dict)

    def add(self, locator: Locator, document: str, when: datetime | None) -> None:
        self.seen.setdefault(locator.document_id, []).append(Seen(locator, document, when))

    def covering(self, locator: Locator) -> Seen | None:
        for item in self.seen.get(locator.document_id, []):
            if item.locator.char_start <= locator.char_start and locator.char_end <= item.locator.char_end:
                return item
        return None

    def unseen(self, text: str) -> list[str]:
        """Locators in `text` that no tool returned this turn."""
        return [loc for loc in re.findall(_LOC, text) if self.covering(Locator.parse(loc)) is None]

    def __len__(self) -> int:
        return sum(len(v) for v in self.seen.values())


def _normal(text: str) -> str:
    return " ".join(text.translate(_QUOTE_CHARS).split())


def quote_occurs(quote: str, source: str) -> bool:
    """Verbatim up to whitespace and typographic quotes; "..." may stand for omitted words."""
    haystack = _normal(source)
    position = 0
    for piece in re.split(r"\.\.\.|…", quote):
        piece = _normal(piece)
        if not piece:
            continue
        found = haystack.find(piece, position)
        if found < 0:
            return False
        position = found + len(piece)
    return True


async def check_citations(text: str, evidence: Evidence, read_text: ReadText, *,
                          run_id: int | None = None) -> Answer:
    """Replace valid locators by [n] markers; remove and mark the rest."""
    numbers: dict[str, int] = {}
    citations: list[Citation] = []
    removed = 0
    pieces: list[str] = []
    cursor = 0
    for match in _CITE_RE.finditer(text):
        pieces.append(text[cursor:match.start()])
        cursor = match.end()
        quote = match.group("quote")
        markers: list[str] = []
        bad = misquoted = False
        for raw in re.split(r"\s*[,;]\s*", match.group("locs")):
            locator = Locator.parse(raw)
            seen = evidence.covering(locator)
            if seen is None:
                bad = True
                continue
            if quote and not quote_occurs(quote, await read_text(locator, QUOTE_WINDOW)):
                misquoted = True
                continue
            key = str(locator)
            if key not in numbers:
                numbers[key] = len(numbers) + 1
                citations.append(Citation(n=numbers[key], locator=locator, document=seen.document,
                                          when=seen.when, quote=quote))
            markers.append(f"[{numbers[key]}]")
        removed += bad + misquoted
        if quote:
            pieces.append(f"{match.group('open')}{quote}{'”' if match.group('open') == '“' else chr(34)} ")
        if misquoted and not markers:
            markers.append(MISQUOTE_MARK)
        elif bad and not markers:
            markers.append(REMOVED_MARK)
        pieces.append("".join(markers))
    pieces.append(text[cursor:])
    return Answer(text="".join(pieces).strip(), citations=citations, removed=removed, run_id=run_id)
