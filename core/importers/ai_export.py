"""What ChatGPT's and Claude's data exports share: a `conversations.json` read one conversation at
a time (an export of several hundred MB never sits in memory whole), the owner's turns kept as the
owner's words, the assistant's as the assistant's, and the other files of the export left alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import ijson

from core.errors import ImportFailed
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase, read_head
from core.importers.jsonstream import json_errors
from core.types import Conversation, Message, SourceDocument

#: how the owner's turns are named; their `is_owner` comes from the export's structure
OWNER = "Me"
_BOM = b"\xef\xbb\xbf"


def json_start(head: bytes) -> bytes:
    """The head without a byte-order mark and leading whitespace."""
    return head.removeprefix(_BOM).lstrip()


def conversations(path: Path) -> Iterator[dict[str, Any]]:
    """The conversation objects of a top-level array (or the one object a single-chat file holds),
    built one at a time."""
    with path.open("rb") as f, json_errors(path.name):
        if f.read(3) != _BOM:
            f.seek(0)
        start = f.tell()
        first = json_start(f.read(4096))[:1]
        f.seek(start)
        prefix = "item" if first == b"[" else ""
        for item in ijson.items(f, prefix, use_float=True):
            if isinstance(item, dict):
                yield item


def beside_export(path: Path, companions: frozenset[str], is_export: Any) -> bool:
    """True for the export's other files (account, feedback, its HTML rendering...) lying beside a
    recognised conversations.json: they are read with it, not imported as documents of their own."""
    if path.name.lower() not in companions:
        return False
    sibling = path.parent / "conversations.json"
    return sibling.is_file() and bool(is_export(read_head(sibling)))


def unix_time(value: Any, context: ImportContext) -> datetime | None:
    if not isinstance(value, (int, float)) or value <= 0:
        return None
    return datetime.fromtimestamp(float(value), tz=timezone.utc).astimezone(context.timezone)


def iso_time(value: Any, context: ImportContext) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(context.timezone)


def chat_title(title: Any, created: datetime | None) -> str:
    if isinstance(title, str) and title.strip():
        return title.strip()
    return f"untitled chat of {created.date().isoformat()}" if created else "untitled chat"


@dataclass(frozen=True)
class RawTurn:
    """A turn as the export has it: its time may be missing, its text empty."""

    text: str
    time: datetime | None
    owner: bool
    message_id: str | None
    attachments: tuple[str, ...] = ()


def timed_turns(raw: Iterable[RawTurn], *, assistant: str, fallback: datetime | None) -> Iterator[Message]:
    """Turns with words as Messages: the owner's as the owner's words, the assistant's (replying to
    the owner's last turn) never taken for the owner's or anyone's. A turn without a time takes the
    one before it (or the conversation's); with no time at all there is nothing to date it by."""
    last_owner_turn: str | None = None
    for item in raw:
        time = item.time or fallback
        if not item.text or time is None:
            continue
        fallback = time
        yield Message(
            sender=OWNER if item.owner else assistant,
            text=item.text,
            time=time,
            is_owner=item.owner,
            platform_id=item.message_id,
            reply_to=None if item.owner else last_owner_turn,
            attachments=item.attachments,
        )
        if item.owner and item.message_id:
            last_owner_turn = item.message_id


class AIExportImporter(ImporterBase):
    """Sniffing and parsing shared by the two exports; a subclass says how its format looks."""

    name = ""
    assistant = ""
    companions: frozenset[str] = frozenset()

    @staticmethod
    def looks_like(head: bytes) -> bool:
        raise NotImplementedError

    def chat_id(self, conversation: dict[str, Any]) -> str:
        raise NotImplementedError

    def created(self, conversation: dict[str, Any], context: ImportContext) -> datetime | None:
        raise NotImplementedError

    def title(self, conversation: dict[str, Any]) -> Any:
        raise NotImplementedError

    def raw_turns(self, conversation: dict[str, Any], context: ImportContext) -> Iterator[RawTurn]:
        raise NotImplementedError

    def sniff(self, path: Path, head: bytes) -> bool:
        return beside_export(path, self.companions, self.looks_like) or self.looks_like(head)

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        if beside_export(path, self.companions, self.looks_like):
            return  # the export's account, project and feedback files, its HTML rendering
        digest = file_sha256(path)
        found = 0
        for conversation in conversations(path):
            chat_id = self.chat_id(conversation)
            if not chat_id:
                continue
            found += 1
            created = self.created(conversation, context)
            messages = timed_turns(self.raw_turns(conversation, context), assistant=self.assistant,
                                   fallback=created)
            yield self._document(chat_id, chat_title(self.title(conversation), created), digest, messages)
        if not found:
            raise ImportFailed(path.name, f"is a {self.assistant} export without conversations",
                               hint=f"import the conversations.json of {self.assistant}'s data export")

    def _document(self, chat_id: str, title: str, digest: str, messages: Iterator[Message]) -> SourceDocument:
        conversation = Conversation(
            platform=self.name,
            key=f"{self.name}:{chat_id}",
            name=f"{self.assistant}: {title}",
            participants=(OWNER, self.assistant),
            is_group=False,
        )
        return SourceDocument(
            kind=self.name,
            name=conversation.name,
            identity=f"file:{digest}#{self.name}:{chat_id}",
            conversation=conversation,
            messages=messages,
        )
