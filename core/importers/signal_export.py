"""Signal, as exported by the `signal-export` tool (Signal itself exports nothing readable): one
folder per chat named after it, holding `data.json` (one JSON object per line) and `chat.md`.
See shared/EXPORT_FORMATS.md §8.1.

`data.json` is preferred; `chat.md` is read when it is alone. Times are the exporting computer's
local time without a zone (BIOGRAPHER_TIMEZONE is used). Your own messages are sent by `Me`; in
"Note to Self" everything is yours. A quoted message is left out of the reply that quotes it (those
words belong to its author, not to the one replying); reactions are not messages.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from core.errors import ImportFailed
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase, read_head
from core.importers.text import decode_text
from core.types import Conversation, Message, SourceDocument

OWNER_NAMES = frozenset({"Me"})
_NOTE_TO_SELF = "Note to Self"
_MD_LINE = re.compile(r"^\[(\d{4}-\d{2}-\d{2})(?:,)? (\d{2}:\d{2}(?::\d{2})?)\] ([^:\n]{1,120}?): ?(.*)$")
_MD_REACTIONS = re.compile(r"^\(- .* -\)$")
_MD_STICKER = re.compile(r"^\(\( (.*) \)\)$")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\(\./?[^)]*\)")
_DELETED = "(This message was deleted)"


def looks_like_data_json(head: bytes) -> bool:
    first = head.lstrip().split(b"\n", 1)[0]
    return first.startswith(b"{") and b'"date"' in first and b'"sender"' in first and b'"body"' in first


def looks_like_chat_md(head: bytes) -> bool:
    first = head.lstrip(b"\xef\xbb\xbf \r\n").split(b"\n", 1)[0].decode("utf-8", "replace")
    return _MD_LINE.match(first.rstrip("\r")) is not None


def _local(date: str, context: ImportContext) -> datetime:
    return datetime.fromisoformat(date).replace(tzinfo=context.timezone)


def _attachment_names(value: Any) -> list[str]:
    names = []
    for item in value or []:
        if isinstance(item, dict):
            names.append(str(item.get("name") or Path(str(item.get("path") or "")).name))
        elif isinstance(item, str):
            names.append(Path(item).name)
    return [n for n in names if n]


def _sticker(value: Any) -> str | None:
    if isinstance(value, dict):
        return f"[sticker {value.get('emoji') or ''}]".replace(" ]", "]")
    return f"[sticker {value}]" if isinstance(value, str) and value else None


class _Chat:
    def __init__(self, folder: Path, context: ImportContext) -> None:
        self.name = folder.name
        self.context = context
        self.all_owner = folder.name == _NOTE_TO_SELF
        self.skipped: Counter[str] = Counter()  # what was left out, for the import's summary

    def message(self, *, sender: str, time: datetime, body: str, attachments: list[str],
                sticker: str | None, call: bool = False) -> Message | None:
        owner = self.all_owner or sender in OWNER_NAMES or self.context.is_owner(sender)
        labels = [f"[attachment: {', '.join(attachments)}]"] if attachments else []
        if sticker:
            labels.append(sticker)
        text = " ".join(p for p in (*labels, body.strip()) if p)
        if not text:
            self.skipped["empty messages"] += 1
            return None
        return Message(
            sender=sender or "No-Sender",
            text=text,
            time=time,
            is_owner=owner,
            kind="system" if call else ("media" if labels and not body.strip() else "text"),
            attachments=tuple(attachments),
        )

    def from_json(self, obj: dict[str, Any]) -> Message | None:
        if obj.get("deleted") or not obj.get("date"):
            self.skipped["deleted messages" if obj.get("deleted") else "undated messages"] += 1
            return None
        call = bool(obj.get("call"))
        body = str(obj.get("body") or "") or (("Missed call" if obj.get("missed") else "Call") if call else "")
        return self.message(sender=str(obj.get("sender") or ""), time=_local(str(obj["date"]), self.context),
                            body=body, attachments=_attachment_names(obj.get("attachments")),
                            sticker=_sticker(obj.get("sticker")), call=call)


def _json_messages(path: Path, chat: _Chat) -> Iterator[Message]:
    with path.open("rb") as f:
        for number, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw.decode("utf-8-sig"))
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                raise ImportFailed(path.name, f"line {number} is not a JSON object ({error})",
                                   hint="run signal-export again; data.json holds one message per line") from None
            message = chat.from_json(obj) if isinstance(obj, dict) else None
            if message is not None:
                yield message


def _md_messages(path: Path, chat: _Chat) -> Iterator[Message]:
    lines = decode_text(path, path.read_bytes()).split("\n")
    header: re.Match[str] | None = None
    body: list[str] = []
    for line in [*lines, None]:
        match = _MD_LINE.match(line.rstrip("\r")) if line is not None else None
        if line is not None and match is None:
            body.append(line.rstrip("\r"))
            continue
        if header is not None:
            message = _md_message(header, body, chat)
            if message is not None:
                yield message
        header, body = match, [match.group(4)] if match else []


def _md_message(header: re.Match[str], lines: list[str], chat: _Chat) -> Message | None:
    day, clock, sender = header.group(1), header.group(2), header.group(3).strip()
    kept: list[str] = []
    sticker = None
    attachments: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith(">") or _MD_REACTIONS.match(stripped):
            continue  # the quoted message (someone else's words) and the reactions
        if (found := _MD_STICKER.match(stripped)):
            sticker = f"[sticker {found.group(1)}]"
            continue
        attachments += [m.group(1) for m in _MD_LINK.finditer(line)]
        kept.append(_MD_LINK.sub("", line).rstrip())
    body = "\n".join(kept).strip()
    if body == _DELETED:
        chat.skipped["deleted messages"] += 1
        return None
    seconds = clock if clock.count(":") == 2 else f"{clock}:00"
    return chat.message(sender=sender, time=_local(f"{day}T{seconds}", chat.context), body=body,
                        attachments=attachments, sticker=sticker)


def _export_file(folder: Path) -> Path | None:
    data = folder / "data.json"
    if data.is_file() and looks_like_data_json(read_head(data)):
        return data
    md = folder / "chat.md"
    return md if md.is_file() and looks_like_chat_md(read_head(md)) else None


class SignalExportImporter(ImporterBase):
    name = "signal"

    def sniff(self, path: Path, head: bytes) -> bool:
        name = path.name.lower()
        if name == "data.json":
            return looks_like_data_json(head)
        if name == "chat.md":
            return looks_like_chat_md(head)
        return name == "index.html" and _export_file(path.parent) is not None

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        if _export_file(path.parent) != path:
            return  # chat.md beside data.json, or the HTML page: the same messages again
        chat = _Chat(path.parent, context)
        read = _json_messages if path.name.lower() == "data.json" else _md_messages
        # a first pass learns who writes in the chat (a group has more than one other person)
        others = {m.sender for m in read(path, chat) if not m.is_owner and m.kind != "system"}
        title = "Signal: Note to Self" if chat.all_owner else f"Signal with {chat.name}"
        conversation = Conversation(platform="signal", key=f"signal:{chat.name}", name=title,
                                    participants=("Me", *sorted(others)), is_group=len(others) > 1)
        chat.skipped.clear()  # counted again as the store reads the messages
        document = SourceDocument(kind="signal", name=title, identity=f"file:{file_sha256(path)}",
                                  conversation=conversation, messages=read(path, chat))
        document.skipped = chat.skipped
        yield document
