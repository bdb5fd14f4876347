"""WhatsApp ChatStorage.sqlite (iPhone backup, Mac app). The test database is built here with the
real schema: the column lists of ZWACHATSESSION, ZWAMESSAGE, ZWAMEDIAITEM, ZWAGROUPMEMBER and
ZWAPROFILEPUSHNAME as a real store's `.schema` prints them (quoted in public WhatsApp tools' test
builders, which agree column for column); the rows are invented."""

from __future__ import annotations

import asyncio
import hashlib
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import pytest
import sqlean

from core.errors import ImportFailed
from core.importers import default_importers, pick_importer
from core.importers.base import ImportContext
from core.importers.whatsapp_ios import WhatsAppIOSImporter
from tests.importers.conftest import parse_all

SCHEMA = """
CREATE TABLE ZWACHATSESSION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZARCHIVED INTEGER, ZCONTACTABID INTEGER, ZFLAGS INTEGER, ZHIDDEN INTEGER, ZIDENTITYVERIFICATIONEPOCH INTEGER, ZIDENTITYVERIFICATIONSTATE INTEGER, ZMESSAGECOUNTER INTEGER, ZREMOVED INTEGER, ZSESSIONTYPE INTEGER, ZSPOTLIGHTSTATUS INTEGER, ZUNREADCOUNT INTEGER, ZGROUPINFO INTEGER, ZLASTMESSAGE INTEGER, ZPROPERTIES INTEGER, ZLASTMESSAGEDATE TIMESTAMP, ZLOCATIONSHARINGENDDATE TIMESTAMP, ZCONTACTIDENTIFIER VARCHAR, ZCONTACTJID VARCHAR, ZETAG VARCHAR, ZLASTMESSAGETEXT VARCHAR, ZPARTNERNAME VARCHAR, ZSAVEDINPUT VARCHAR );
CREATE TABLE ZWAMESSAGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHILDMESSAGESDELIVEREDCOUNT INTEGER, ZCHILDMESSAGESPLAYEDCOUNT INTEGER, ZCHILDMESSAGESREADCOUNT INTEGER, ZDATAITEMVERSION INTEGER, ZDOCID INTEGER, ZENCRETRYCOUNT INTEGER, ZFILTEREDRECIPIENTCOUNT INTEGER, ZFLAGS INTEGER, ZGROUPEVENTTYPE INTEGER, ZISFROMME INTEGER, ZMESSAGEERRORSTATUS INTEGER, ZMESSAGESTATUS INTEGER, ZMESSAGETYPE INTEGER, ZSORT INTEGER, ZSPOTLIGHTSTATUS INTEGER, ZSTARRED INTEGER, ZCHATSESSION INTEGER, ZGROUPMEMBER INTEGER, ZLASTSESSION INTEGER, ZMEDIAITEM INTEGER, ZMESSAGEINFO INTEGER, ZPARENTMESSAGE INTEGER, ZMESSAGEDATE TIMESTAMP, ZSENTDATE TIMESTAMP, ZFROMJID VARCHAR, ZMEDIASECTIONID VARCHAR, ZPHASH VARCHAR, ZPUSHNAME VARCHAR, ZSTANZAID VARCHAR, ZTEXT VARCHAR, ZTOJID VARCHAR );
CREATE TABLE ZWAMEDIAITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCLOUDSTATUS INTEGER, ZFILESIZE INTEGER, ZMEDIAORIGIN INTEGER, ZMOVIEDURATION INTEGER, ZMESSAGE INTEGER, ZASPECTRATIO FLOAT, ZHACCURACY FLOAT, ZLATITUDE FLOAT, ZLONGITUDE FLOAT, ZMEDIAURLDATE TIMESTAMP, ZAUTHORNAME VARCHAR, ZCOLLECTIONNAME VARCHAR, ZMEDIALOCALPATH VARCHAR, ZMEDIAURL VARCHAR, ZTHUMBNAILLOCALPATH VARCHAR, ZTITLE VARCHAR, ZVCARDNAME VARCHAR, ZVCARDSTRING VARCHAR, ZXMPPTHUMBPATH VARCHAR, ZMEDIAKEY BLOB, ZMETADATA BLOB );
CREATE TABLE ZWAGROUPMEMBER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCONTACTABID INTEGER, ZISACTIVE INTEGER, ZISADMIN INTEGER, ZSENDERKEYSENT INTEGER, ZCHATSESSION INTEGER, ZRECENTGROUPCHAT INTEGER, ZCONTACTIDENTIFIER VARCHAR, ZCONTACTNAME VARCHAR, ZFIRSTNAME VARCHAR, ZMEMBERJID VARCHAR );
CREATE TABLE ZWAPROFILEPUSHNAME ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZJID VARCHAR, ZPUSHNAME VARCHAR );
"""
APPLE = 978307200
T0 = 731365664.0  # 2024-03-05 21:07:44 UTC in Apple-epoch seconds
DIRECT = "447700900456@s.whatsapp.net"
GROUP = "120363000000000001@g.us"


def make_chat_storage(path: Path) -> Path:
    conn = sqlean.connect(str(path))
    conn.executescript(SCHEMA)
    conn.executemany("INSERT INTO ZWACHATSESSION (Z_PK, ZCONTACTJID, ZPARTNERNAME, ZSESSIONTYPE) VALUES (?,?,?,?)", [
        (1, DIRECT, "Teo Ramos", 0), (2, GROUP, "Lisbon trip", 1), (3, "status@broadcast", None, 3),
        (4, "447700900999@s.whatsapp.net", "Nobody", 0)])
    conn.executemany("INSERT INTO ZWAGROUPMEMBER (Z_PK, ZCHATSESSION, ZMEMBERJID, ZCONTACTNAME, ZFIRSTNAME) VALUES (?,?,?,?,?)", [
        (10, 2, "447700900456@s.whatsapp.net", "Teo Ramos", None),
        (11, 2, "111111111111111@lid", None, "Ana"),
        (12, 2, "222222222222222@lid", None, None)])
    conn.execute("INSERT INTO ZWAPROFILEPUSHNAME (ZJID, ZPUSHNAME) VALUES ('222222222222222@lid', 'Bea 🌊')")
    conn.execute("INSERT INTO ZWAMEDIAITEM (Z_PK, ZMESSAGE, ZTITLE, ZMEDIALOCALPATH) VALUES (50, 103, 'the gate', 'Media/x.jpg')")
    rows = [  # Z_PK, chat, date, from me, type, group event, text, from jid, member, media, stanza
        (100, 1, T0, 0, 0, 0, "Flights are booked!", DIRECT, None, None, "3EB0A1"),
        (101, 1, T0 + 26, 1, 0, 0, "Great, see you at the gate", None, None, None, "3EB0A2"),
        (102, 1, T0 + 60, 0, 14, 0, None, DIRECT, None, None, "3EB0A3"),  # "This message was deleted"
        (103, 1, T0 + 90, 1, 1, 0, None, None, None, 50, "3EB0A4"),  # a photo with a caption
        (200, 2, T0 + 100, 0, 0, 0, "who brings snacks?", GROUP, 10, None, "G1"),
        (201, 2, T0 + 110, 0, 0, 0, "me", GROUP, 11, None, "G2"),
        (202, 2, T0 + 120, 0, 0, 0, "I'll bring the tent", GROUP, 12, None, "G3"),
        (203, 2, T0 + 130, 0, 6, 2, "Ana changed the group description", GROUP, 11, None, "G4"),
        (300, 3, T0, 0, 0, 0, "status update", "x@s.whatsapp.net", None, None, "S1"),
    ]
    conn.executemany("INSERT INTO ZWAMESSAGE (Z_PK, ZCHATSESSION, ZMESSAGEDATE, ZISFROMME, ZMESSAGETYPE, "
                     "ZGROUPEVENTTYPE, ZTEXT, ZFROMJID, ZGROUPMEMBER, ZMEDIAITEM, ZSTANZAID) "
                     "VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)
    conn.commit()
    conn.close()
    return path


def test_chat_storage(tmp_path: Path, context: ImportContext) -> None:
    path = make_chat_storage(tmp_path / "ChatStorage.sqlite")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    assert isinstance(pick_importer(path, default_importers()), WhatsAppIOSImporter)
    [(direct, dm), (group, gm)] = parse_all(path, context)  # status updates and empty chats left out
    assert direct.name == "WhatsApp with Teo Ramos" and not direct.conversation.is_group
    assert direct.conversation.key == f"whatsapp:{DIRECT}"
    first, mine, photo = dm  # the deleted message is gone, not stored as anyone's words
    assert first.sender == "Teo Ramos" and not first.is_owner and first.platform_id == "3EB0A1"
    assert first.time == datetime.fromtimestamp(T0 + APPLE, tz=timezone.utc)
    assert mine.sender == "Me" and mine.is_owner
    assert photo.text == "[photo] the gate" and photo.is_owner
    assert group.name == "WhatsApp with Lisbon trip" and group.conversation.is_group
    assert [(m.sender, m.kind) for m in gm] == [("Teo Ramos", "text"), ("Ana", "text"), ("Bea 🌊", "text"),
                                                ("Ana", "system")]
    assert gm[0].sender_id == "447700900456@s.whatsapp.net"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # read-only
    assert not path.with_name("ChatStorage.sqlite-wal").exists()


async def test_parser_steps_from_different_threads(tmp_path: Path, context: ImportContext) -> None:
    """The store advances the parser with asyncio.to_thread(next, ...): each step may run on
    another worker thread. Two one-thread pools, taken in turn, make sure every step does."""
    path = make_chat_storage(tmp_path / "ChatStorage.sqlite")
    pools = [ThreadPoolExecutor(max_workers=1), ThreadPoolExecutor(max_workers=1)]
    loop = asyncio.get_running_loop()
    turn = 0

    async def step(function, *args):
        nonlocal turn
        turn += 1
        return await loop.run_in_executor(pools[turn % 2], function, *args)

    try:
        documents = await step(lambda: iter(WhatsAppIOSImporter().parse(path, context)))
        counts = []
        while (document := await step(next, documents, None)) is not None:
            count = 0
            while await step(next, document.messages, None) is not None:
                count += 1
            counts.append(count)
    finally:
        for pool in pools:
            pool.shutdown()
    assert counts == [3, 4]


def test_not_a_whatsapp_database(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "ChatStorage.sqlite"
    path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    with pytest.raises(ImportFailed, match="ChatStorage.sqlite"):
        parse_all(path, context)


class _Opened:
    """Records every real connection the importers open, to see which are left open."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import core.importers.sqlite_files as sqlite_files

        self.connections: list[sqlean.Connection] = []
        real = sqlean.connect

        def connect(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - sqlean's own signature
            conn = real(*args, **kwargs)
            self.connections.append(conn)
            return conn

        monkeypatch.setattr(sqlite_files.sqlean, "connect", connect)

    def left_open(self) -> int:
        count = 0
        for conn in self.connections:
            try:
                conn.execute("SELECT 1")
                count += 1
            except sqlean.ProgrammingError:  # "Cannot operate on a closed database"
                pass
        return count


@pytest.mark.parametrize("importer, make", [("whatsapp_ios", "chat_storage"), ("imessage", "chat_db")])
def test_a_database_held_by_its_app_is_told_by_error_code_and_nothing_is_left_open(
        tmp_path: Path, context: ImportContext, monkeypatch: pytest.MonkeyPatch,
        importer: str, make: str) -> None:
    """WhatsApp or Messages holding its database (an exclusive lock, SQLITE_BUSY) gets the
    'quit the app, or import a copy' hint; the connection that found the lock is closed."""
    from core.importers.imessage import IMessageImporter
    from tests.importers.test_imessage import make_chat_db

    if make == "chat_storage":
        path, parser = make_chat_storage(tmp_path / "ChatStorage.sqlite"), WhatsAppIOSImporter()
    else:
        path, parser = make_chat_db(tmp_path / "chat.db"), IMessageImporter()
    holder = sqlean.connect(str(path), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    opened = _Opened(monkeypatch)
    try:
        with pytest.raises(ImportFailed) as raised:
            list(parser.parse(path, context))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "quit" in raised.value.hint and "copy" in raised.value.hint
    assert opened.connections and opened.left_open() == 0
