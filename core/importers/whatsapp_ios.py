"""WhatsApp on iPhone (and the Mac app): the `ChatStorage.sqlite` database, from an unencrypted
iPhone backup or from the Mac app's container. Opened read-only; never written.

One document per chat (status updates left out). Dates are Apple-epoch seconds. Group senders are
resolved through the member table (the owner's contact name, then the member's first name, then
the name they publish), 1:1 senders through the chat's partner name; the owner's messages come
from `ZISFROMME`.

The parser is advanced from different worker threads (the store awaits each step with
`asyncio.to_thread`), so its connection is made with `check_same_thread=False`; the steps never
run at the same time.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlean

from core.errors import ImportFailed
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.importers.imessage import apple_time
from core.importers.sqlite_files import SQLITE_MAGIC, is_locked, open_read_only, table_names
from core.types import Conversation, Message, SourceDocument

_REQUIRED = {"ZWAMESSAGE": {"Z_PK", "ZCHATSESSION", "ZMESSAGEDATE", "ZISFROMME", "ZTEXT"},
             "ZWACHATSESSION": {"Z_PK", "ZCONTACTJID", "ZPARTNERNAME"}}
_GROUP_SESSION = 1
_STATUS_JID = "status@broadcast"
#: ZMESSAGETYPE values that carry media; the text beside them is the caption (ZWAMEDIAITEM.ZTITLE)
_MEDIA = {1: "[photo]", 2: "[video]", 3: "[audio]", 4: "[contact card]", 5: "[location]",
          8: "[document]", 11: "[GIF]", 15: "[sticker]"}
_SYSTEM = 6  # group events: joins, leaves, subject and icon changes, security-code notices
_DELETED = 14  # "This message was deleted": nothing was said
_BATCH = 1000


def _columns(conn: sqlean.Connection) -> dict[str, set[str]]:
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    return {t: {r[1] for r in conn.execute(f'PRAGMA table_info("{t}")')} for t in tables
            if t.startswith("ZWA")}


def _open(path: Path) -> tuple[sqlean.Connection, str]:
    """A read-only connection, and a note when the database had to be opened as immutable (a
    copy in a read-only folder: changes still in its -wal file are then not seen)."""
    try:
        return open_read_only(path)[0], ""
    except sqlean.OperationalError as error:
        if is_locked(error):
            raise ImportFailed(path.name, f"is locked by WhatsApp ({error})",
                               hint="quit WhatsApp, or copy ChatStorage.sqlite with its -wal and -shm "
                                    "files and import the copy") from None
    except sqlean.DatabaseError as error:
        raise ImportFailed(path.name, f"is not a readable SQLite database ({error})",
                           hint="copy ChatStorage.sqlite again (with its -wal and -shm files)") from None
    try:
        conn = open_read_only(path, immutable=True)[0]
    except sqlean.DatabaseError as error:
        raise ImportFailed(path.name, f"cannot be read as a database ({error})",
                           hint="copy ChatStorage.sqlite again (with its -wal and -shm files)") from None
    return conn, "opened as an unchanging copy: messages still only in ChatStorage.sqlite-wal were not read"


def _phone(jid: str | None) -> str | None:
    if not jid:
        return None
    local, _, domain = jid.partition("@")
    return f"+{local}" if domain == "s.whatsapp.net" and local.isdigit() else None


class _Query:
    """The SQL for this database's version: optional tables and columns only when present."""

    def __init__(self, columns: dict[str, set[str]]) -> None:
        message = columns["ZWAMESSAGE"]
        select = ["m.Z_PK", "m.ZMESSAGEDATE", "m.ZISFROMME", "m.ZTEXT"]
        select += [f"m.{c}" if c in message else f"NULL AS {c}"
                   for c in ("ZSTANZAID", "ZMESSAGETYPE", "ZGROUPEVENTTYPE", "ZFROMJID", "ZPUSHNAME")]
        joins = []
        member = columns.get("ZWAGROUPMEMBER", set())
        if "ZGROUPMEMBER" in message and {"Z_PK", "ZMEMBERJID"} <= member:
            joins.append("LEFT JOIN ZWAGROUPMEMBER gm ON gm.Z_PK = m.ZGROUPMEMBER")
            select += ["gm.ZMEMBERJID"] + [f"gm.{c}" if c in member else f"NULL AS {c}"
                                            for c in ("ZCONTACTNAME", "ZFIRSTNAME")]
        else:
            select += ["NULL AS ZMEMBERJID", "NULL AS ZCONTACTNAME", "NULL AS ZFIRSTNAME"]
        if {"ZJID", "ZPUSHNAME"} <= columns.get("ZWAPROFILEPUSHNAME", set()):
            member_jid = "gm.ZMEMBERJID" if "gm." in " ".join(joins) else "NULL"
            from_jid = "m.ZFROMJID" if "ZFROMJID" in message else "NULL"
            joins.append("LEFT JOIN ZWAPROFILEPUSHNAME pn ON pn.ZJID = "
                         f"COALESCE({member_jid}, {from_jid})")
            select.append("pn.ZPUSHNAME AS PROFILENAME")
        else:
            select.append("NULL AS PROFILENAME")
        media = columns.get("ZWAMEDIAITEM", set())
        if "ZMEDIAITEM" in message and {"Z_PK", "ZTITLE"} <= media:
            joins.append("LEFT JOIN ZWAMEDIAITEM mi ON mi.Z_PK = m.ZMEDIAITEM")
            select.append("mi.ZTITLE AS CAPTION")
        else:
            select.append("NULL AS CAPTION")
        self.sql = (f"SELECT {', '.join(select)} FROM ZWAMESSAGE m {' '.join(joins)} "
                    "WHERE m.ZCHATSESSION = ? ORDER BY m.ZMESSAGEDATE, m.Z_PK")
        session = columns["ZWACHATSESSION"]
        kind = "ZSESSIONTYPE" if "ZSESSIONTYPE" in session else "NULL"
        self.chats = (f"SELECT Z_PK, ZCONTACTJID, ZPARTNERNAME, {kind} FROM ZWACHATSESSION "
                      "WHERE EXISTS (SELECT 1 FROM ZWAMESSAGE m WHERE m.ZCHATSESSION = ZWACHATSESSION.Z_PK) "
                      "ORDER BY Z_PK")


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


class _Chat:
    def __init__(self, jid: str, partner: str, is_group: bool, context: ImportContext) -> None:
        self.jid = jid
        self.partner = partner
        self.is_group = is_group
        self.context = context

    def sender(self, row: dict[str, Any]) -> tuple[str, str | None]:
        if self.is_group:
            jid = row["ZMEMBERJID"] or row["ZFROMJID"]
            names = (row["ZCONTACTNAME"], row["ZFIRSTNAME"], row["PROFILENAME"], row["ZPUSHNAME"],
                     _phone(jid))
        else:
            jid = self.jid
            names = (self.partner, row["PROFILENAME"], row["ZPUSHNAME"], _phone(jid))
        name = next((_text(n) for n in names if _text(n)), None)
        return name or (f"unknown ({jid})" if jid else "unknown"), jid

    def message(self, row: dict[str, Any]) -> Message | None:
        kind = row["ZMESSAGETYPE"] or 0
        if kind == _DELETED or row["ZMESSAGEDATE"] is None:
            return None
        text = _text(row["ZTEXT"])
        label = _MEDIA.get(kind)
        if label:
            text = " ".join(p for p in (label, _text(row["CAPTION"]), text) if p)
        system = kind == _SYSTEM or bool(row["ZGROUPEVENTTYPE"])
        if not text:
            return None  # a group event whose wording lives elsewhere, a call, an empty row
        mine = bool(row["ZISFROMME"])
        sender, jid = ("Me", None) if mine else self.sender(row)
        return Message(
            sender=sender,
            text=text,
            time=apple_time(row["ZMESSAGEDATE"]).astimezone(self.context.timezone),
            sender_id=jid,
            is_owner=mine or self.context.is_owner(sender, jid, _phone(jid)),
            platform_id=_text(row["ZSTANZAID"]) or f"pk{row['Z_PK']}",
            kind="system" if system else ("media" if label and text == label else "text"),
        )


class WhatsAppIOSImporter(ImporterBase):
    name = "whatsapp"

    def sniff(self, path: Path, head: bytes) -> bool:
        if not head.startswith(SQLITE_MAGIC):
            return False
        tables = table_names(path)
        if tables is None:
            return path.name.lower() == "chatstorage.sqlite"  # parse says what is wrong with it
        return set(_REQUIRED) <= tables

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        conn, note = _open(path)
        try:
            columns = _columns(conn)
            missing = [f"{t}.{c}" for t, cs in _REQUIRED.items() for c in sorted(cs - columns.get(t, set()))]
            if missing:
                raise ImportFailed(path.name, f"is not a WhatsApp ChatStorage database (no {', '.join(missing)})",
                                   hint="import ChatStorage.sqlite from an iPhone backup or the Mac app")
            query = _Query(columns)
            digest = file_sha256(path)
            chats = conn.execute(query.chats).fetchall()
            for pk, jid, partner, session_type in chats:
                jid = _text(jid)
                if jid == _STATUS_JID:
                    continue
                is_group = session_type == _GROUP_SESSION or jid.endswith("@g.us")
                title = _text(partner) or _phone(jid) or jid or f"chat {pk}"
                chat = _Chat(jid, _text(partner), is_group, context)
                conversation = Conversation(
                    platform="whatsapp",
                    key=f"whatsapp:{jid or pk}",
                    name=f"WhatsApp with {title}",
                    participants=("Me", title) if not is_group else ("Me",),
                    is_group=is_group,
                )
                yield SourceDocument(
                    kind="whatsapp",
                    name=conversation.name,
                    identity=f"file:{digest}#whatsapp:{jid or pk}",
                    conversation=conversation,
                    messages=self._messages(conn, query, pk, chat, path.name),
                    note=note,
                )
        except sqlean.DatabaseError as error:
            raise ImportFailed(path.name, f"is a damaged WhatsApp database ({error})",
                               hint="copy ChatStorage.sqlite again (with its -wal and -shm files)") from None
        finally:
            conn.close()

    @staticmethod
    def _messages(conn: sqlean.Connection, query: _Query, chat_pk: int, chat: _Chat,
                  source: str) -> Iterator[Message]:
        try:
            cursor = conn.execute(query.sql, (chat_pk,))
            names = [d[0] for d in cursor.description]
            while rows := cursor.fetchmany(_BATCH):
                for values in rows:
                    message = chat.message(dict(zip(names, values)))
                    if message is not None:
                        yield message
        except sqlean.DatabaseError as error:
            raise ImportFailed(source, f"is a damaged WhatsApp database ({error})",
                               hint="copy ChatStorage.sqlite again (with its -wal and -shm files)") from None
