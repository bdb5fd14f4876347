"""iMessage: the macOS Messages database `chat.db` (or an iPhone backup's `sms.db`), opened
read-only. One document per chat. See shared/EXPORT_FORMATS.md §5."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import sqlean

from core.errors import ImportFailed
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.importers.sqlite_files import SQLITE_MAGIC, is_locked, open_read_only, table_names
from core.types import Conversation, Message, SourceDocument

APPLE_EPOCH = 978307200  # 2001-01-01 in Unix seconds
_REQUIRED_TABLES = {"message", "handle", "chat", "chat_message_join"}
_GROUP_STYLE = 43

_MESSAGE_COLUMNS = ("guid", "date", "is_from_me", "text", "attributedBody", "item_type",
                    "associated_message_type", "thread_originator_guid")


def _messages_sql(columns: set[str]) -> str:
    """The message query for this database's schema: columns come and go between releases
    (`thread_originator_guid` arrived with iOS 14; an older sms.db has none), so a missing one
    reads as NULL instead of failing the whole file."""
    picked = ", ".join(f"m.{c}" if c in columns else "NULL" for c in _MESSAGE_COLUMNS)
    return f"""
SELECT {picked}, h.id AS handle
FROM chat_message_join cmj
JOIN message m ON m.ROWID = cmj.message_id
LEFT JOIN handle h ON h.ROWID = m.handle_id
WHERE cmj.chat_id = ?
ORDER BY m.date, m.ROWID
"""


def apple_time(value: int) -> datetime:
    """Apple-epoch time, in nanoseconds since macOS 10.13 and in seconds before (decided per row)."""
    seconds = value / 1e9 if abs(value) > 1e11 else float(value)
    return datetime.fromtimestamp(seconds + APPLE_EPOCH, tz=timezone.utc)


def attributed_body_text(blob: bytes | None) -> str | None:
    """The string inside an archived NSAttributedString ("typedstream"), for rows whose `text`
    is NULL: after b"NSString", 5 marker bytes, then a length (1 byte, or 0x81 + 2 bytes, or
    0x82 + 4 bytes, little-endian), then the UTF-8 text."""
    if not blob:
        return None
    at = blob.find(b"NSString")
    if at < 0:
        return None
    pos = at + len(b"NSString") + 5
    if pos >= len(blob):
        return None
    marker = blob[pos]
    if marker == 0x81:
        length, pos = int.from_bytes(blob[pos + 1: pos + 3], "little"), pos + 3
    elif marker == 0x82:
        length, pos = int.from_bytes(blob[pos + 1: pos + 5], "little"), pos + 5
    else:
        length, pos = marker, pos + 1
    return blob[pos: pos + length].decode("utf-8", errors="replace")


def _connect(path: Path) -> sqlean.Connection:
    try:
        conn, tables = open_read_only(path)
    except sqlean.OperationalError as error:
        hint = ("quit Messages, or copy chat.db with chat.db-wal and chat.db-shm and import the copy"
                if is_locked(error) else "copy chat.db again (with its -wal and -shm files)")
        raise ImportFailed(path.name, f"cannot be read as a database ({error})", hint=hint) from None
    except sqlean.DatabaseError as error:
        raise ImportFailed(path.name, f"is not a readable SQLite database ({error})",
                           hint="copy chat.db again (with its -wal and -shm files)") from None
    missing = _REQUIRED_TABLES - tables
    if missing:
        conn.close()
        raise ImportFailed(path.name, f"is an SQLite file but not a Messages database "
                           f"(no {', '.join(sorted(missing))} table)",
                           hint="import ~/Library/Messages/chat.db")
    return conn


class IMessageImporter(ImporterBase):
    name = "imessage"

    def sniff(self, path: Path, head: bytes) -> bool:
        if not head.startswith(SQLITE_MAGIC):
            return False
        if path.suffix.lower() == ".db" and path.stem.lower() in {"chat", "sms"}:
            return True
        tables = table_names(path)
        return tables is not None and _REQUIRED_TABLES <= tables

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        conn = _connect(path)
        digest = file_sha256(path)
        try:
            columns = {row[1] for row in conn.execute("PRAGMA table_info(message)")}
            messages_sql = _messages_sql(columns)
            chats = conn.execute(
                "SELECT ROWID, guid, chat_identifier, style, display_name FROM chat ORDER BY ROWID"
            ).fetchall()
            for rowid, guid, identifier, style, display_name in chats:
                handles = tuple(r[0] for r in conn.execute(
                    "SELECT h.id FROM chat_handle_join j JOIN handle h ON h.ROWID = j.handle_id "
                    "WHERE j.chat_id = ? ORDER BY h.ROWID", (rowid,)))
                is_group = style == _GROUP_STYLE or len(handles) > 1
                title = display_name or ", ".join(handles) or identifier
                conversation = Conversation(
                    platform="imessage",
                    key=f"imessage:{identifier or guid}",
                    name=f"iMessage with {title}",
                    participants=("Me", *handles),
                    is_group=is_group,
                )
                document = SourceDocument(
                    kind="imessage",
                    name=conversation.name,
                    identity=f"file:{digest}#imessage:{guid}",
                    conversation=conversation,
                )
                document.messages = self._messages(conn, messages_sql, rowid, context,
                                                   document.skipped)
                yield document
        except sqlean.DatabaseError as error:
            raise ImportFailed(path.name, f"is a damaged Messages database ({error})",
                               hint="copy chat.db again (with its -wal and -shm files)") from None
        finally:
            conn.close()

    @staticmethod
    def _messages(conn: sqlean.Connection, sql: str, chat_id: int, context: ImportContext,
                  skipped: Counter[str]) -> Iterator[Message]:
        for guid, date, from_me, text, body, item_type, assoc_type, thread, handle in conn.execute(
                sql, (chat_id,)):
            if assoc_type and assoc_type >= 1000:
                skipped["reactions"] += 1  # tapbacks, sticker reactions and their removals
                continue
            if item_type:
                skipped["notices"] += 1  # group renames, member changes, location sharing
                continue
            words = text if text is not None else attributed_body_text(body)
            words = (words or "").replace("\ufffc", "[attachment]").replace("\ufffd", "").strip()
            if not words:
                skipped["empty messages"] += 1
                continue
            owner = bool(from_me)
            sender = "Me" if owner else (handle or "unknown")
            yield Message(
                sender=sender,
                text=words,
                time=apple_time(date).astimezone(context.timezone),
                sender_id=None if owner else handle,
                is_owner=owner or context.is_owner(handle),
                platform_id=guid,
                reply_to=thread,
            )
