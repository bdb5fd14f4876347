"""signal-export output (data.json and chat.md, written by signal-export's own code; see
tests/importers/data/signal/README.md)."""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

from core.importers.base import ImportContext
from tests.importers.conftest import parse_all

DATA = Path(__file__).parent / "data" / "signal"


def _check(messages, context: ImportContext) -> None:
    booked, reply, photo, sticker = messages  # the deleted message is not anyone's words
    assert booked.sender == "Mara Lind" and booked.is_owner  # Mara is the owner in this context
    assert booked.text == "Flights are booked!"  # the reaction is not part of it
    assert booked.time == datetime(2024, 3, 5, 21, 7, 44, tzinfo=context.timezone)
    assert reply.sender == "Me" and reply.is_owner
    assert reply.text == "Great, see you at the gate\nI'll bring the snacks"  # the quote is Mara's words
    assert photo.text == "[attachment: IMG_1234.jpg]" and photo.kind == "media"
    assert photo.attachments == ("IMG_1234.jpg",)
    assert sticker.text == "[sticker 😀]"


def test_data_json_is_preferred(context: ImportContext, tmp_path: Path) -> None:
    chat = shutil.copytree(DATA / "Mara Lind", tmp_path / "Mara Lind")
    [(document, messages)] = parse_all(chat / "data.json", context)
    assert document.name == "Signal with Mara Lind" and document.conversation.key == "signal:Mara Lind"
    assert not document.conversation.is_group
    _check(messages, context)
    assert parse_all(chat / "chat.md", context) == []  # the same messages again


def test_chat_md_alone(context: ImportContext, tmp_path: Path) -> None:
    chat = tmp_path / "Mara Lind"
    chat.mkdir()
    shutil.copy(DATA / "Mara Lind" / "chat.md", chat / "chat.md")
    [(_, messages)] = parse_all(chat / "chat.md", context)
    _check(messages, context)


def test_group_chat(tmp_path: Path) -> None:
    chat = shutil.copytree(DATA / "Lisbon trip", tmp_path / "Lisbon trip")
    [(document, messages)] = parse_all(chat / "data.json", ImportContext())
    assert document.conversation.is_group
    assert [(m.sender, m.is_owner) for m in messages] == [("Teo Ramos", False), ("Ana", False), ("Me", True)]


def test_calls_are_kept_and_deleted_messages_counted(context: ImportContext, tmp_path: Path) -> None:
    """signal-export writes a call as an empty body with `call` (and `missed`) set and a deleted
    message with `deleted` (carderne/signal-export sigexport/models.py, MIT): the call vanished
    and the deletion went uncounted."""
    import json

    folder = tmp_path / "Mara Lind"
    folder.mkdir()
    base = {"quote": "", "sticker": None, "reactions": [], "attachments": [], "deleted": False,
            "call": False, "missed": False}
    rows = [base | {"date": "2024-03-05T21:07:44", "sender": "Me", "body": "ferry?"},
            base | {"date": "2024-03-05T21:09:10", "sender": "Mara Lind", "body": "", "deleted": True},
            base | {"date": "2024-03-05T21:13:00", "sender": "Mara Lind", "body": "", "call": True, "missed": True},
            base | {"date": "2024-03-05T21:20:00", "sender": "Me", "body": "", "call": True}]
    (folder / "data.json").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    [(document, messages)] = parse_all(folder / "data.json", context)
    assert [(m.sender, m.kind, m.text) for m in messages] == [
        ("Me", "text", "ferry?"), ("Mara Lind", "system", "Missed call"), ("Me", "system", "Call")]
    assert document.skipped == {"deleted messages": 1}
