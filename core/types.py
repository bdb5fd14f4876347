"""Small frozen value types shared by every layer."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from core.errors import LocatorError

#: The one spelling of a locator with its range (`doc12:3400-4100`), for patterns that find
#: locators inside text; `Locator.parse` also takes `doc12` alone, the whole document.
LOCATOR_PATTERN = r"doc\d+:\d+-\d+"
#: a citation as answers and bio.md write it: one bracket holding one or more locators
CITED_LOCATORS = rf"{LOCATOR_PATTERN}(?:\s*[,;]\s*{LOCATOR_PATTERN})*"
CITATION_PATTERN = rf"\[{CITED_LOCATORS}\]"
_LOCATOR_RE = re.compile(r"doc(\d+)(?::(\d+)-(\d+))?")
#: Positions and ids past this are no place in any store (SQLite integers end at 2**63 - 1)
MAX_POSITION = 2**62
#: the end of a locator that means "to the end of the document" (`doc4` alone)
DOCUMENT_END = MAX_POSITION


@dataclass(frozen=True)
class Locator:
    """A stable address of text in the store: document id and a char range of its plain text."""

    document_id: int
    char_start: int
    char_end: int

    def __str__(self) -> str:
        return f"doc{self.document_id}:{self.char_start}-{self.char_end}"

    @classmethod
    def parse(cls, value: str) -> Locator:
        value = value.strip()
        match = _LOCATOR_RE.fullmatch(value)
        if not match:
            raise LocatorError(
                f"not a locator: {value!r}",
                hint="a locator looks like doc12:3400-4100, as printed by search and grep (doc12 alone is "
                     "the whole document)",
            )
        digits = [g for g in match.groups() if g is not None]
        if any(len(d) > 19 for d in digits) or max(map(int, digits)) > MAX_POSITION:
            raise LocatorError(f"locator {value[:40]!r} has a number too large for any source",
                               hint="use a locator as printed by search and grep")
        if match.group(2) is None:
            return cls(int(match.group(1)), 0, DOCUMENT_END)
        doc, start, end = map(int, match.groups())
        if end < start:
            raise LocatorError(f"locator {value!r} ends before it starts", hint="use START-END")
        return cls(doc, start, end)


@dataclass(frozen=True)
class SearchHit:
    locator: Locator
    document: str  # the document's name
    kind: str
    text: str
    score: float
    time_start: datetime | None
    time_end: datetime | None
    speakers: tuple[str, ...]
    chunk_id: int = 0
    exhaustive_list: bool = False  # the question asks for every instance (a ranked list is not all)
    hint: str | None = None  # what to do instead, when so

    def to_json(self) -> dict:
        return {
            "locator": str(self.locator),
            "document": self.document,
            "kind": self.kind,
            "text": self.text,
            "score": round(self.score, 6),
            "time_start": self.time_start.isoformat() if self.time_start else None,
            "time_end": self.time_end.isoformat() if self.time_end else None,
            "speakers": list(self.speakers),
            "exhaustive_list": self.exhaustive_list,
            **({"hint": self.hint} if self.hint else {}),
        }


@dataclass(frozen=True)
class SearchFilters:
    kinds: tuple[str, ...] = ()  # source kinds to keep ("whatsapp", "text", ...)
    person: str | None = None  # a speaker, by any of their names
    since: datetime | None = None
    until: datetime | None = None

    @property
    def active(self) -> bool:
        return bool(self.kinds or self.person or self.since or self.until)


@dataclass(frozen=True)
class GrepMatch:
    locator: Locator  # the matched text itself
    document: str
    kind: str
    line: str  # the line of text around the match
    time: datetime | None
    sender: str | None = None  # who wrote it, in a chat; None in prose


@dataclass(frozen=True)
class GrepPage:
    matches: list[GrepMatch]
    page: int
    page_size: int
    total: int
    has_more: bool
    total_is_estimate: bool = False  # past a few thousand passages the total is estimated, not counted


@dataclass(frozen=True)
class SourceText:
    """Text read back from the store by locator."""

    locator: Locator
    document: str
    kind: str
    text: str
    document_length: int


# the biographer's answers and records (core/records.py) and what an import makes (core/imported.py),
# found here by the names they always had; imported on first use, so that the memory commands
# never make their dataclasses
RECORDS = frozenset({"Citation", "Answer", "OpenQuestion", "TimelineEvent", "ProfileEdit", "AnalysisResult"})
IMPORTED = frozenset({"Conversation", "Message", "SourceDocument", "Chunk", "IngestReport"})

if TYPE_CHECKING:
    from core.imported import Chunk, Conversation, IngestReport, Message, SourceDocument
    from core.records import AnalysisResult, Answer, Citation, OpenQuestion, ProfileEdit, TimelineEvent


def __getattr__(name: str):
    if name in RECORDS:
        from core import records

        return getattr(records, name)
    if name in IMPORTED:
        from core import imported

        return getattr(imported, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
