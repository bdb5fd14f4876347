"""Slack workspace export: a zip (or the folder it unzips to) with `users.json`, `channels.json`
(and `groups.json`, `dms.json`, `mpims.json` when the export includes private channels and direct
messages), and one folder per conversation holding a JSON file per day.

One document per channel or DM, its messages keyed by Slack's own `ts`, so a later export of the
same workspace adds only what is new. Senders and `<@U123>` mentions are resolved through
users.json; joins, topic changes and other notices become system lines, never someone's words.

An unzipped export is read from each conversation folder's first day file (the folder's other
files and the workspace's metadata files are read with it, not on their own).
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import IO, Any

import ijson

from core.errors import ImportFailed
from core.importers.archive import ZIP_MAGIC, member_name, open_zip, zip_holds
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase, read_head
from core.importers.jsonstream import json_errors
from core.types import Conversation, Message, SourceDocument

_DAY_FILE = re.compile(r"^\d{4}-\d{2}-\d{2}\.json$")
_CONVERSATION_FILES = ("channels.json", "groups.json", "dms.json", "mpims.json")
#: what people write; every other subtype is a notice (joins, topics, pins, huddles...)
_SPOKEN_SUBTYPES = frozenset({None, "thread_broadcast", "reply_broadcast", "me_message", "file_share",
                              "bot_message", "slackbot_response"})
_GONE_SUBTYPES = frozenset({"tombstone", "message_deleted", "message_changed"})
_ENTITY = re.compile(r"<([^<>]+)>")
_SPECIAL = {"here": "@here", "channel": "@channel", "everyone": "@everyone"}

Opener = Callable[[str], IO[bytes]]


@dataclass
class _Channel:
    id: str
    name: str
    kind: str  # "channel", "private", "dm", "group dm"
    members: tuple[str, ...] = ()


@dataclass
class Workspace:
    """Who is who and which folder is which conversation."""

    names: dict[str, str] = field(default_factory=dict)  # user id -> name shown
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # user id -> every name
    channels: dict[str, _Channel] = field(default_factory=dict)  # folder name -> channel
    channel_names: dict[str, str] = field(default_factory=dict)  # channel id -> name

    def add_user(self, user: dict[str, Any]) -> None:
        profile = user.get("profile") or {}
        names = [profile.get("real_name"), user.get("real_name"), profile.get("display_name"),
                 user.get("name")]
        shown = next((n.strip() for n in names if isinstance(n, str) and n.strip()), None)
        user_id = str(user.get("id") or "")
        if not user_id:
            return
        self.names[user_id] = shown or user_id
        self.aliases[user_id] = tuple(str(n) for n in (*names, profile.get("email"), user_id) if n)

    def add_channel(self, item: dict[str, Any], kind: str) -> None:
        channel_id = str(item.get("id") or "")
        members = tuple(str(m) for m in item.get("members") or [])
        folder = channel_id if kind == "dm" else str(item.get("name") or channel_id)
        if not folder:
            return
        self.channels[folder] = _Channel(channel_id or folder, str(item.get("name") or folder), kind, members)
        if channel_id:
            self.channel_names[channel_id] = str(item.get("name") or channel_id)

    def name(self, user_id: str | None) -> str | None:
        return self.names.get(user_id) if user_id else None


def load_workspace(open_member: Opener, exists: Callable[[str], bool]) -> Workspace:
    workspace = Workspace()
    if exists("users.json"):
        with open_member("users.json") as f, json_errors("users.json"):
            for user in ijson.items(f, "item", use_float=True):
                if isinstance(user, dict):
                    workspace.add_user(user)
    for file_name, kind in zip(_CONVERSATION_FILES, ("channel", "private", "dm", "group dm")):
        if not exists(file_name):
            continue
        with open_member(file_name) as f, json_errors(file_name):
            for item in ijson.items(f, "item", use_float=True):
                if isinstance(item, dict):
                    workspace.add_channel(item, kind)
    return workspace


def render_text(text: str, workspace: Workspace) -> str:
    """Slack's markup as a person reads it: `<@U123>` becomes @Name, links keep their label."""

    def entity(match: re.Match[str]) -> str:
        target, _, label = match.group(1).partition("|")
        if target.startswith("@"):
            return "@" + (workspace.name(target[1:]) or label.lstrip("@") or target[1:])
        if target.startswith("#"):
            return "#" + (label or workspace.channel_names.get(target[1:], target[1:]))
        if target.startswith("!"):
            word = target[1:].split("^")[0]
            return _SPECIAL.get(word) or label or f"@{word}"
        return f"{label} ({target})" if label and label != target else target

    text = _ENTITY.sub(entity, text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _sender(obj: dict[str, Any], workspace: Workspace) -> tuple[str, str | None]:
    user_id = obj.get("user") if isinstance(obj.get("user"), str) else None
    profile = obj.get("user_profile") or {}
    bot = obj.get("bot_profile") or {}
    candidates = (workspace.name(user_id), profile.get("real_name"), profile.get("display_name"),
                  obj.get("username"), bot.get("name"), user_id)
    name = next((c for c in candidates if isinstance(c, str) and c.strip()), "unknown")
    return name.strip(), user_id or (obj.get("bot_id") if isinstance(obj.get("bot_id"), str) else None)


def _attachments_text(obj: dict[str, Any]) -> str:
    """What an integration's message says in its legacy attachments (GitHub, Jira, RSS bots post
    with empty `text`): each one's pretext, title and text, or its fallback line."""
    lines = []
    for item in obj.get("attachments") or []:
        if not isinstance(item, dict):
            continue
        parts = [str(item[k]).strip() for k in ("pretext", "title", "text") if item.get(k)]
        lines.extend(parts or ([str(item["fallback"]).strip()] if item.get("fallback") else []))
    return "\n".join(line for line in lines if line)


def to_message(obj: dict[str, Any], workspace: Workspace, context: ImportContext) -> Message | None:
    subtype = obj.get("subtype")
    if obj.get("type", "message") != "message" or subtype in _GONE_SUBTYPES or not obj.get("ts"):
        return None
    ts = str(obj["ts"])
    sender, sender_id = _sender(obj, workspace)
    text = render_text(str(obj.get("text") or "") or _attachments_text(obj), workspace).strip()
    files = tuple(str(f.get("name") or f.get("title")) for f in obj.get("files") or []
                  if isinstance(f, dict) and (f.get("name") or f.get("title")))
    if files:
        text = " ".join(p for p in (f"[file: {', '.join(files)}]", text) if p)
    if not text:
        return None
    if obj.get("edited") and subtype in _SPOKEN_SUBTYPES:
        text += " (edited)"
    thread = str(obj.get("thread_ts")) if obj.get("thread_ts") else None
    aliases = workspace.aliases.get(sender_id or "", ())
    profile = obj.get("user_profile") or {}
    return Message(
        sender=sender,
        text=text,
        time=datetime.fromtimestamp(float(ts), tz=timezone.utc).astimezone(context.timezone),
        sender_id=sender_id,
        is_owner=context.is_owner(sender, sender_id, *aliases, profile.get("display_name"),
                                  profile.get("name")),
        platform_id=ts,
        reply_to=thread if thread and thread != ts else None,
        kind="text" if subtype in _SPOKEN_SUBTYPES else "system",
        attachments=files,
    )


def _conversation(folder: str, workspace: Workspace, context: ImportContext) -> Conversation:
    channel = workspace.channels.get(folder) or _Channel(folder, folder, "channel")
    members = [workspace.name(m) or m for m in channel.members]
    if channel.kind in ("dm", "group dm"):
        others = [workspace.name(m) or m for m in channel.members
                  if not context.is_owner(*workspace.aliases.get(m, (m,)))]
        title = ("Slack DM with " if channel.kind == "dm" else "Slack group DM with ") + (
            ", ".join(dict.fromkeys(others or members)) or channel.name)
    else:
        title = f"Slack #{channel.name}" + (" (private)" if channel.kind == "private" else "")
    return Conversation(platform="slack", key=f"slack:{channel.id}", name=title,
                        participants=tuple(dict.fromkeys(members)),
                        is_group=channel.kind != "dm")


def _messages(day_names: list[str], open_member: Opener, workspace: Workspace,
              context: ImportContext, skipped: Counter[str]) -> Iterator[Message]:
    for day in day_names:
        with open_member(day) as f, json_errors(day):
            for obj in ijson.items(f, "item", use_float=True):
                message = to_message(obj, workspace, context) if isinstance(obj, dict) else None
                if message is not None:
                    yield message
                elif isinstance(obj, dict) and obj.get("subtype") in _GONE_SUBTYPES:
                    skipped["deleted or superseded messages"] += 1
                else:
                    skipped["messages with nothing to read"] += 1


def _document(folder: str, day_names: list[str], open_member: Opener, workspace: Workspace,
              context: ImportContext, digest: str) -> SourceDocument:
    conversation = _conversation(folder, workspace, context)
    document = SourceDocument(kind="slack", name=conversation.name,
                              identity=f"file:{digest}#{conversation.key}", conversation=conversation)
    document.messages = _messages(day_names, open_member, workspace, context, document.skipped)
    return document


def is_export_folder(folder: Path) -> bool:
    return (folder / "users.json").is_file() and any((folder / n).is_file() for n in _CONVERSATION_FILES)


def _looks_like_day(head: bytes) -> bool:
    start = head.lstrip()
    return start.startswith(b"[") and b'"ts"' in head and (b'"type"' in head or start.startswith(b"[]"))


def _zip_layout(archive: zipfile.ZipFile) -> tuple[str, dict[str, list[str]]] | None:
    """The export's folder inside the zip ("" at the top) and its day files by conversation."""
    names = [member_name(i) for i in archive.infolist() if not i.is_dir()]
    for name in names:
        posix = PurePosixPath(name)
        if posix.name != "users.json" or len(posix.parts) > 2:
            continue
        root = str(posix.parent) + "/" if str(posix.parent) != "." else ""
        if not any(f"{root}{n}" in names for n in _CONVERSATION_FILES):
            continue
        days: dict[str, list[str]] = {}
        for other in names:
            rest = PurePosixPath(other[len(root):]) if other.startswith(root) else None
            if rest is not None and len(rest.parts) == 2 and _DAY_FILE.match(rest.name):
                days.setdefault(rest.parts[0], []).append(other)
        return root, {folder: sorted(files) for folder, files in sorted(days.items())}
    return None


class SlackImporter(ImporterBase):
    name = "slack"

    def sniff(self, path: Path, head: bytes) -> bool:
        if head.startswith(ZIP_MAGIC):
            return zip_holds(path, head, _zip_layout)
        if path.suffix.lower() != ".json":
            return False
        if is_export_folder(path.parent):
            return True  # users.json, channels.json ... of an unzipped export
        return bool(_DAY_FILE.match(path.name)) and (
            is_export_folder(path.parent.parent) or _looks_like_day(head))

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        if read_head(path).startswith(ZIP_MAGIC):
            yield from self._parse_zip(path, context)
            return
        if not _DAY_FILE.match(path.name):
            return  # a metadata file of an unzipped export: read with each conversation
        folder = path.parent
        days = sorted(p for p in folder.iterdir() if p.is_file() and _DAY_FILE.match(p.name))
        if days and days[0] != path:
            return  # read with the folder's first day
        root = folder.parent
        workspace = Workspace()
        if is_export_folder(root):
            workspace = load_workspace(lambda n: (root / n).open("rb"), lambda n: (root / n).is_file())
        digest = hashlib.sha256()
        for day in days:
            digest.update(day.name.encode() + b"\0" + file_sha256(day).encode())
        yield _document(folder.name, [str(d) for d in days], lambda n: Path(n).open("rb"),
                        workspace, context, digest.hexdigest())

    @staticmethod
    def _parse_zip(path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        archive = open_zip(path)
        with archive:
            layout = _zip_layout(archive)
            if layout is None:
                raise ImportFailed(path.name, "is a zip without a Slack export in it",
                                   hint="export the workspace from Slack's admin page and import its zip")
            root, conversations = layout
            infos = {member_name(i): i for i in archive.infolist()}

            def open_member(name: str) -> IO[bytes]:
                return archive.open(infos[name if name in infos else root + name])

            def exists(name: str) -> bool:
                return root + name in infos

            workspace = load_workspace(open_member, exists)
            digest = file_sha256(path)
            for folder, day_names in conversations.items():
                # the store reads a document's messages before asking for the next: the zip
                # stays open for them in this generator's frame
                yield _document(folder, day_names, open_member, workspace, context, digest)
