"""Importers through the real store (Memory.ingest): message counts, dedup on overlapping
re-exports, and a batch that goes on past a broken file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.core.helpers import memory_at
from tests.importers.test_telegram import CHAT, FULL
from tests.importers.test_whatsapp import IOS_NO_MEDIA

LOCOMO = Path(__file__).resolve().parents[2] / ".." / "shared" / "eval" / "locomo"


def locomo_conversations() -> list[dict]:
    manifest = LOCOMO / "manifest.json"
    if not manifest.is_file():
        pytest.skip(f"the LoCoMo exports are not here ({LOCOMO.resolve()})")
    return json.loads(manifest.read_text())["conversations"]


def test_every_locomo_export_parses_with_its_turn_count() -> None:
    from core.importers import default_importers, pick_importer
    from core.importers.base import ImportContext

    for conversation in locomo_conversations():
        path = LOCOMO / conversation["export"]
        importer = pick_importer(path, default_importers())
        [document] = list(importer.parse(path, ImportContext()))
        messages = list(document.messages or [])
        assert len(messages) == conversation["turns"], conversation["sample_id"]
        speakers = {m.sender for m in messages}
        assert speakers == {conversation["speaker_a"], conversation["speaker_b"]}


async def test_locomo_exports_ingest_with_their_turn_counts(tmp_path: Path, embedder) -> None:
    conversations = locomo_conversations()
    async with memory_at(tmp_path / "data", embedder) as memory:
        report = await memory.ingest([LOCOMO / "exports"], index=False)
    assert report.errors == []
    assert report.documents_added == len(conversations)
    assert report.messages_added == sum(c["turns"] for c in conversations)


async def test_overlapping_whatsapp_export_adds_only_new_messages(tmp_path: Path, embedder) -> None:
    old = tmp_path / "old" / "WhatsApp Chat with Teo Ramos.txt"
    new = tmp_path / "new" / "WhatsApp Chat with Teo Ramos.txt"
    old.parent.mkdir()
    new.parent.mkdir()
    old.write_text(IOS_NO_MEDIA)
    new.write_text(IOS_NO_MEDIA + "[15/03/2024, 09:00:00] Teo Ramos: new one\r\n")
    async with memory_at(tmp_path / "data", embedder, owner="Mara Lind") as memory:
        first = await memory.ingest([old], index=False)
        second = await memory.ingest([new], index=False)
        again = await memory.ingest([new], index=False)
    assert first.messages_added == 4
    assert second.messages_added == 1 and second.messages_skipped == 4
    assert again.documents_skipped == 1 and again.messages_added == 0


async def test_full_telegram_export_after_single_chat(tmp_path: Path, embedder) -> None:
    single = tmp_path / "single" / "result.json"
    full = tmp_path / "full" / "result.json"
    for path, data in ((single, CHAT), (full, FULL)):
        path.parent.mkdir()
        path.write_text(json.dumps(data))
    async with memory_at(tmp_path / "data", embedder) as memory:
        first = await memory.ingest([single], index=False)
        second = await memory.ingest([full], index=False)
    assert first.messages_added == 5
    assert second.messages_added == 1 + 2  # message 9010, and the group's two messages
    assert second.messages_skipped == 5


async def test_a_batch_goes_on_past_broken_files(tmp_path: Path, embedder) -> None:
    good = tmp_path / "WhatsApp Chat with Teo Ramos.txt"
    good.write_text(IOS_NO_MEDIA)
    truncated = tmp_path / "result.json"
    truncated.write_text(json.dumps(CHAT)[:400])
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    utf16 = tmp_path / "journal.txt"
    utf16.write_bytes("\ufeffDear diary, Lisbon was lovely.".encode("utf-16-le"))
    async with memory_at(tmp_path / "data", embedder) as memory:
        report = await memory.ingest([good, truncated, empty, utf16], index=False)
    assert report.documents_added == 2
    assert len(report.errors) == 2
    assert any(e.startswith("result.json: is not valid JSON") for e in report.errors)
    assert any(e.startswith("empty.txt: is empty") for e in report.errors)


async def test_an_unzipped_whatsapp_export_reads_its_voice_notes_once(tmp_path: Path, embedder) -> None:
    """The folder holds the chat text and the files it names: the voice note is transcribed into
    its message, and neither file is imported a second time on its own."""
    from dataclasses import replace

    from tests.core.helpers import memory_at

    class Transcriber:
        def __init__(self) -> None:
            self.heard: list[str] = []

        def transcribe(self, path: Path, *, hints=()) -> str:
            self.heard.append(path.name)
            return "meet me at the ferry"

    folder = tmp_path / "WhatsApp Chat with Maya"
    folder.mkdir()
    (folder / "WhatsApp Chat with Maya.txt").write_text(
        "05/03/2024, 21:07 - Maya: PTT-20240305-WA0009.opus (file attached)\n"
        "05/03/2024, 21:08 - Maya: IMG-20240305-WA0010.jpg (file attached)\n"
        "the view from the boat\n"
        "05/03/2024, 21:09 - Ana: ok!\n", encoding="utf-8")
    (folder / "PTT-20240305-WA0009.opus").write_bytes(b"OggS" + b"\x00" * 64)
    (folder / "IMG-20240305-WA0010.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 64)
    transcriber = Transcriber()
    async with memory_at(tmp_path / "data", embedder) as memory:
        memory.context = replace(memory.context, transcriber=transcriber)
        memory.ingestor.context = memory.context
        report = await memory.ingest([tmp_path])
        stats = await memory.stats()
        async with memory.conn.execute("SELECT text FROM messages ORDER BY time") as cur:
            texts = [r[0] for r in await cur.fetchall()]
    assert report.errors == [] and report.documents_added == 1
    assert report.media_with_exports == 2 and stats["documents"] == 1
    assert transcriber.heard == ["PTT-20240305-WA0009.opus"]
    assert texts[0] == "[voice note] (transcript) meet me at the ferry"
    assert texts[1] == "[photo] the view from the boat"  # no vision model: the caption stays


HUIZERD = (Path(__file__).parents[1] / "conformance" / "files" / "whatsapp-ios" / "Huizerd-whatsapp"
           / "_chat.txt")


async def test_two_photos_sent_in_one_second_stay_two_when_the_clock_steps_back_between_them(
        tmp_path: Path, embedder) -> None:
    """A real iPhone export (Huizerd/whatsapp, MIT) whose friendc sent photos two at a time, each
    "image" alike; one line of a later time is put between the first two, as iOS wrote a
    member's join between two such photos in abda-torey/kenya_group_analysis's export. Every
    line that opens with a time is one message (counted by hand), and none is taken for a
    duplicate of another; importing the file again adds nothing."""
    lines = HUIZERD.read_text(encoding="utf-8").split("\n")
    [first, second] = [n for n, line in enumerate(lines) if "23:22:52] friendc" in line]
    assert second == first + 1 and lines[first] == lines[second]
    lines.insert(second, "[25/06/2015, 23:40:00] friendb: later, but written in between\r")
    chat = tmp_path / "chat" / "_chat.txt"
    chat.parent.mkdir()
    chat.write_text("\n".join(lines), encoding="utf-8")
    entries = sum(1 for line in lines if line.lstrip("\u200e").startswith("["))
    copy = tmp_path / "again" / "chat" / "_chat.txt"  # the folder names the chat
    copy.parent.mkdir(parents=True)
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")  # other bytes, same messages
    async with memory_at(tmp_path / "data", embedder) as memory:
        report = await memory.ingest([chat], index=False)
        again = await memory.ingest([copy], index=False)
    assert report.messages_added == entries == 27 and report.messages_skipped == 0
    assert again.messages_added == 0 and again.messages_skipped == entries
