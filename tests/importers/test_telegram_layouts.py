"""Every layout Telegram Desktop has written: JSON before 2021 (numeric from_id, only the local
`date`, no text_entities), JSON with `date_unixtime` and no `date` (a real chat-miner fixture), and
the default HTML export (messages.html, messages2.html ...), whose markup below is what Telegram
Desktop's exporter writes (export_output_html.cpp: joined messages without a sender, service
messages, forwards, replies, media)."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from core.importers.base import ImportContext
from tests.core.helpers import memory_at
from tests.importers.conftest import parse_all

DATA = Path(__file__).parent / "data" / "telegram"
LISBON = ZoneInfo("Europe/Lisbon")

# Telegram Desktop 1.x (2018-2020): from_id a number, no date_unixtime, no text_entities
OLD_JSON = {
    "name": "Teo Ramos", "type": "personal_chat", "id": 5550009876,
    "messages": [
        {"id": 101, "type": "message", "date": "2019-03-05T21:07:44", "edited": "1970-01-01T01:00:00",
         "from": "Mara Lind", "from_id": 5550001234, "text": "Flights are booked!"},
        {"id": 102, "type": "message", "date": "2019-03-05T21:08:10", "edited": "1970-01-01T01:00:00",
         "from": "Teo Ramos", "from_id": 5550009876, "reply_to_message_id": 101,
         "text": ["Ride the ", {"type": "bold", "text": "28"}, " early"]},
        {"id": 103, "type": "service", "date": "2019-03-05T21:15:02", "edited": "1970-01-01T01:00:00",
         "actor": "Mara Lind", "actor_id": 5550001234, "action": "phone_call",
         "duration_seconds": 312, "discard_reason": "hangup", "text": ""},
        {"id": 104, "type": "unsupported"},
    ],
}


def test_json_before_2021(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(OLD_JSON, ensure_ascii=False), encoding="utf-8")
    context = ImportContext(timezone=LISBON, owner_aliases=frozenset({"5550001234"}))
    [(document, messages)] = parse_all(path, context)
    assert document.kind == "telegram" and document.name == "Telegram with Teo Ramos"
    assert [(m.sender, m.text, m.is_owner) for m in messages] == [
        ("Mara Lind", "Flights are booked!", True),
        ("Teo Ramos", "Ride the 28 early", False),
        ("Mara Lind", "Mara Lind called (312 s, hangup)", True),
    ]
    assert messages[0].time == datetime(2019, 3, 5, 21, 7, 44, tzinfo=LISBON)
    assert messages[1].reply_to == "101"
    assert document.skipped == {"unsupported messages": 1}


def test_json_with_unix_time_and_no_date(tmp_path: Path) -> None:
    """chat-miner's real fixture: `date_unixtime` only; such messages were dropped silently."""
    folder = tmp_path / "ChatExport_2018-12-05"
    folder.mkdir()
    path = Path(shutil.copy(DATA / "chat-miner-single-export.json", folder / "result.json"))
    [(document, messages)] = parse_all(path, ImportContext())
    assert [(m.sender, m.text) for m in messages] == [
        ("Author 1", "Minimal Message"), ("Author 2", "Link:https://telegram.org/")]
    assert messages[0].time == datetime.fromtimestamp(1544006350, tz=timezone.utc)
    assert document.conversation.key == "telegram:ChatExport_2018-12-05:Author 1, Author 2"


def _message(number: int, time: str, *, sender: str | None, inner: str, joined: bool = False) -> str:
    """One message as Telegram Desktop writes it (export_output_html.cpp, pushMessage)."""
    head = "" if joined else (
        '<div class="pull_left userpic_wrap"><div class="userpic userpic2" style="width: 42px; '
        'height: 42px"><div class="initials" style="line-height: 42px">M</div></div></div>')
    name = "" if sender is None else f'\n<div class="from_name">\n{sender}\n</div>'
    return (f'<div class="message default clearfix{" joined" if joined else ""}" id="message{number}">'
            f'\n{head}\n<div class="body">\n<div class="pull_right date details" title="{time}">\n'
            f'{time[11:16]}\n</div>{name}\n{inner}\n</div>\n</div>\n')


def _page(title: str, history: str) -> str:
    return ('<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8"/>\n<title>Exported Data</title>\n'
            '<link href="css/style.css" rel="stylesheet"/>\n<script src="js/script.js" '
            'type="text/javascript"></script>\n</head>\n<body onload="CheckLocation();">\n'
            '<div class="page_wrap">\n<div class="page_header">\n<div class="content">\n'
            f'<div class="text bold">\n{title}\n</div>\n</div>\n</div>\n'
            f'<div class="page_body chat_page">\n<div class="history">\n{history}</div>\n</div>\n'
            '</div>\n</body>\n</html>\n')


def _service(number: int, text: str) -> str:
    return (f'<div class="message service" id="message{number}">\n<div class="body details">\n'
            f'{text}\n</div>\n</div>\n')


def html_export(folder: Path) -> Path:
    folder.mkdir()
    (folder / "css").mkdir()
    (folder / "css" / "style.css").write_text("body { margin: 0 }")
    (folder / "js").mkdir()
    (folder / "js" / "script.js").write_text("function CheckLocation() {}")
    (folder / "photos").mkdir()
    (folder / "photos" / "photo_1@05-03-2024_21-09-00.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\0" * 64)
    first = (
        _service(-1, "5 March 2024")
        + _service(9000, "Mara Lind created group &laquo;Lisbon trip&raquo;")
        + _message(9001, "05.03.2024 21:07:44 UTC+00:00", sender="Mara Lind",
                   inner='<div class="text">\nFlights are booked!<br>Out Friday 06:40\n</div>')
        + _message(9002, "05.03.2024 21:08:10 UTC+00:00", sender=None, joined=True,
                   inner='<div class="text">\nand back on Monday\n</div>')
        + _message(9003, "05.03.2024 21:09:00 UTC+00:00", sender="Teo Ramos", inner=(
            '<div class="reply_to details">\nIn reply to <a href="#go_to_message9001" '
            'onclick="return GoToMessage(9001)">this message</a>\n</div>\n'
            '<div class="media_wrap clearfix">\n<a class="photo_wrap clearfix pull_left" '
            'href="photos/photo_1@05-03-2024_21-09-00.jpg">\n<img class="photo" '
            'src="photos/photo_1@05-03-2024_21-09-00_thumb.jpg" style="width: 260px; height: 195px"/>'
            '\n</a>\n</div>\n<div class="text">\nthe view from the hotel\n</div>')))
    second = (
        _message(9004, "06.03.2024 08:00:00 UTC+00:00", sender="Teo Ramos", inner=(
            '<div class="pull_left forwarded userpic_wrap"></div>\n<div class="forwarded body">\n'
            '<div class="from_name">\nLisbon Tram Tips<span class="date details" '
            'title="04.03.2024 10:00:00 UTC+00:00" inline=""> 04.03.2024 10:00:00</span>\n</div>\n'
            '<div class="text">\nRide the 28 early: <a href="https://example.org/tram28">'
            'https://example.org/tram28</a>\n</div>\n</div>'))
        + _message(9005, "06.03.2024 08:01:00 UTC+00:00", sender="Mara Lind", inner=(
            '<div class="media_wrap clearfix">\n<a class="media clearfix pull_left block_link '
            'media_voice_message" href="voice_messages/audio_1@06-03-2024_08-01-00.ogg">\n'
            '<div class="fill pull_left">\n</div>\n<div class="body">\n<div class="title bold">\n'
            'Voice message\n</div>\n<div class="status details">\n00:06, 40.3 KB\n</div>\n</div>\n'
            '</a>\n</div>'))
        + _service(9006, "Teo Ramos pinned &laquo;Ride the 28 early&raquo;"))
    (folder / "messages.html").write_text(_page("Lisbon trip", first), encoding="utf-8")
    (folder / "messages2.html").write_text(_page("Lisbon trip", second), encoding="utf-8")
    return folder


def test_html_export(tmp_path: Path) -> None:
    folder = html_export(tmp_path / "ChatExport_2024-03-06")
    [(document, messages)] = parse_all(folder / "messages.html", ImportContext(
        owner_aliases=frozenset({"mara lind"})))
    assert document.name == "Telegram with Lisbon trip"
    rows = [(m.platform_id, m.sender, m.kind, m.text) for m in messages]
    assert rows == [
        ("9000", "", "system", "Mara Lind created group «Lisbon trip»"),
        ("9001", "Mara Lind", "text", "Flights are booked!\nOut Friday 06:40"),
        ("9002", "Mara Lind", "text", "and back on Monday"),  # joined: the same sender
        ("9003", "Teo Ramos", "text", "[photo] the view from the hotel"),
        ("9004", "Teo Ramos", "text", "Ride the 28 early: https://example.org/tram28"),
        ("9005", "Mara Lind", "media", "[voice message]"),
        ("9006", "", "system", "Teo Ramos pinned «Ride the 28 early»"),
    ]
    assert messages[1].is_owner and messages[2].is_owner and not messages[3].is_owner
    assert messages[3].reply_to == "9001"
    assert messages[3].attachments == ("photos/photo_1@05-03-2024_21-09-00.jpg",)
    assert messages[4].forwarded_from == "Lisbon Tram Tips"
    assert messages[1].time == datetime(2024, 3, 5, 21, 7, 44, tzinfo=timezone(timedelta(0)))
    assert messages[6].time == messages[5].time  # a service message takes the time before it
    # the second page is read with the first, not on its own
    assert parse_all(folder / "messages2.html", ImportContext()) == []


async def test_an_html_export_folder_imports_once_without_errors(tmp_path: Path, embedder) -> None:
    folder = html_export(tmp_path / "ChatExport_2024-03-06")
    async with memory_at(tmp_path / "data", embedder) as memory:
        report = await memory.ingest([folder], index=False)
    assert report.errors == []  # the style sheet and script are the export's own
    assert report.documents_added == 1 and report.messages_added == 7
    assert report.media_with_exports == 1  # the photo, read with its message


def test_an_html_page_saved_under_another_name_is_still_the_export(tmp_path: Path) -> None:
    """Recognised by its markup, not its name: a page renamed by the user or by a download
    (`chat.html`, `messages (1).html`) reads as the chat it is."""
    folder = html_export(tmp_path / "ChatExport_2024-03-06")
    context = ImportContext(owner_aliases=frozenset({"mara lind"}))
    [(_, expected)] = parse_all(folder / "messages.html", context)
    for name in ("chat.html", "messages (1).html"):
        renamed = tmp_path / name
        shutil.copy(folder / "messages.html", renamed)
        [(document, messages)] = parse_all(renamed, context)
        assert document.kind == "telegram" and document.name == "Telegram with Lisbon trip"
        assert [(m.sender, m.text) for m in messages] == [(m.sender, m.text) for m in expected[:4]]


def test_an_html_poll_keeps_its_question_and_options(tmp_path: Path) -> None:
    """A poll as export_output_html.cpp's pushPoll writes it: question, kind, `- option` lines
    with their votes, the total."""
    poll = ('<div class="media_wrap clearfix">\n<div class="media_poll">\n'
            '<div class="question bold">\nWhere do we eat on Friday?\n</div>\n'
            '<div class="details">\nAnonymous poll\n</div>\n'
            '<div class="answer">\n- Tasca do Chico <span class="details">2 votes</span>\n</div>\n'
            '<div class="answer">\n- Time Out Market <span class="details">1 vote</span>\n</div>\n'
            '<div class="total details\t">\n3 votes\n</div>\n</div>\n</div>')
    page = tmp_path / "messages.html"
    page.write_text(_page("Lisbon trip", _message(7, "05.03.2024 21:07:44 UTC+00:00",
                                                 sender="Teo Ramos", inner=poll)), encoding="utf-8")
    [(_, [message])] = parse_all(page, ImportContext())
    assert message.text == "[poll] Where do we eat on Friday? (Tasca do Chico, Time Out Market)"
