"""Instagram and Facebook Messenger "Download your information" JSON (message_N.json), and the
Messenger end-to-end-encrypted download. See shared/EXPORT_FORMATS.md §6.

Meta writes every string's UTF-8 bytes as separate \\u00XX escapes ("JosÃ©"); each string is
repaired with the exact inverse. A message_N.json holds at most about 10,000 messages, so it is
loaded whole; files are newest-first and are put back in time order.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from core.errors import ImportFailed
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.importers.media import poll_text
from core.importers.meta_notices import DROPPED, PLACEHOLDERS, POLL, SYSTEM, meta_notices
from core.types import Conversation, Message, SourceDocument

_BOM = b"\xef\xbb\xbf"
_MESSAGE_FILE = re.compile(r"^message_\d+\.json$", re.I)
_MEDIA_KEYS = {"photos": "photo", "videos": "video", "gifs": "GIF", "audio_files": "voice message",
               "files": "file"}


def unmojibake(text: str) -> str:
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text  # already right: has characters above U+00FF, or is not UTF-8 bytes


def _fix(obj: dict[str, Any]) -> dict[str, Any]:
    return {key: unmojibake(value) if isinstance(value, str)
            else [unmojibake(v) if isinstance(v, str) else v for v in value] if isinstance(value, list)
            else value for key, value in obj.items()}


def _platform(path: Path, data: dict[str, Any]) -> str:
    lowered = str(path).lower()
    if "instagram" in lowered:
        return "instagram"
    if "facebook" in lowered or "thread_type" in data or "threadName" in data:
        return "messenger"
    return "instagram" if "_" in data.get("thread_path", "") and "inbox/" not in lowered else "messenger"


def _items(value: Any) -> list[dict[str, Any]]:
    """Media fields are lists of objects, but a sticker is one object: accept both."""
    if isinstance(value, dict):
        return [value]
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _share_label(share: dict[str, Any]) -> str:
    """A shared link, post or reel: Instagram often gives no link, only whose post it was and
    its caption, which are kept rather than the message vanishing."""
    owner = share.get("original_content_owner")
    words = " ".join(str(share[k]).strip() for k in ("share_text",) if share.get(k))
    link = share.get("link")
    head = (f"[shared post by {owner}: {link}]" if owner and link else f"[link: {link}]" if link
            else f"[shared post by {owner}]" if owner else "[shared post]")
    return f"{head} {words}".strip()


class MetaImporter(ImporterBase):
    name = "meta"

    def sniff(self, path: Path, head: bytes) -> bool:
        head = head.removeprefix(_BOM)  # some tools and unzippers add one; Meta does not
        if not head.lstrip().startswith(b"{"):
            return False
        dyi = (b'"participants"' in head and (b'"sender_name"' in head or b'"timestamp_ms"' in head
                                               or _MESSAGE_FILE.match(path.name) is not None)
               # trimmed copies (parser libraries' fixtures, hand-cut threads) keep only the
               # messages, whose two keys are Meta's own
               or (b'"messages"' in head and b'"sender_name"' in head and b'"timestamp_ms"' in head))
        e2ee = b'"threadName"' in head or (b'"senderName"' in head and b'"participants"' in head)
        return dyi or e2ee

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        try:
            data = json.loads(path.read_bytes().removeprefix(_BOM), object_hook=_fix)
        except json.JSONDecodeError as error:
            raise ImportFailed(path.name, f"is not valid JSON ({error.msg} at line {error.lineno})",
                               hint="the download may be incomplete; download it again") from None
        except UnicodeDecodeError as error:
            raise ImportFailed(path.name, f"is not UTF-8 JSON ({error.reason})",
                               hint="download it again in JSON format") from None
        if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
            raise ImportFailed(path.name, "is JSON without a list of messages",
                               hint="pick JSON (not HTML) when downloading your information")
        e2ee = "threadName" in data
        platform = _platform(path, data)
        thread = (data.get("thread_path") or "").rsplit("/", 1)[-1] or path.parent.name
        if e2ee:
            thread = path.stem
        raw_participants = data.get("participants") or []
        participants = tuple(p["name"] if isinstance(p, dict) else str(p) for p in raw_participants)
        title = data.get("title") or data.get("threadName") or ", ".join(participants) or thread
        conversation = Conversation(
            platform=platform,
            key=f"{platform}:{thread}",
            name=f"{'Instagram' if platform == 'instagram' else 'Messenger'} with {title}",
            participants=participants,
            is_group=len(participants) > 2 or data.get("thread_type") == "RegularGroup",
        )
        document = SourceDocument(kind=platform, name=conversation.name,
                                  identity=f"file:{file_sha256(path)}", conversation=conversation)
        messages = [m for m in (self._message(obj, context, e2ee, document.skipped)
                                for obj in data["messages"]) if m]
        messages.sort(key=lambda m: m.time)  # stable: same-millisecond messages keep file order
        document.messages = iter(messages)
        yield document

    @staticmethod
    def _message(obj: dict[str, Any], context: ImportContext, e2ee: bool,
                 skipped: Counter[str]) -> Message | None:
        sender = obj.get("senderName" if e2ee else "sender_name") or "unknown"
        millis = obj.get("timestamp" if e2ee else "timestamp_ms")
        if obj.get("is_unsent") or obj.get("isUnsent"):
            skipped["unsent messages"] += 1
            return None
        if millis is None:
            skipped["undated messages"] += 1
            return None
        text = (obj.get("text" if e2ee else "content") or "").strip()
        time = datetime.fromtimestamp(int(millis) / 1000, tz=timezone.utc).astimezone(context.timezone)
        notice = meta_notices().match(text) if text else None
        placeholder = ""
        if notice is not None:
            if notice.kind in DROPPED:
                skipped[DROPPED[notice.kind]] += 1
                return None
            if notice.kind in SYSTEM:
                return Message(sender="", text=text, time=time, kind="system")
            if notice.kind == POLL:
                return Message(sender=sender, text=poll_text(notice.parts[-1], []), time=time,
                               is_owner=context.is_owner(sender))
            placeholder, text = PLACEHOLDERS[notice.kind], ""  # Meta's words, not the sender's
        attachments: list[str] = []
        labels: list[str] = []
        for key, label in _MEDIA_KEYS.items():
            for item in _items(obj.get(key)):
                attachments.append(str(item.get("uri", "")))
                labels.append(f"[{label}]")
        for item in _items(obj.get("media")):
            attachments.append(str(item.get("uri", "")))
            labels.append("[media]")
        for item in _items(obj.get("sticker")):  # Messenger: one object; some tools: a list
            attachments.append(str(item.get("uri", "")))
            labels.append("[sticker]")
        share = obj.get("share")
        if isinstance(share, dict) and share:
            labels.append(_share_label(share))
        if obj.get("call_duration") is not None:
            labels.append(f"[call, {obj['call_duration']} s]")
        if not labels and placeholder:
            labels.append(placeholder)
        body = " ".join(dict.fromkeys(labels)) + (" " if labels and text else "") + text
        if not body.strip():
            skipped["empty messages"] += 1
            return None
        return Message(
            sender=sender,
            text=body.strip(),
            time=time,
            is_owner=context.is_owner(sender),
            kind="text" if text else "media",
            attachments=tuple(a for a in attachments if a),
        )
