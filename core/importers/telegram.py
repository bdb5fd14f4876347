"""Telegram Desktop "Export chat history" JSON (result.json): one chat, or a full account export
whose `chats.list` holds every chat. Streamed with ijson; see shared/EXPORT_FORMATS.md §2.

Each chat becomes one document keyed `telegram:<chat id>`, its messages keyed by Telegram's own
message id, so a full export after a single-chat export adds only the new messages.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from core.errors import ImportFailed, UserFacingError
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.importers.media import poll_text
from core.importers.jsonstream import (
    EscapeRepairingReader,
    json_errors,
    objects_in_array,
    parse_events,
    skip_rest,
)
from core.types import Conversation, Message, SourceDocument

_BOM = b"\xef\xbb\xbf"
_MESSAGE_TYPE = re.compile(rb'"type"\s*:\s*"(?:message|service)"')
_FULL_EXPORT = re.compile(rb'"(?:personal_information|chats|left_chats)"\s*:\s*\{')
_CHAT_BASES_FULL = ("chats.list.item", "left_chats.list.item")
_GROUP_TYPES = {"private_group", "private_supergroup", "public_supergroup", "private_channel",
                "public_channel"}
_CHAT_NAMES = {"saved_messages": "Saved Messages", "replies": "Replies"}


def _base(prefix: str, suffix: str) -> str | None:
    """The chat prefix of `prefix` if it ends with `.suffix` (or is `suffix` at the root)."""
    if prefix == suffix:
        return ""
    if prefix.endswith("." + suffix):
        return prefix[: -len(suffix) - 1]
    return None


@dataclass
class _ChatInfo:
    meta: dict[str, Any] = field(default_factory=dict)
    senders: dict[str, None] = field(default_factory=dict)
    messages: int = 0


def _chat_name(meta: dict[str, Any]) -> str:
    return meta.get("name") or _CHAT_NAMES.get(meta.get("type", ""), f"chat {meta.get('id')}")


def message_text(value: Any) -> str:
    """`text` is a string, or an array of strings and entity objects: join with no separator."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part if isinstance(part, str) else str(part.get("text", "")) for part in value)
    return ""


def _media_label(obj: dict[str, Any]) -> str | None:
    media = obj.get("media_type")
    if media == "voice_message":
        return "[voice message]"
    if media == "video_message":
        return "[round video]"
    if media == "sticker":
        return f"[sticker {obj.get('sticker_emoji', '')}]".replace(" ]", "]")
    if media == "animation":
        return "[GIF]"
    if media == "video_file":
        return "[video]"
    if media == "audio_file":
        title = " – ".join(p for p in (obj.get("performer"), obj.get("title")) if p)
        return f"[audio: {title}]" if title else "[audio]"
    if "photo" in obj:
        return "[photo]"
    if "file" in obj:
        return f"[file: {obj.get('file_name') or Path(str(obj['file'])).name}]"
    if "poll" in obj:
        poll = obj["poll"]
        return poll_text(message_text(poll.get("question")),
                         [message_text(a.get("text")) for a in poll.get("answers", [])])
    if "location_information" in obj:
        where = obj["location_information"]
        place = obj.get("place_name") or f"{where.get('latitude')}, {where.get('longitude')}"
        return f"[location: {place}]"
    if "contact_information" in obj:
        person = obj["contact_information"]
        return f"[contact: {person.get('first_name', '')} {person.get('last_name', '')}]".strip()
    return None


def _service_text(obj: dict[str, Any]) -> str:
    actor = obj.get("actor") or "Someone"
    action = obj.get("action", "")
    members = ", ".join(str(m) for m in obj.get("members") or [] if m)
    title = obj.get("title", "")
    if action == "phone_call":
        seconds = obj.get("duration_seconds")
        how = obj.get("discard_reason")
        detail = ", ".join(p for p in (f"{seconds} s" if seconds else "", how or "") if p)
        return f"{actor} called" + (f" ({detail})" if detail else "")
    phrases = {
        "create_group": f'{actor} created the group "{title}"',
        "create_channel": f'{actor} created the channel "{title}"',
        "edit_group_title": f'{actor} renamed the group to "{title}"',
        "invite_members": f"{actor} added {members}",
        "remove_members": f"{actor} removed {members}",
        "join_group_by_link": f"{actor} joined by invite link",
        "pin_message": f"{actor} pinned a message",
        "edit_group_photo": f"{actor} changed the group photo",
    }
    return phrases.get(action, f"{actor}: {action.replace('_', ' ')}")


class _Converter:
    """Telegram message objects to Messages for one chat."""

    def __init__(self, context: ImportContext, folder: Path, owner_ids: set[str],
                 all_owner: bool, skipped: Counter[str]) -> None:
        self.context = context
        self.folder = folder
        self.owner_ids = owner_ids
        self.all_owner = all_owner  # Saved Messages: everything in it is the owner's
        self.skipped = skipped  # what is left out, by reason, for the import's summary

    def time(self, obj: dict[str, Any]) -> datetime:
        unix = obj.get("date_unixtime")
        if unix:
            return datetime.fromtimestamp(int(unix), tz=timezone.utc).astimezone(self.context.timezone)
        # exports before 2021 have only this: local time of the exporting computer, without zone
        return datetime.fromisoformat(obj["date"]).replace(tzinfo=self.context.timezone)

    def is_owner(self, name: str | None, sender_id: str | None) -> bool:
        if self.all_owner or (sender_id and sender_id in self.owner_ids):
            return True
        bare = sender_id.removeprefix("user") if sender_id else None
        return self.context.is_owner(name, sender_id, bare)

    def convert(self, obj: dict[str, Any]) -> Message | None:
        kind = obj.get("type")
        if kind not in {"message", "service"}:
            self.skipped["unsupported messages"] += 1  # "unsupported": Telegram kept nothing of it
            return None
        if not obj.get("date") and not obj.get("date_unixtime"):
            self.skipped["undated messages"] += 1
            return None
        platform_id = str(obj["id"]) if obj.get("id") is not None else None
        reply = obj.get("reply_to_message_id")
        if kind == "service":
            actor_id = str(obj["actor_id"]) if obj.get("actor_id") is not None else None
            return Message(
                sender=obj.get("actor") or "", text=_service_text(obj), time=self.time(obj),
                sender_id=actor_id, is_owner=self.is_owner(obj.get("actor"), actor_id),
                platform_id=platform_id, kind="system",
            )
        sender = obj.get("from") or "Deleted Account"
        sender_id = str(obj["from_id"]) if obj.get("from_id") is not None else None
        text = message_text(obj.get("text")).strip()
        label = _media_label(obj)
        attachments = tuple(str(obj[k]) for k in ("photo", "file") if _is_path(obj.get(k)))
        if label and obj.get("media_type") == "voice_message":
            transcript = self._transcribe(obj.get("file"))
            if transcript:
                label = f"{label} (transcript) {transcript}"
        body = " ".join(p for p in (label, text) if p)
        if not body:
            self.skipped["empty messages"] += 1
            return None
        return Message(
            sender=sender,
            text=body,
            time=self.time(obj),
            sender_id=sender_id,
            is_owner=self.is_owner(obj.get("from"), sender_id),
            platform_id=platform_id,
            reply_to=str(reply) if reply is not None else None,
            forwarded_from=obj.get("forwarded_from"),
            kind="media" if label and not text else "text",
            attachments=attachments,
        )

    def _transcribe(self, relative: Any) -> str | None:
        if self.context.transcriber is None or not _is_path(relative):
            return None
        audio = (self.folder / str(relative)).resolve()
        if not audio.is_relative_to(self.folder.resolve()) or not audio.is_file():
            return None
        try:
            return self.context.transcriber.transcribe(
                audio, hints=tuple(self.context.spelling_hints)).strip() or None
        except UserFacingError:
            return None


def _skip_bom(f: IO[bytes]) -> None:
    if f.read(3) != _BOM:
        f.seek(0)


def _is_path(value: Any) -> bool:
    # "(File not included. ...)" and similar placeholders stand where a path would be
    return isinstance(value, str) and bool(value) and not value.startswith("(")


class TelegramImporter(ImporterBase):
    name = "telegram"
    reads_media_beside = True

    def sniff(self, path: Path, head: bytes) -> bool:
        head = head.removeprefix(_BOM).lstrip()
        if not head.startswith(b"{"):
            return False
        if b'"date_unixtime"' in head or b'"text_entities"' in head:
            return True
        # exports before 2021: no date_unixtime, no text_entities, a numeric from_id
        return b'"personal_information"' in head or (
            b'"messages"' in head and _MESSAGE_TYPE.search(head) is not None
            and (b'"from_id"' in head or b'"actor_id"' in head or b'"date"' in head))

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        with path.open("rb") as f:
            full = bool(_FULL_EXPORT.search(f.read(1 << 16)))
        bases = _CHAT_BASES_FULL if full else ("",)
        chats, owner_id = self._scan(path, bases)
        digest = file_sha256(path)
        owner_ids = {f"user{owner_id}", str(owner_id)} if owner_id is not None else set()
        with path.open("rb") as f, json_errors(path.name):
            _skip_bom(f)
            events = parse_events(EscapeRepairingReader(f))
            for index, (meta, objects) in enumerate(self._chats(events, bases)):
                info = chats[index]
                chat_id = meta.get("id")
                skipped: Counter[str] = Counter()
                converter = _Converter(context, path.parent, owner_ids,
                                       all_owner=meta.get("type") == "saved_messages",
                                       skipped=skipped)
                name = _chat_name(meta)
                key = f"telegram:{chat_id}"
                if chat_id is None:  # a chat trimmed by some tool: no id, maybe no name
                    name = meta.get("name") or ", ".join(info.senders) or path.parent.name
                    key = f"telegram:{path.parent.name}:{name}"
                conversation = Conversation(
                    platform="telegram",
                    key=key,
                    name=f"Telegram with {name}" if meta.get("type") == "personal_chat" else name,
                    participants=tuple(info.senders),
                    is_group=meta.get("type") in _GROUP_TYPES or len(info.senders) > 2,
                )
                messages = (m for m in map(converter.convert, objects) if m is not None)
                yield SourceDocument(
                    kind="telegram",
                    name=conversation.name,
                    identity=f"file:{digest}#telegram:{chat_id}",
                    conversation=conversation,
                    messages=messages,
                    skipped=skipped,
                )
                skip_rest(objects)

    @staticmethod
    def _chats(events: Iterator, bases: tuple[str, ...]) -> Iterator[tuple[dict, Iterator[dict]]]:
        meta: dict[str, Any] = {}
        for prefix, event, value in events:
            if event == "start_map" and prefix in bases:
                meta = {}
            elif event == "start_array" and _base(prefix, "messages") in bases:
                yield meta, objects_in_array(events, prefix)
            elif event in {"string", "number", "null"}:
                for key in ("name", "type", "id"):
                    if _base(prefix, key) in bases:
                        meta[key] = value

    @staticmethod
    def _scan(path: Path, bases: tuple[str, ...]) -> tuple[list[_ChatInfo], Any]:
        """First pass: chats, their senders and the owner's id; validates the whole file."""
        chats: list[_ChatInfo] = []
        owner_id = None
        with path.open("rb") as f, json_errors(path.name):
            _skip_bom(f)
            current = _ChatInfo()
            for prefix, event, value in parse_events(EscapeRepairingReader(f)):
                if event == "start_map" and prefix in bases:
                    current = _ChatInfo()
                    chats.append(current)
                elif prefix == "personal_information.user_id":
                    owner_id = value
                elif event == "string" and _base(prefix, "messages.item.from") in bases:
                    current.senders[value] = None
                elif event == "start_map" and _base(prefix, "messages.item") in bases:
                    current.messages += 1
        if not chats:
            raise ImportFailed(path.name, "is a Telegram export without chats",
                               hint="tick 'Personal chats' (and groups) in Telegram Desktop's "
                                    "export settings and choose the JSON format")
        return chats, owner_id
