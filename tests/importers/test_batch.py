"""A batch import goes on past a broken file, says which file failed and why, and ends with a
non-zero status; an iMessage database with several chats imports through the real store (its
rows read in worker threads, as `biographer ingest` does)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sqlean

from bot.cli import main
from tests.core.helpers import memory_at

DATA = Path(__file__).parent / "data"
NS = 10**9
T0 = 731365664 * NS  # 2024-03-05 21:07:44 UTC in Apple-epoch nanoseconds


def chat_db(path: Path, *, foreign_joins: bool = False) -> Path:
    """A Messages database with the real iOS 10.2 schema, holding a 1:1 chat and a group chat.
    `foreign_joins` renames a column of `chat_message_join`, a layout the importer does not
    know: it fails only
    when a chat's messages are read, after the chats themselves were found."""
    schema = (DATA / "imessage" / "sms-ios10.2-schema.sql").read_text()
    statements = [s for s in schema.split(";") if s.strip() and "sqlite_sequence" not in s]
    conn = sqlean.connect(str(path))
    for statement in statements:
        conn.execute(statement)
    conn.executemany("INSERT INTO handle (ROWID, id, service) VALUES (?, ?, 'iMessage')",
                     [(1, "+15555550123"), (2, "ana@example.com")])
    conn.executemany("INSERT INTO chat (ROWID, guid, style, chat_identifier, display_name) "
                     "VALUES (?, ?, ?, ?, ?)",
                     [(1, "iMessage;-;+15555550123", 45, "+15555550123", ""),
                      (2, "iMessage;+;chat912", 43, "chat912", "Lisbon trip")])
    conn.executemany("INSERT INTO chat_handle_join VALUES (?, ?)", [(1, 1), (2, 1), (2, 2)])
    rows = [  # rowid, chat, guid, text, handle, date, from_me, associated type
        (1, 1, "G-1", "Flights are booked!", 1, T0, 0, 0),
        (2, 1, "G-2", "Great, see you at the gate", 0, T0 + 30 * NS, 1, 0),
        (3, 1, "G-3", "Loved “Flights are booked!”", 1, T0 + 60 * NS, 0, 2000),
        (4, 2, "G-4", "who brings snacks?", 2, T0 + 90 * NS, 0, 0),
        (5, 2, "G-5", "me, pastéis de nata", 0, T0 + 120 * NS, 1, 0),
    ]
    for rowid, chat, guid, text, handle, date, mine, assoc in rows:
        conn.execute("INSERT INTO message (ROWID, guid, text, handle_id, date, is_from_me, "
                     "associated_message_type) VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (rowid, guid, text, handle, date, mine, assoc))
        conn.execute("INSERT INTO chat_message_join VALUES (?, ?)", (chat, rowid))
    if foreign_joins:
        conn.execute("ALTER TABLE chat_message_join RENAME COLUMN message_id TO msg_id")
    conn.commit()
    conn.close()
    return path


async def test_a_chat_db_with_two_chats_imports_every_chat(tmp_path: Path, embedder) -> None:
    path = chat_db(tmp_path / "chat.db")
    async with memory_at(tmp_path / "data", embedder) as memory:
        report = await memory.ingest([path], index=False)
        async with memory.conn.execute(
                "SELECT d.name, m.sender, m.is_owner, m.text FROM messages m "
                "JOIN documents d ON d.id = m.document_id ORDER BY m.time") as cur:
            rows = [tuple(r) for r in await cur.fetchall()]
    assert report.errors == []
    assert report.documents_added == 2 and report.messages_added == 4
    assert report.skipped == {"reactions": 1}  # the tapback, counted, not stored as words
    assert rows == [
        ("iMessage with +15555550123", "+15555550123", 0, "Flights are booked!"),
        ("iMessage with +15555550123", "Me", 1, "Great, see you at the gate"),
        ("iMessage with Lisbon trip", "ana@example.com", 0, "who brings snacks?"),
        ("iMessage with Lisbon trip", "Me", 1, "me, pastéis de nata"),
    ]


def test_ingest_goes_on_past_a_broken_file_and_names_it(tmp_path: Path, capsys) -> None:
    """A folder: a real WhatsApp export, then a Messages database in a layout the importer does
    not know (it fails while its messages are read), then another export.
    Both exports are imported, the database is named with its cause, the status is 1."""
    folder = tmp_path / "exports"
    folder.mkdir()
    shutil.copy(DATA / "whatsapp" / "en_ios.txt", folder / "a WhatsApp Chat - Elon Musk.txt")
    chat_db(folder / "b chat.db", foreign_joins=True)
    shutil.copy(DATA / "whatsapp" / "ru_android.txt", folder / "c WhatsApp Chat with Elon.txt")
    status = main(["--data-dir", str(tmp_path / "data"), "ingest", str(folder), "--no-index"])
    out, err = capsys.readouterr()
    assert status == 1
    [line] = [line for line in err.splitlines() if line.startswith("error:")]
    assert line.startswith("error: b chat.db: could not be read (OperationalError: ")
    assert "no such column: cmj.message_id" in line
    assert "added 2 documents" in out and "1 failed" in out


@pytest.mark.parametrize("damage", ["truncated", "not a database"])
def test_a_damaged_database_in_the_middle_fails_alone(tmp_path: Path, capsys, damage: str) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    shutil.copy(DATA / "whatsapp" / "de_ios.txt", folder / "a.txt")
    broken = chat_db(tmp_path / "chat.db")
    data = broken.read_bytes()
    (folder / "b chat.db").write_bytes(data[: len(data) // 3] if damage == "truncated"
                                       else b"SQLite format 3\x00" + b"\xff" * 4000)
    shutil.copy(DATA / "whatsapp" / "fr_ios.txt", folder / "c.txt")
    status = main(["--data-dir", str(tmp_path / "data"), "ingest", str(folder), "--no-index"])
    out, err = capsys.readouterr()
    assert status == 1
    assert [line for line in err.splitlines() if line.startswith("error:")][0].startswith(
        "error: b chat.db: ")
    assert "added 2 documents" in out


def test_a_folder_of_every_format_with_one_corrupt_file(tmp_path: Path, capsys) -> None:
    """What a new user drops in: chats, mail, a journal, a Messages database, a Telegram HTML
    export, an Instagram thread, and one zip cut short in the middle of it all."""
    from tests.importers.test_journal import JOURNAL
    from tests.importers.test_meta import STICKER_AND_SHARES
    from tests.importers.test_telegram_layouts import html_export

    folder = tmp_path / "everything"
    folder.mkdir()
    shutil.copy(DATA / "whatsapp" / "ja_ios.txt", folder / "a WhatsApp Chat - Elon Musk.txt")
    shutil.copy(DATA / "email" / "114892.partial.emlx", folder / "b 114892.partial.emlx")
    chat_db(folder / "c chat.db")
    zipped = (DATA / "whatsapp" / "de_ios.txt").read_bytes()
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("_chat.txt", zipped * 50)
    (folder / "d WhatsApp Chat - Broken.zip").write_bytes(buffer.getvalue()[: len(buffer.getvalue()) // 2])
    (folder / "e journal.md").write_text(JOURNAL, encoding="utf-8")
    inbox = folder / "f instagram" / "inbox" / "teoramos_1015"
    inbox.mkdir(parents=True)
    (inbox / "message_1.json").write_text(STICKER_AND_SHARES, encoding="utf-8")
    html_export(folder / "g ChatExport_2024-03-06")
    status = main(["--data-dir", str(tmp_path / "data"), "ingest", str(folder), "--no-index"])
    out, err = capsys.readouterr()
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert status == 1
    assert errors == ["error: d WhatsApp Chat - Broken.zip: is not a readable zip (File is not a zip "
                      "file) (download or export the archive again)"]
    # WhatsApp, e-mail, two iMessage chats, the journal, Instagram, Telegram
    assert "added 7 documents" in out and "1 failed" in out


def test_an_outlook_message_is_named_with_what_to_do(tmp_path: Path, capsys) -> None:
    """An Outlook .msg (a Microsoft compound file, as SpamScope/mail-parser's `mail_outlook_1`)
    is refused in one line that says how to get it in, and the rest of the folder is read."""
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "invoice.msg").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))
    (folder / "note.md").write_text("# Note\n\nBought the ferry tickets.\n", encoding="utf-8")
    code = main(["ingest", "--data-dir", str(tmp_path / "data"), "--no-index", str(folder)])
    out = capsys.readouterr()
    assert code == 1
    line = next(line for line in (out.out + out.err).splitlines() if "invoice.msg" in line)
    assert "Outlook" in line and ".eml" in line
    assert "added 1 document " in out.out + out.err
