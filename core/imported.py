"""What an import makes of a file: the documents importers yield, their conversations and
messages, the chunks their text is cut into, and an import's report. Apart from core/types.py
because only the commands that import or save make them (a dataclass compiles its generated
methods when its module is imported): core/types.py finds them by the names they always had."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal


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
