"""Instagram / Messenger "Download your information" JSON (shared/EXPORT_FORMATS.md §6)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.errors import ImportFailed
from core.importers.base import ImportContext
from core.importers.meta import unmojibake
from tests.importers.conftest import parse_all

# as stored on disk: UTF-8 bytes written as \u00XX escapes
ON_DISK = r'''{"participants": [{"name": "Teo Ramos"}, {"name": "Mara Lind"}],
 "messages": [
  {"sender_name": "Teo Ramos", "timestamp_ms": 1709672970000,
   "photos": [{"uri": "your_instagram_activity/messages/inbox/teoramos_1015/photos/4312.jpg",
               "creation_timestamp": 1709672969}], "is_geoblocked_for_viewer": false},
  {"sender_name": "Mara Lind", "timestamp_ms": 1709672864000,
   "content": "Caf\u00c3\u00a9 at 8? \u00f0\u009f\u0098\u0082",
   "reactions": [{"reaction": "\u00e2\u009d\u00a4", "actor": "Teo Ramos"}]},
  {"sender_name": "Jos\u00c3\u00a9 Alves", "timestamp_ms": 1709672800000, "content": "Liked a message"},
  {"sender_name": "Jos\u00c3\u00a9 Alves", "timestamp_ms": 1709672700000, "content": "Ol\u00c3\u00a1"}],
 "title": "Teo Ramos", "is_still_participant": true, "thread_path": "inbox/teoramos_1015",
 "magic_words": []}'''


def test_instagram_thread(tmp_path: Path, context: ImportContext) -> None:
    folder = tmp_path / "your_instagram_activity" / "messages" / "inbox" / "teoramos_1015"
    folder.mkdir(parents=True)
    path = folder / "message_1.json"
    path.write_text(ON_DISK)
    [(document, messages)] = parse_all(path, context)
    assert document.conversation.key == "instagram:teoramos_1015"
    assert document.name == "Instagram with Teo Ramos"
    # oldest first, generated "Liked a message" dropped, names and emoji repaired
    assert [(m.sender, m.text) for m in messages] == [
        ("José Alves", "Olá"),
        ("Mara Lind", "Café at 8? \U0001f602"),
        ("Teo Ramos", "[photo]"),
    ]
    assert messages[1].is_owner and not messages[2].is_owner
    assert messages[1].time == datetime(2024, 3, 5, 21, 7, 44, tzinfo=timezone.utc)
    assert messages[2].attachments[0].endswith("4312.jpg")


def test_unmojibake_leaves_good_text_alone() -> None:
    assert unmojibake("Café ☕") == "Café ☕"
    assert unmojibake("CafÃ©") == "Café"


def test_e2ee_download(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "Teo Ramos.json"
    path.write_text(json.dumps({
        "participants": ["Mara Lind", "Teo Ramos"], "threadName": "Teo Ramos",
        "messages": [{"isUnsent": False, "media": [], "reactions": [], "senderName": "Mara Lind",
                      "text": "see you", "timestamp": 1709672864000, "type": "text"}]}))
    [(document, [message])] = parse_all(path, context)
    assert document.conversation.platform == "messenger"
    assert message.text == "see you" and message.is_owner


def test_truncated_meta_json(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "message_1.json"
    path.write_text(ON_DISK[:200])
    with pytest.raises(ImportFailed, match="message_1.json: is not valid JSON"):
        parse_all(path, context)


# Fields as Meta writes them (EXPORT_FORMATS.md §6; a Messenger sticker is one object
# {"uri": "messages/stickers_used/..."}, an Instagram post share may carry no link). No
# Messenger or Instagram export with a licence that allows copying it was found, so the file
# is written here in that layout, with Meta's mojibake and the byte-order mark some tools add.
STICKER_AND_SHARES = '''\ufeff{"participants": [{"name": "Teo Ramos"}, {"name": "Mara Lind"}],
 "messages": [
  {"sender_name": "Teo Ramos", "timestamp_ms": 1709673000000, "content": "Liked a message"},
  {"sender_name": "Teo Ramos", "timestamp_ms": 1709672990000, "is_unsent": true},
  {"sender_name": "Mara Lind", "timestamp_ms": 1709672980000,
   "share": {"share_text": "Sunset over the Tagus \\u00f0\\u009f\\u008c\\u0085",
             "original_content_owner": "lisboa.photos"}},
  {"sender_name": "Teo Ramos", "timestamp_ms": 1709672970000,
   "sticker": {"uri": "messages/stickers_used/39178562_1505197616293642_n_369239263222822.png"}},
  {"sender_name": "Mara Lind", "timestamp_ms": 1709672960000, "content": "ok!",
   "share": {"link": "https://www.instagram.com/p/C4Gx1/", "original_content_owner": "teoramos"}}],
 "title": "Teo Ramos", "thread_path": "inbox/teoramos_1015"}'''


async def test_sticker_shares_and_bom_are_kept_and_what_is_left_out_is_counted(
        tmp_path: Path, embedder, context: ImportContext) -> None:
    from tests.core.helpers import memory_at

    folder = tmp_path / "messages" / "inbox" / "teoramos_1015"
    folder.mkdir(parents=True)
    path = folder / "message_1.json"
    path.write_text(STICKER_AND_SHARES, encoding="utf-8")
    [(document, messages)] = parse_all(path, context)
    assert [(m.sender, m.kind, m.text) for m in messages] == [
        ("Mara Lind", "text", "[shared post by teoramos: https://www.instagram.com/p/C4Gx1/] ok!"),
        ("Teo Ramos", "media", "[sticker]"),
        ("Mara Lind", "media", "[shared post by lisboa.photos] Sunset over the Tagus \U0001f305"),
    ]
    assert messages[1].attachments[0].startswith("messages/stickers_used/")
    async with memory_at(tmp_path / "data", embedder) as memory:
        report = await memory.ingest([path], index=False)
    assert report.messages_added == 3
    assert report.skipped == {"unsent messages": 1, "reactions": 1}


def test_a_thread_trimmed_to_its_messages_is_still_read(tmp_path: Path, context: ImportContext) -> None:
    """chat-miner's Instagram fixture (MIT): only `messages`, no participants or title. It was
    read as a plain JSON document with no messages."""
    from core.importers import default_importers
    from core.importers.meta import MetaImporter
    from core.importers.registry import pick_importer

    source = Path(__file__).parent / "data" / "meta" / "chat-miner-instagram.json"
    folder = tmp_path / "janedoe_123"
    folder.mkdir()
    path = folder / "test_export.json"
    path.write_bytes(source.read_bytes())
    assert isinstance(pick_importer(path, default_importers()), MetaImporter)
    [(document, messages)] = parse_all(path, context)
    assert [(m.sender, m.text, m.time) for m in messages] == [
        ("Jane Doe", "Hello John!", datetime(2019, 12, 24, 11, 23, tzinfo=timezone.utc)),
        ("John Doe", "Hello Jane!", datetime(2020, 1, 17, 20, 49, tzinfo=timezone.utc)),
    ]
    assert document.conversation.key.endswith(":janedoe_123")


def _mojibake(text: str) -> str:
    """As Meta writes every string: its UTF-8 bytes as separate characters."""
    return text.encode("utf-8").decode("latin-1")


# wordings as real exports write them (meta_notices.tsv names where each was seen), newest first
NOTICES = [
    ("Ana Lima", "Ana Lima reacted ❤ to your message "),                    # left out
    ("Ana Lima", "Reagiu com ❤️ à sua mensagem "),                          # left out (pt-BR)
    ("Teo Ramos", "You unsent a message"),                                  # left out
    ("Ana Lima", "#1 Workaholic sent an attachment."),                     # [attachment]
    ("Bea", "Bạn đã gửi một file đính kèm."),                              # [attachment] (vi)
    ("Teo Ramos", "You changed the group photo."),                          # system
    ("Teo Ramos", "You set the nickname for Ana Lima to #1 Workaholic."),  # system
    ("Bea", "Đoạn chat video này đã kết thúc."),                           # system (vi)
    ("Teo Ramos", "You created a poll: Where to eat?"),                     # [poll]
    ("Ana Lima", 'Ana Lima voted for "Tasca" in the poll: Where to eat?'),  # system
    ("Ana Lima", "I reacted to your message by booking the table"),        # words
]


def test_meta_s_notices_are_left_out_counted_or_kept_as_system_lines(tmp_path: Path,
                                                                     context: ImportContext) -> None:
    folder = tmp_path / "messages" / "inbox" / "lisbontrip_2024"
    folder.mkdir(parents=True)
    start = 1709672960000
    thread = {"participants": [{"name": n} for n in ("Teo Ramos", "Ana Lima", "Bea")],
              "title": "Lisbon trip", "thread_type": "RegularGroup", "thread_path": "inbox/lisbontrip_2024",
              "messages": [{"sender_name": _mojibake(sender), "timestamp_ms": start - 1000 * n,
                            "content": _mojibake(text), "type": "Generic"}
                           for n, (sender, text) in enumerate(NOTICES)]}
    path = folder / "message_1.json"
    path.write_text(json.dumps(thread), encoding="utf-8")
    [(document, messages)] = parse_all(path, context)
    assert [(m.sender, m.kind, m.text) for m in messages] == [
        ("Ana Lima", "text", "I reacted to your message by booking the table"),
        ("", "system", 'Ana Lima voted for "Tasca" in the poll: Where to eat?'),
        ("Teo Ramos", "text", "[poll] Where to eat?"),
        ("", "system", "Đoạn chat video này đã kết thúc."),
        ("", "system", "You set the nickname for Ana Lima to #1 Workaholic."),
        ("", "system", "You changed the group photo."),
        ("Bea", "media", "[attachment]"),
        ("Ana Lima", "media", "[attachment]"),
    ]
    assert document.skipped == {"reactions": 2, "unsent messages": 1}
