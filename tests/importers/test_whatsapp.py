"""WhatsApp .txt and .zip exports: the variants of shared/EXPORT_FORMATS.md §1, with synthetic people."""

from __future__ import annotations

import zipfile
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core.memory.chunking import MessageChunker
from core.errors import ImportFailed, UnsupportedFormat
from core.importers import default_importers, pick_importer
from core.importers.base import ImportContext
from core.importers.whatsapp import WhatsAppImporter
from core.importers.whatsapp_stamps import resolve_time
from core.importers.whatsapp_zip import WhatsAppZipImporter
from tests.importers.conftest import only_messages, parse_all

LISBON = ZoneInfo("Europe/Lisbon")

ANDROID_GROUP = (
    "05/03/2024, 20:58 - Messages and calls are end-to-end encrypted. No one outside of this chat, "
    "not even WhatsApp, can read or listen to them. Tap to learn more.\n"
    '05/03/2024, 21:00 - Mara Lind created group "Lisbon trip"\n'
    "05/03/2024, 21:01 - Mara Lind: Flights are booked!\n"
    "Out Friday 06:40, back Monday night\n"
    "05/03/2024, 21:02 - \u202a+44\u00a07700\u00a0900124\u202c: IMG-20240305-WA0007.jpg (file attached)\n"
    "View from the hotel roof\n"
    "05/03/2024, 21:03 - Teo Ramos: \u200ePTT-20240305-WA0008.opus (file attached)\n"
    "05/03/2024, 21:04 - Teo Ramos: <Media omitted>\n"
    "05/03/2024, 21:05 - Teo Ramos: This message was deleted\n"
    '05/03/2024, 21:06 - You changed the subject to "Plans: June"\n'
    "13/03/2024, 09:15 - Teo Ramos: 25/12/19 was the last time we went\n"
    "and it rained - a lot: really\n"
)

IOS_NO_MEDIA = (
    "[05/03/2024, 21:00:11] Teo Ramos: \u200eMessages and calls are end-to-end encrypted. No one "
    "outside of this chat, not even WhatsApp, can read or listen to them.\r\n"
    "[05/03/2024, 21:01:40] Mara Lind: Flights are booked!\r\n"
    "Out Friday 06:40\r\n"
    "\u200e[05/03/2024, 21:02:03] Teo Ramos: \u200eimage omitted\r\n"
    "\u200e[05/03/2024, 21:02:31] Teo Ramos: Itinerary.pdf \u2022 \u200e2 pages \u200edocument omitted\r\n"
    "[05/03/2024, 21:03:09] Mara Lind: \u200eThis message was deleted.\r\n"
    "[14/03/2024, 08:00:00] Teo Ramos: \u200eMissed voice call\r\n"
)

IOS_US_12H = (
    "\u200e[3/5/24, 9:08:02\u202fPM] Teo Ramos: \u200e<attached: 00000012-PHOTO-2024-03-05-21-08-02.jpg>\n"
    "[3/5/24, 9:09:30\u202fPM] Mara Lind: \U0001f60d where is that?\n"
    "[3/14/24, 12:01:00\u202fAM] Mara Lind: midnight snack\n"
)


def write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def test_android_group_with_media(tmp_path: Path, context: ImportContext) -> None:
    path = write(tmp_path, "WhatsApp Chat with Lisbon trip.txt", ANDROID_GROUP)
    [(document, messages)] = parse_all(path, context)
    assert document.conversation is not None
    assert document.conversation.key == "whatsapp:Lisbon trip"
    assert document.conversation.is_group
    assert set(document.conversation.participants) == {"Mara Lind", "+44 7700 900124", "Teo Ramos"}
    # encryption notice and the deleted stub are dropped; group events stay as system lines
    texts = [(m.sender, m.kind, m.text) for m in messages]
    assert texts[0] == ("", "system", 'Mara Lind created group "Lisbon trip"')
    assert texts[1] == ("Mara Lind", "text", "Flights are booked!\nOut Friday 06:40, back Monday night")
    assert messages[1].is_owner and not messages[2].is_owner
    photo = messages[2]
    assert photo.sender == "+44 7700 900124" and photo.sender_id == "+447700900124"
    assert photo.kind == "media" and photo.attachments == ("IMG-20240305-WA0007.jpg",)
    assert photo.text == "[photo] View from the hotel roof"
    assert messages[3].text == "[voice note]" and messages[3].attachments == ("PTT-20240305-WA0008.opus",)
    assert messages[4].text == "[media omitted]"
    # the subject change contains ": " but is not a message by 'You changed the subject to "Plans'
    assert texts[5] == ("", "system", 'You changed the subject to "Plans: June"')
    # a body line starting with a date is a continuation, not a header
    assert messages[6].text == "25/12/19 was the last time we went\nand it rained - a lot: really"
    assert len(messages) == 7
    assert messages[1].time == datetime(2024, 3, 5, 21, 1, tzinfo=LISBON)
    assert all(m.time.tzinfo is not None for m in messages)


def test_ios_without_media_crlf(tmp_path: Path, context: ImportContext) -> None:
    # the chat title is the partner: iOS writes its system lines under that name
    path = write(tmp_path, "WhatsApp Chat - Teo Ramos.txt", IOS_NO_MEDIA)
    messages = only_messages(path, context)
    kinds = [(m.sender, m.kind, m.text) for m in messages]
    assert kinds == [
        ("Mara Lind", "text", "Flights are booked!\nOut Friday 06:40"),
        ("Teo Ramos", "media", "[image omitted]"),
        ("Teo Ramos", "media", "[document omitted: Itinerary.pdf]"),
        ("", "system", "Missed voice call (Teo Ramos)"),
    ]
    assert messages[0].time == datetime(2024, 3, 5, 21, 1, 40, tzinfo=LISBON)
    assert messages[0].is_owner


def test_ios_us_12_hour_clock_with_nnbsp(tmp_path: Path, context: ImportContext) -> None:
    path = write(tmp_path, "_chat.txt", IOS_US_12H)
    messages = only_messages(path, context)
    assert messages[0].attachments == ("00000012-PHOTO-2024-03-05-21-08-02.jpg",)
    assert messages[0].time == datetime(2024, 3, 5, 21, 8, 2, tzinfo=LISBON)
    assert messages[1].text == "\U0001f60d where is that?"
    assert messages[2].time == datetime(2024, 3, 14, 0, 1, tzinfo=LISBON)  # 12 AM is 00 h


def test_partner_of_chat_txt_comes_from_the_participants(tmp_path: Path, context: ImportContext) -> None:
    path = write(tmp_path, "_chat.txt", IOS_US_12H)
    [(document, _)] = parse_all(path, context)
    assert document.conversation is not None and document.conversation.key == "whatsapp:Teo Ramos"


@pytest.mark.parametrize(
    ("line", "day_first", "expected"),
    [
        ("05/03/2024, 21:07 - Teo: ok", True, datetime(2024, 3, 5, 21, 7)),  # Android 24 h
        ("3/5/24, 9:07\u202fPM - Teo: ok", False, datetime(2024, 3, 5, 21, 7)),  # Android US
        ("3/5/24, 9:07 p.m. - Teo: ok", False, datetime(2024, 3, 5, 21, 7)),
        ("5/3/24, 9:07 p.\u00a0m. - Teo: ok", True, datetime(2024, 3, 5, 21, 7)),  # Android es
        ("05.03.24, 21:07 - Teo: ok", True, datetime(2024, 3, 5, 21, 7)),  # de
        ("05.03.24 21:07 - Teo: ok", True, datetime(2024, 3, 5, 21, 7)),  # cs, no comma
        ("05-03-2024 21:07 - Teo: ok", True, datetime(2024, 3, 5, 21, 7)),  # nl
        ("2024/03/05, 21:07 - Teo: ok", False, datetime(2024, 3, 5, 21, 7)),  # ja/zh, year first
        ("[05/03/2024, 21:07:44] Teo: ok", True, datetime(2024, 3, 5, 21, 7, 44)),  # iOS 24 h
        ("[3/5/24 21.07.44] Teo: ok", False, datetime(2024, 3, 5, 21, 7, 44)),  # iOS dotted time
        ("[5.3.2024 klo 21.07.44] Teo: ok", True, datetime(2024, 3, 5, 21, 7, 44)),  # fi
        ("5.3.2024 klo 21.07 - Teo: ok", True, datetime(2024, 3, 5, 21, 7)),  # fi, Android
        ("03-06-2018, 01.55 PM - Teo: ok", True, datetime(2018, 6, 3, 13, 55)),  # dotted 12 h
        ("[2018/06/13, 21:25:15] Teo: ok", False, datetime(2018, 6, 13, 21, 25, 15)),  # iOS year first
        ("3/6/2018 1:55 p. m. - Teo: ok", False, datetime(2018, 3, 6, 13, 55)),  # es-US, no comma
        ("[21:07:44, 3/5/24] Teo: ok", False, datetime(2024, 3, 5, 21, 7, 44)),  # vi, time first
        ("[3/5/2567 BE, 21:07:44] Teo: ok", False, datetime(2024, 3, 5, 21, 7, 44)),  # Buddhist
        ("[3/5/R6, 21:07:44] Teo: ok", False, datetime(2024, 3, 5, 21, 7, 44)),  # Reiwa
        ("[31/12/2019, 2:14:40 a.m.] Teo: ok", True, datetime(2019, 12, 31, 2, 14, 40)),
        ("[\u0665\u200f/\u0663\u200f/\u0662\u0660\u0662\u0664\u060c \u0669:\u0660\u0667:\u0664\u0664"
         "\u00a0\u0645] Teo: ok", True, datetime(2024, 3, 5, 21, 7, 44)),  # Arabic digits, RLM
        ("05/03/2024, 21:07: Teo: ok", True, datetime(2024, 3, 5, 21, 7)),  # legacy iOS
    ],
)
def test_header_variants(tmp_path: Path, line: str, day_first: bool, expected: datetime) -> None:
    context = ImportContext(timezone=ZoneInfo("UTC"))
    path = write(tmp_path, "WhatsApp Chat with Teo.txt", line + "\n" + line + "\nsecond line\n")
    messages = only_messages(path, context)
    assert [(m.sender, m.text) for m in messages] == [("Teo", "ok"), ("Teo", "ok\nsecond line")]
    # one date alone cannot tell day from month; the order is learned from a whole file
    got = messages[0].time.replace(tzinfo=None)
    swapped = expected.replace(month=expected.day, day=expected.month) if expected.day <= 12 else expected
    assert got in {expected, swapped}
    stamp = FLAVOURS_TS(line)
    assert resolve_time(stamp, day_first=day_first, zone=ZoneInfo("UTC")) == expected.replace(
        tzinfo=ZoneInfo("UTC"))


def FLAVOURS_TS(line: str) -> str:  # noqa: N802
    from core.importers.whatsapp_stamps import FLAVOURS, normalize_line

    for pattern in FLAVOURS.values():
        match = pattern.match(normalize_line(line))
        if match:
            return match["ts"]
    raise AssertionError(f"no header in {line!r}")


def test_day_first_is_learned_from_a_day_over_12(tmp_path: Path, context: ImportContext) -> None:
    text = "03/04/2024, 10:00 - Teo: first\n25/04/2024, 10:00 - Teo: later\n"
    messages = only_messages(write(tmp_path, "WhatsApp Chat with Teo.txt", text), context)
    assert messages[0].time.month == 4 and messages[0].time.day == 3


def test_month_first_is_learned_from_a_second_field_over_12(tmp_path: Path, context: ImportContext) -> None:
    text = "03/04/2024, 10:00 - Teo: first\n4/25/2024, 10:00 - Teo: later\n"
    messages = only_messages(write(tmp_path, "WhatsApp Chat with Teo.txt", text), context)
    assert messages[0].time.month == 3 and messages[0].time.day == 4


def test_ambiguous_order_keeps_dates_running_forward(tmp_path: Path, context: ImportContext) -> None:
    # all fields <= 12: month-first reads 12 Jan, 1 Feb; day-first would jump back from 1 Dec to 2 Jan
    text = "01/12/2024, 10:00 - Teo: a\n02/01/2024, 10:00 - Teo: b\n"
    messages = only_messages(write(tmp_path, "WhatsApp Chat with Teo.txt", text), context)
    assert [(m.time.month, m.time.day) for m in messages] == [(1, 12), (2, 1)]


def test_utf16_export(tmp_path: Path, context: ImportContext) -> None:
    path = write(tmp_path, "WhatsApp Chat with Teo.txt", "\ufeff" + ANDROID_GROUP, "utf-16-le")
    messages = only_messages(path, context)
    assert messages[1].text.startswith("Flights are booked!")


def test_rendered_chunk_text(tmp_path: Path, context: ImportContext) -> None:
    path = write(tmp_path, "WhatsApp Chat with Lisbon trip.txt", ANDROID_GROUP)
    messages = only_messages(path, context)
    chunker = MessageChunker()
    chunks = [c for m in messages for c in chunker.add(m)[0]] + chunker.finish()
    assert chunks[0].text.splitlines()[1] == "[2024-03-05 21:01] Mara Lind: Flights are booked!"
    assert "Teo Ramos" in chunks[0].speakers and "Mara Lind" in chunks[0].speakers


def test_overlapping_exports_give_the_same_messages(tmp_path: Path, context: ImportContext) -> None:
    older = write(tmp_path, "old/WhatsApp Chat with Teo.txt".replace("/", "_"), IOS_NO_MEDIA)
    newer_text = IOS_NO_MEDIA + "[15/03/2024, 09:00:00] Teo Ramos: new one\r\n"
    newer = write(tmp_path, "WhatsApp Chat with Teo.txt", newer_text)
    [(d1, m1)] = parse_all(older, context)
    [(d2, m2)] = parse_all(newer, context)
    assert d1.identity != d2.identity  # different files...
    assert d1.conversation is not None and d2.conversation is not None
    key = lambda m: (m.sender, m.time, m.text)  # noqa: E731  ...the same stable content keys
    assert [key(m) for m in m2][: len(m1)] == [key(m) for m in m1]
    assert len(m2) == len(m1) + 1


def test_empty_and_unknown_files_fail_clearly(tmp_path: Path) -> None:
    empty = write(tmp_path, "WhatsApp Chat with Teo.txt", "")
    with pytest.raises(UnsupportedFormat, match="is empty"):
        pick_importer(empty, default_importers())
    unknown = tmp_path / "thing.bin"
    unknown.write_bytes(b"\x00\x01\x02binary")
    with pytest.raises(UnsupportedFormat, match="thing.bin"):
        pick_importer(unknown, default_importers())


def test_invalid_utf8_is_an_import_error(tmp_path: Path, context: ImportContext) -> None:
    path = write(tmp_path, "WhatsApp Chat with Teo.txt", ANDROID_GROUP)
    path.write_bytes(path.read_bytes() + b"05/03/2024, 22:00 - Teo: \xff\xfe\xfa broken\n")
    with pytest.raises(ImportFailed, match="WhatsApp Chat with Teo.txt: is not valid UTF-8"):
        for document in pick_importer(path, default_importers()).parse(path, context):
            list(document.messages or [])


class FakeTranscriber:
    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    def transcribe(self, path: Path, *, hints=()) -> str:
        self.calls.append((path.read_bytes().decode(), tuple(hints)))
        return "meet me at the tram stop"


def make_zip(tmp_path: Path, members: dict[str, bytes], *, name: str = "WhatsApp Chat - Teo Ramos.zip",
             utf8_names: bool = True) -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in members.items():
            info = zipfile.ZipInfo(member, date_time=(2024, 3, 5, 21, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            if not utf8_names:
                # how some Android share targets write names: UTF-8 bytes without the UTF-8 flag
                info.filename = member.encode("utf-8").decode("cp437")
                info.flag_bits &= ~0x800
            archive.writestr(info, data)
    return path


def test_zip_with_voice_note_and_document(tmp_path: Path) -> None:
    from docx import Document

    docx_path = tmp_path / "plan.docx"
    doc = Document()
    doc.add_heading("Lisbon plan", level=1)
    doc.add_paragraph("Day one: Alfama and the castle.")
    doc.save(docx_path)
    chat = (
        "[05/03/2024, 21:01:40] Mara Lind: Flights are booked!\n"
        "\u200e[05/03/2024, 21:03:00] Teo Ramos: \u200e<attached: 00000014-AUDIO-2024-03-05-21-03-00.opus>\n"
        "\u200e[05/03/2024, 21:04:00] Teo Ramos: plan.docx \u2022 \u200e1 page \u200e<attached: 00000015-plan.docx>\n"
    )
    path = make_zip(tmp_path, {
        "_chat.txt": chat.encode(),
        "00000014-AUDIO-2024-03-05-21-03-00.opus": b"fake opus bytes",
        "00000015-plan.docx": docx_path.read_bytes(),
    })
    transcriber = FakeTranscriber()
    context = ImportContext(owner_aliases=frozenset({"mara lind"}), transcriber=transcriber,
                            spelling_hints=("Alfama",))
    assert isinstance(pick_importer(path, default_importers()), WhatsAppZipImporter)
    documents = parse_all(path, context)
    chat_doc, messages = documents[0]
    assert chat_doc.conversation is not None and chat_doc.conversation.key == "whatsapp:Teo Ramos"
    assert messages[1].text == "[voice note] (transcript) meet me at the tram stop"
    assert transcriber.calls == [("fake opus bytes", ("Alfama",))]
    assert messages[2].attachments == ("00000015-plan.docx",)
    [(plan, _)] = documents[1:]
    assert plan.kind == "docx" and "# Lisbon plan" in (plan.text or "")
    assert plan.name.startswith("00000015-plan.docx (shared in")


def test_attachment_markers_with_spaces_inside_the_brackets(tmp_path: Path, context: ImportContext) -> None:
    """`< attached: FILE >`, as whatsapp-chat-parser's tests (MIT) carry it, is media like `<attached: FILE>`."""
    chat = ("3/6/18, 1:55 p.m. - Teo: < attached: 00000042-PHOTO-2020-06-07-15-13-20.jpg >\n"
            "3/6/18, 1:56 p.m. - Teo: \u200e<attached: 00000043-PHOTO-2020-06-07-15-14-20.jpg>\n")
    messages = only_messages(write(tmp_path, "WhatsApp Chat with Teo.txt", chat), context)
    assert [m.attachments for m in messages] == [("00000042-PHOTO-2020-06-07-15-13-20.jpg",),
                                                 ("00000043-PHOTO-2020-06-07-15-14-20.jpg",)]
    assert all("attached" not in m.text for m in messages)


def test_zip_with_cp437_names_and_localised_chat_name(tmp_path: Path, context: ImportContext) -> None:
    chat = "05/03/2024, 21:01 - Mara Lind: Olá\n05/03/2024, 21:02 - Teo Ramos: Tudo bem?\n"
    path = make_zip(tmp_path, {"Conversa do WhatsApp com Teo Ramos.txt": chat.encode()},
                    name="export.zip", utf8_names=False)
    [(document, messages)] = parse_all(path, context)
    assert document.conversation is not None and document.conversation.key == "whatsapp:Teo Ramos"
    assert [m.text for m in messages] == ["Olá", "Tudo bem?"]


def test_zip_bomb_is_refused(tmp_path: Path, context: ImportContext, monkeypatch) -> None:
    from core.importers import archive

    path = make_zip(tmp_path, {"_chat.txt": b"05/03/2024, 21:01 - Teo: hi\n",
                               "big.bin": b"\x00" * (4 << 20)})
    with pytest.raises(ImportFailed, match="zip bomb"):
        list(WhatsAppZipImporter().parse(path, context))
    monkeypatch.setattr(archive, "MAX_MEMBERS", 1)
    with pytest.raises(ImportFailed, match="holds 2 files"):
        archive.open_zip(path)


def test_zip_member_paths_cannot_escape(tmp_path: Path, context: ImportContext) -> None:
    inside = tmp_path / "exports" / "deep"
    inside.mkdir(parents=True)
    path = make_zip(inside, {"_chat.txt": b"05/03/2024, 21:01 - Teo: see the photo\n",
                             "../../evil.txt": b"x", "/tmp/evil-abs.txt": b"x", "../evil.opus": b"x"})
    messages = [m for d in WhatsAppZipImporter().parse(path, context) for m in d.messages or ()]
    assert [m.text for m in messages] == ["see the photo"]
    assert not list(tmp_path.rglob("evil*")) and not Path("/tmp/evil-abs.txt").exists()


def test_android_minute_resolution_keeps_order(tmp_path: Path, context: ImportContext) -> None:
    lines = "".join(f"05/03/2024, 21:07 - Teo Ramos: message {i}\n" for i in range(5))
    messages = only_messages(write(tmp_path, "WhatsApp Chat with Teo.txt", lines), context)
    assert [m.text for m in messages] == [f"message {i}" for i in range(5)]
    assert max(m.time for m in messages) - min(m.time for m in messages) == timedelta(0)


def test_a_chat_opening_with_a_long_message_is_still_a_chat(tmp_path: Path, context: ImportContext) -> None:
    """20 of the ~430 real exports collected in starkdmi/whats_json open with a long forwarded
    notice or signature, so headers were under a third of the first 40 lines and the whole chat
    was stored as one plain-text document."""
    notice = "\n".join(f"line {n} of the dean's circular" for n in range(45))
    chat = ("8/10/22, 9:25 AM - Messages and calls are end-to-end encrypted. No one outside of this chat, "
            "not even WhatsApp, can read or listen to them. Tap to learn more.\n"
            f"8/12/22, 8:41 AM - +91 80917 73465: Respected All,\n{notice}\n"
            + "".join(f"8/{13 + n // 10}/22, 10:{n % 60:02d} AM - Utkarsh: note {n}\n" for n in range(30)))
    path = write(tmp_path, "chat.txt", chat)
    from core.importers import default_importers, pick_importer

    assert isinstance(pick_importer(path, default_importers()), WhatsAppImporter)
    messages = only_messages(path, context)
    assert len(messages) == 31 and messages[0].text.startswith("Respected All,\nline 0")
    # a note that merely opens with two chat-like lines stays a note
    note = write(tmp_path, "notes.txt", "1/2/24, 10:00 - Ana: call Maya\n1/2/24, 10:05 - Ana: buy milk\n"
                 + "\n".join(f"thought {n}" for n in range(60)) + "\n")
    assert not isinstance(pick_importer(note, default_importers()), WhatsAppImporter)


@pytest.mark.parametrize(("file_name", "chat"), [
    ("Chat WhatsApp s\u00a0uživatelem Dmitry S.txt", "Dmitry S"),  # cs, as exported (no-break space)
    ("Чат WhatsApp с\u00a0контактом Dmitry S.txt", "Dmitry S"),  # ru, as exported
    ("Teo ile WhatsApp Sohbeti.txt", "Teo"),  # tr: the name comes first
    ("Rahul के साथ WhatsApp चैट.txt", "Rahul"),  # hi
    ("WhatsApp-keskustelu henkilön Teo kanssa.txt", "Teo"),  # fi
    ("Trò chuyện WhatsApp với Lan (1).txt", "Lan"),  # vi, a second download
    ("TeoとのWhatsAppチャット.txt", "Teo"),  # ja: no spaces at all
    ("WhatsApp%20Chat%20with%20Maya%20Lind.txt", "Maya Lind"),  # saved from a web mail, URL-encoded
])
def test_the_chat_is_named_from_its_file_in_every_language(tmp_path: Path, context: ImportContext,
                                                           file_name: str, chat: str) -> None:
    """Android names an export "WhatsApp Chat with X" in the phone's language (the names of
    whats_json's real Czech and Russian exports were kept whole: "Chat WhatsApp s uživatelem
    Dmitry S")."""
    path = write(tmp_path, file_name, "05/03/2024, 21:07 - Teo: ok\n05/03/2024, 21:08 - Ana: ok\n")
    [(document, _)] = parse_all(path, context)
    assert document.conversation is not None and document.conversation.key == f"whatsapp:{chat}"


def test_android_2013_headers_with_the_month_as_a_word(tmp_path: Path) -> None:
    """`19:23, 28 Aug 2013 - Name: text`: the time first and the month as a word, as Android wrote
    around 2013 (a chat collected in starkdmi/whats_json: TanayGahlot/HowDataAffectDecision)."""
    chat = ("19:23, 28 Aug 2013 - Tanay: the subject is set\n"
            "19:07, 20 Sep 2013 - Viresh: hello all\nsecond line\n"
            "08:15, 3 Oct 2013 - Tanay: see you\n")
    context = ImportContext(timezone=ZoneInfo("UTC"))
    messages = only_messages(write(tmp_path, "WhatsApp Chat with NITG.txt", chat), context)
    assert [(m.sender, m.text, m.time.replace(tzinfo=None)) for m in messages] == [
        ("Tanay", "the subject is set", datetime(2013, 8, 28, 19, 23)),
        ("Viresh", "hello all\nsecond line", datetime(2013, 9, 20, 19, 7)),
        ("Tanay", "see you", datetime(2013, 10, 3, 8, 15)),
    ]
