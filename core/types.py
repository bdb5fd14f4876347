"""Small frozen value types shared by every layer."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from core.errors import LocatorError


@dataclass(frozen=True)
class Conversation:
    """Where messages were exchanged: a chat, a channel, a mailbox thread."""

    platform: str  # "whatsapp", "telegram", "discord", "imessage", "instagram", "email", ...
    key: str  # stable id of the chat on its platform (chat id, or a name when there is none)
    name: str  # how a person would name it: "WhatsApp with Maya", "Lisbon trip"
    participants: tuple[str, ...] = ()
    is_group: bool = False


@dataclass(frozen=True)
class Message:
    """One message as its author sent it: original sender, original time."""

    sender: str  # display name as the export shows it
    text: str
    # timezone-aware original event time, never the import time; None only where the source
    # gives none at all (an e-mail with no usable Date): the message keeps its sender, undated
    time: datetime | None
    sender_id: str | None = None  # stable platform id (phone, user id, address) when known
    is_owner: bool = False
    platform_id: str | None = None  # the platform's message id, when the format has one
    reply_to: str | None = None  # platform id of the message replied to
    forwarded_from: str | None = None
    kind: Literal["text", "media", "system"] = "text"
    attachments: tuple[str, ...] = ()  # file names referenced by the message


@dataclass
class SourceDocument:
    """What an importer yields: prose (`text` or `text_blocks`) or a stream of `messages`.

    `messages` is an iterator so a 1 GB export is never held in memory at once.
    """

    kind: str  # "text", "markdown", "whatsapp", "telegram", "email", "pdf", ...
    name: str  # shown to the owner in citations: "WhatsApp with Maya", "journal.md"
    identity: str  # stable identity of the source: content hash of a file, chat key of a stream
    text: str | None = None
    # prose too big to hold at once arrives as consecutive blocks of text instead of `text`
    text_blocks: Iterator[str] | None = None
    # or as consecutive parts that each carry the day they are about (a journal's dated
    # headings), so every chunk is dated by its own section; None: the document's date
    text_sections: Iterator[tuple[datetime | None, str]] | None = None
    messages: Iterator[Message] | None = None
    conversation: Conversation | None = None
    time_start: datetime | None = None  # for prose with a known date (journal, email)
    note: str = ""  # e.g. "JSON imported as plain text"
    # what the importer left out, by reason ("notices", "deleted messages"), counted while the
    # messages are read: nothing disappears without being told in the import's summary
    skipped: Counter[str] = field(default_factory=Counter)
    # what the importer had to guess, by kind ("e-mails dated from Received"), counted likewise
    remarks: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class Chunk:
    """A piece of a document's plain text, with its exact place in it."""

    ordinal: int
    char_start: int
    char_end: int
    text: str
    time_start: datetime | None = None
    time_end: datetime | None = None
    speakers: tuple[str, ...] = ()


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


@dataclass
class IngestReport:
    documents_added: int = 0
    documents_skipped: int = 0  # already imported (same content)
    chunks_added: int = 0
    messages_added: int = 0
    messages_skipped: int = 0  # already in the store from an overlapping export
    media_with_exports: int = 0  # voice notes and photos of a chat export, read with the chat
    skipped: Counter[str] = field(default_factory=Counter)  # left out by importers, by reason
    remarks: Counter[str] = field(default_factory=Counter)  # guessed by importers, by kind
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # for the owner: e.g. the embedding model picked for their languages

    def merge(self, other: IngestReport) -> None:
        self.documents_added += other.documents_added
        self.documents_skipped += other.documents_skipped
        self.chunks_added += other.chunks_added
        self.messages_added += other.messages_added
        self.messages_skipped += other.messages_skipped
        self.media_with_exports += other.media_with_exports
        self.skipped.update(other.skipped)
        self.remarks.update(other.remarks)
        self.errors.extend(other.errors)
        self.notes.extend(n for n in other.notes if n not in self.notes)


# the biographer's answers and records (core/records.py), found here by the names they always had;
# imported on first use, so that the memory commands never make their dataclasses
RECORDS = frozenset({"Citation", "Answer", "OpenQuestion", "TimelineEvent", "ProfileEdit", "AnalysisResult"})

if TYPE_CHECKING:
    from core.records import AnalysisResult, Answer, Citation, OpenQuestion, ProfileEdit, TimelineEvent


def __getattr__(name: str):
    if name in RECORDS:
        from core import records

        return getattr(records, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
