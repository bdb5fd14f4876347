"""iMessage chat.db (shared/EXPORT_FORMATS.md §5): a synthetic database with the real tables."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
import sqlean

from core.errors import ImportFailed, UnsupportedFormat
from core.importers import default_importers, pick_importer
from core.importers.base import ImportContext
from core.importers.imessage import apple_time, attributed_body_text
from tests.importers.conftest import parse_all

NS_2024 = 731365664000000000  # 2024-03-05 21:07:44 UTC in Apple-epoch nanoseconds


def typedstream(text: str) -> bytes:
    data = text.encode()
    length = bytes([len(data)]) if len(data) < 0x80 else b"\x81" + len(data).to_bytes(2, "little")
    return (b"\x04\x0bstreamtyped\x81\xe8\x03\x84\x01@\x84\x84\x84\x12NSAttributedString\x00"
            b"\x84\x84\x08NSObject\x00\x85\x92\x84\x84\x84\x08NSString\x01\x94\x84\x01+"
            + length + data + b"\x86\x84\x02iI\x01")


def make_chat_db(path: Path) -> Path:
    conn = sqlean.connect(str(path))
    conn.executescript("""
        CREATE TABLE handle (ROWID INTEGER PRIMARY KEY, id TEXT, service TEXT);
        CREATE TABLE chat (ROWID INTEGER PRIMARY KEY, guid TEXT, chat_identifier TEXT, style INTEGER,
                           display_name TEXT);
        CREATE TABLE message (ROWID INTEGER PRIMARY KEY, guid TEXT, text TEXT, attributedBody BLOB,
                              handle_id INTEGER, date INTEGER, is_from_me INTEGER, item_type INTEGER,
                              associated_message_type INTEGER, associated_message_guid TEXT,
                              thread_originator_guid TEXT);
        CREATE TABLE chat_message_join (chat_id INTEGER, message_id INTEGER, message_date INTEGER);
        CREATE TABLE chat_handle_join (chat_id INTEGER, handle_id INTEGER);
        INSERT INTO handle VALUES (1, '+15555550123', 'iMessage'), (2, 'ana@example.com', 'iMessage');
        INSERT INTO chat VALUES (1, 'iMessage;-;+15555550123', '+15555550123', 45, ''),
                                (2, 'iMessage;+;chat123', 'chat123', 43, 'Lisbon trip');
        INSERT INTO chat_handle_join VALUES (1, 1), (2, 1), (2, 2);
    """)
    rows = [
        (8121, "4F1A-E2", "Flights are booked!", None, 1, NS_2024, 0, 0, 0, None, None),
        (8122, "9C07-11", None, typedstream("Great, see you at the gate"), 1, NS_2024 + 26 * 10**9, 1, 0, 0,
         None, "4F1A-E2"),
        (8123, "0D3B-5A", "Loved “Flights are booked!”", None, 1, NS_2024 + 60 * 10**9, 0, 0, 2000,
         "p:0/4F1A-E2", None),
        (8124, "77AB-02", "old row, seconds", None, 1, 518011200, 0, 0, 0, None, None),
        (8125, "GRP-1", "who brings snacks?", None, 2, NS_2024, 0, 0, 0, None, None),
        (8126, "GRP-2", None, None, 2, NS_2024, 0, 1, 0, None, None),
    ]
    conn.executemany("INSERT INTO message VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)
    conn.executemany("INSERT INTO chat_message_join VALUES (?,?,0)",
                     [(1, 8121), (1, 8122), (1, 8123), (1, 8124), (2, 8125), (2, 8126)])
    conn.commit()
    conn.close()
    return path


def test_chat_db(tmp_path: Path, context: ImportContext) -> None:
    path = make_chat_db(tmp_path / "chat.db")
    [(direct, dm), (group, gm)] = parse_all(path, context)
    assert direct.conversation.key == "imessage:+15555550123" and not direct.conversation.is_group
    assert group.conversation.is_group and group.name == "iMessage with Lisbon trip"
    old, first, mine = dm  # ordered by time; the tapback is dropped
    assert old.time == datetime(2017, 6, 1, 12, 0, tzinfo=timezone.utc)
    assert first.sender == "+15555550123" and not first.is_owner and first.platform_id == "4F1A-E2"
    assert first.time == datetime(2024, 3, 5, 21, 7, 44, tzinfo=timezone.utc)
    assert mine.sender == "Me" and mine.is_owner and mine.text == "Great, see you at the gate"
    assert mine.reply_to == "4F1A-E2"
    assert [m.sender for m in gm] == ["ana@example.com"]


def test_a_database_in_a_folder_named_with_a_hash_is_read(tmp_path: Path, context: ImportContext) -> None:
    """It was opened as `file:{path}?mode=ro`, where `#` starts a URI fragment: the folder
    "Backups #2" became "Backups " and the database was not found."""
    folder = tmp_path / "Backups #2"
    folder.mkdir()
    path = make_chat_db(folder / "messages.db")  # not named chat.db: recognised by its tables
    assert pick_importer(path, default_importers()).name == "imessage"
    assert len(parse_all(path, context)) == 2


def test_apple_time_units() -> None:
    assert apple_time(NS_2024) == apple_time(NS_2024 // 10**9)


def test_attributed_body_long_text() -> None:
    text = "x" * 300
    assert attributed_body_text(typedstream(text)) == text


def test_corrupt_and_foreign_sqlite(tmp_path: Path, context: ImportContext) -> None:
    corrupt = tmp_path / "chat.db"
    corrupt.write_bytes(b"SQLite format 3\x00" + b"\x00\xff" * 600)
    with pytest.raises(ImportFailed, match="chat.db: "):
        parse_all(corrupt, context)
    other = tmp_path / "notes.sqlite"
    conn = sqlean.connect(str(other))
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(UnsupportedFormat):
        pick_importer(other, default_importers())
