"""Discord: DiscordChatExporter JSON (whole conversations, ids, replies), and Discord's own data
package (`messages/c<id>/messages.json` or `.csv` + `channel.json`), which holds only the
account's own messages. See shared/EXPORT_FORMATS.md §4."""

from __future__ import annotations

import csv
import json
import re
import zipfile
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

import ijson

from core.errors import ImportFailed
from core.importers.archive import copy_member_to, member_name, open_zip, zip_holds
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.importers.jsonstream import json_errors
from core.types import Conversation, Message, SourceDocument

_SYSTEM_TYPES = {"RecipientAdd", "RecipientRemove", "Call", "ChannelNameChange", "ChannelIconChange",
                 "ChannelPinnedMessage", "GuildMemberJoin", "ThreadCreated"}
_DM_TYPES = {"DirectTextChat", "DirectGroupTextChat", 1, 3, "DM", "GROUP_DM"}
_PACKAGE_TIME_FORMATS = ("%Y-%m-%d %H:%M:%S.%f%z", "%Y-%m-%d %H:%M:%S%z", "%Y-%m-%d %H:%M:%S.%f",
                         "%Y-%m-%d %H:%M:%S")
_CSV_HEADER = b"ID,Timestamp,Contents,Attachments"


def _aware(moment: datetime, context: ImportContext) -> datetime:
    if moment.tzinfo is None:  # the package writes UTC without an offset
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(context.timezone)


class DiscordChatExporterImporter(ImporterBase):
    name = "discord"

    def sniff(self, path: Path, head: bytes) -> bool:
        return head.lstrip().startswith(b"{") and b'"guild"' in head and b'"channel"' in head

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        guild, channel, authors = self._scan(path)
        channel_id = str(channel.get("id", path.stem))
        is_dm = channel.get("type") in _DM_TYPES
        name = channel.get("name") or channel_id
        title = f"Discord DM with {name}" if is_dm else f"Discord #{name} ({guild.get('name', '')})"
        conversation = Conversation(
            platform="discord",
            key=f"discord:{channel_id}",
            name=title,
            participants=tuple(authors),
            is_group=not is_dm or len(authors) > 2,
        )
        document = SourceDocument(kind="discord", name=title, identity=f"file:{file_sha256(path)}",
                                  conversation=conversation)
        document.messages = self._messages(path, context, document.skipped)
        yield document

    @staticmethod
    def _scan(path: Path) -> tuple[dict, dict, dict[str, None]]:
        guild: dict[str, Any] = {}
        channel: dict[str, Any] = {}
        authors: dict[str, None] = {}
        author: dict[str, Any] = {}
        with path.open("rb") as f, json_errors(path.name):
            for prefix, event, value in ijson.parse(f, use_float=True):
                if prefix.startswith("messages.item.author."):
                    author[prefix[21:]] = value
                elif prefix == "messages.item.author" and event == "end_map":
                    authors.setdefault(str(author.get("nickname") or author.get("name")), None)
                    author = {}
                elif event in {"string", "number"}:
                    if prefix.startswith("guild."):
                        guild[prefix[6:]] = value
                    elif prefix.startswith("channel."):
                        channel[prefix[8:]] = value
        if not channel:
            raise ImportFailed(path.name, "is JSON without a Discord channel",
                               hint="export with DiscordChatExporter in JSON format")
        return guild, channel, authors

    @staticmethod
    def _messages(path: Path, context: ImportContext, skipped: Counter[str]) -> Iterator[Message]:
        with path.open("rb") as f, json_errors(path.name):
            for obj in ijson.items(f, "messages.item", use_float=True):
                message = _dce_message(obj, context)
                if message is None:
                    skipped["empty messages"] += 1
                else:
                    yield message


def _dce_message(obj: dict[str, Any], context: ImportContext) -> Message | None:
    author = obj.get("author") or {}
    sender = author.get("nickname") or author.get("name") or "unknown"
    content = (obj.get("content") or "").strip()
    attachments = tuple(a.get("fileName") or a.get("url", "") for a in obj.get("attachments") or [])
    forwarded = obj.get("forwardedMessage") or {}
    if forwarded.get("content"):
        content = (content + "\n" + forwarded["content"]).strip()
    if attachments:
        content = " ".join(p for p in (f"[attachments: {', '.join(attachments)}]", content) if p)
    # a sticker is what its sender said (DiscordChatExporter writes its name in `stickers`)
    stickers = [f"[sticker: {s['name']}]" for s in obj.get("stickers") or [] if s.get("name")]
    content = " ".join(p for p in (content, *stickers) if p)
    if not content:
        return None
    kind = "system" if obj.get("type") in _SYSTEM_TYPES else (
        "media" if (attachments or stickers) and not obj.get("content") else "text")
    reference = obj.get("reference") or {}
    author_id = str(author["id"]) if author.get("id") else None
    return Message(
        sender=sender,
        text=content,
        time=_aware(datetime.fromisoformat(obj["timestamp"]), context),
        sender_id=author_id,
        is_owner=context.is_owner(author.get("name"), author.get("nickname"), author_id),
        platform_id=str(obj["id"]),
        reply_to=str(reference["messageId"]) if reference.get("messageId") else None,
        forwarded_from="(forwarded)" if forwarded else None,
        kind=kind,  # type: ignore[arg-type]
        attachments=attachments,
    )


# --- Discord's own data package ---------------------------------------------------------------

def _package_time(value: str, context: ImportContext) -> datetime:
    for layout in _PACKAGE_TIME_FORMATS:
        try:
            return _aware(datetime.strptime(value, layout), context)
        except ValueError:
            continue
    return _aware(datetime.fromisoformat(value), context)


def _channel_metadata(folder: Path) -> dict[str, Any]:
    meta_path = folder / "channel.json"
    if not meta_path.is_file():
        return {}
    try:
        return json.loads(meta_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {}


def _index_label(folder: Path, channel_id: str) -> str | None:
    index = folder.parent / "index.json"
    if not index.is_file():
        return None
    try:
        labels = json.loads(index.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return labels.get(channel_id) if isinstance(labels, dict) else None


def _own_name(folder: Path, context: ImportContext) -> str:
    """The account's name from Account/user.json (read as a stream: the file is huge)."""
    for user in (folder.parent.parent / "account" / "user.json",
                 folder.parent.parent / "Account" / "user.json"):
        if user.is_file():
            with user.open("rb") as f:
                try:
                    for prefix, event, value in ijson.parse(f):
                        if prefix == "username" and event == "string":
                            return value
                except ijson.JSONError:
                    break
    return "me"


def _package_metadata(path: Path) -> bool:
    """channel.json / index.json of a data package, met when a whole folder is imported."""
    name = path.name.lower()
    if name == "channel.json":
        return any((path.parent / m).is_file() for m in ("messages.json", "messages.csv"))
    if name == "index.json" and path.parent.name.lower() == "messages":
        return any((child / "channel.json").is_file() for child in path.parent.iterdir()
                   if child.is_dir())
    return False


class DiscordPackageImporter(ImporterBase):
    name = "discord"

    def sniff(self, path: Path, head: bytes) -> bool:
        if _package_metadata(path):
            return True
        if path.name.lower() == "messages.csv":
            return head.lstrip(b"\xef\xbb\xbf").startswith(_CSV_HEADER)
        if path.name.lower() == "messages.json":
            start = head.lstrip()[:200]
            return start.startswith(b"[") and (b'"ID"' in start or start.startswith(b"[]"))
        return False

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        if _package_metadata(path):
            return  # read together with the channel's messages, not as a document of its own
        folder = path.parent
        meta = _channel_metadata(folder)
        channel_id = str(meta.get("id") or folder.name.removeprefix("c"))
        label = _index_label(folder, channel_id) or meta.get("name") or f"channel {channel_id}"
        guild = (meta.get("guild") or {}).get("name")
        title = f"Discord: {label}" + (f" ({guild})" if guild and guild not in label else "")
        me = _own_name(folder, context)
        conversation = Conversation(
            platform="discord",
            key=f"discord:{channel_id}",
            name=title,
            participants=(me,),
            is_group=meta.get("type") not in _DM_TYPES,
        )
        rows = self._csv_rows(path) if path.suffix.lower() == ".csv" else self._json_rows(path)
        yield SourceDocument(
            kind="discord",
            name=title,
            identity=f"file:{file_sha256(path)}",
            conversation=conversation,
            messages=self._messages(rows, me, context),
            note="Discord's data package holds only the account's own messages",
        )

    @staticmethod
    def _json_rows(path: Path) -> Iterator[dict[str, Any]]:
        with path.open("rb") as f, json_errors(path.name):
            yield from ijson.items(f, "item", use_float=True)

    @staticmethod
    def _csv_rows(path: Path) -> Iterator[dict[str, Any]]:
        with path.open("r", encoding="utf-8-sig", newline="") as f:
            yield from csv.DictReader(f)

    @staticmethod
    def _messages(rows: Iterator[dict[str, Any]], me: str, context: ImportContext) -> Iterator[Message]:
        for row in rows:
            text = (row.get("Contents") or "").strip()
            attachments = tuple((row.get("Attachments") or "").split())
            if attachments:
                names = ", ".join(a.split("?")[0].rsplit("/", 1)[-1] for a in attachments)
                text = " ".join(p for p in (f"[attachments: {names}]", text) if p)
            if not text or not row.get("Timestamp"):
                continue
            yield Message(
                sender=me,
                text=text,
                time=_package_time(str(row["Timestamp"]), context),
                is_owner=True,  # the package holds only the account's own messages
                platform_id=str(row["ID"]),
                kind="text" if row.get("Contents") else "media",
            )



# what of the downloaded package is read: the messages folder and the account's own name; the rest
# (activity analytics of hundreds of MB, servers, programs) holds no words of the owner's
_PACKAGE_MEMBER = re.compile(
    r"^(?P<root>(?:[^/]+/)*?)(?P<path>messages/index\.json|messages/c?\d+/(?:channel|messages)\.(?:json|csv)"
    r"|account/user\.json)$", re.IGNORECASE)


def _package_members(archive: zipfile.ZipFile) -> list[tuple[zipfile.ZipInfo, PurePosixPath]] | None:
    """The package's members worth reading, each with its path below the package's top folder;
    None when the zip holds no channel's messages."""
    found = []
    for info in archive.infolist():
        match = _PACKAGE_MEMBER.match(member_name(info))
        if match and not info.is_dir():
            found.append((info, PurePosixPath(match["path"].lower())))
    if not any(path.name in ("messages.json", "messages.csv") for _, path in found):
        return None
    return found


class DiscordPackageZipImporter(ImporterBase):
    """Discord's data package as it is downloaded (`package.zip`): each channel's messages, read
    as the unzipped package is (DiscordPackageImporter), the rest of the package left alone."""

    name = "discord"

    def sniff(self, path: Path, head: bytes) -> bool:
        return zip_holds(path, head, _package_members)

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        archive = open_zip(path)
        with archive, context.scratch("discord-") as folder:
            members = _package_members(archive)
            if members is None:
                raise ImportFailed(path.name, "is a zip without Discord messages in it",
                                   hint="import the package.zip Discord sent, or its messages folder")
            for info, below in members:  # names checked by the pattern: no '..', no absolute paths
                local = folder.joinpath(*below.parts)
                local.parent.mkdir(parents=True, exist_ok=True)
                copy_member_to(archive, info, local)
            importer = DiscordPackageImporter()
            for channel in sorted(p for p in (folder / "messages").iterdir() if p.is_dir()):
                messages = next((channel / n for n in ("messages.json", "messages.csv")
                                 if (channel / n).is_file()), None)
                if messages is not None:
                    # the store reads a document's messages before asking for the next one: the
                    # extracted files stay until then, in this generator's frame
                    yield from importer.parse(messages, context)
