"""A raw copy is kept only for what was imported: a file that fails to import leaves nothing in
raw/, and copies no source refers to (left by an older version, or by a kill) are cleared."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bot.compose import open_memory
from core.config import Settings
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder


def raw_files(data: Path) -> list[str]:
    raw = data / "raw"
    return sorted(p.name for p in raw.iterdir()) if raw.exists() else []


async def test_files_that_fail_to_import_leave_no_raw_copy(tmp_path: Path):
    (tmp_path / "empty.txt").write_text("   \n", encoding="utf-8")  # no text: refused
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is no pdf at all")
    (tmp_path / "good.txt").write_text("The quokka met us at the ferry.", encoding="utf-8")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        report = await memory.ingest([tmp_path / "empty.txt", tmp_path / "broken.pdf", tmp_path / "good.txt"])
        [kept] = (await memory.conn.execute_fetchall("SELECT raw_path FROM documents"))
        again = await memory.ingest([tmp_path / "good.txt"])  # already imported: nothing new kept
    assert report.documents_added == 1 and len(report.errors) == 2
    assert again.documents_skipped == 1
    assert raw_files(tmp_path / "data") == [Path(kept[0]).name]


async def test_raw_copies_no_source_refers_to_are_cleared_at_start_and_after_forget(tmp_path: Path):
    settings = Settings(data_dir=tmp_path / "data")
    (tmp_path / "a.txt").write_text("The quokka met us at the ferry.", encoding="utf-8")
    (tmp_path / "b.txt").write_text("The harbour walk on Sunday.", encoding="utf-8")
    async with open_memory(settings, embedder=HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "a.txt", tmp_path / "b.txt"])
    raw = settings.raw_dir
    referenced = raw_files(settings.data_dir)
    (raw / "0123abcd.pdf").write_bytes(b"left by a failed import of an older version")
    (raw / "4567cdef.txt.part").write_bytes(b"left by a killed copy")
    old = time.time() - 2 * 3600
    os.utime(raw / "4567cdef.txt.part", (old, old))
    (raw / "89abcdef.txt.part").write_bytes(b"a copy being written right now by another process")

    async with open_memory(settings, embedder=HashEmbedder()) as memory:
        assert raw_files(settings.data_dir) == sorted([*referenced, "89abcdef.txt.part"])
        (raw / "0123abcd.pdf").write_bytes(b"another leftover")
        await memory.forget(1)
        assert len(raw_files(settings.data_dir)) == 2  # b.txt's copy and the fresh .part
        assert "0123abcd.pdf" not in raw_files(settings.data_dir)


async def test_a_newer_export_with_nothing_new_leaves_no_copy(tmp_path: Path):
    from tests.core.helpers import MAYA_CHAT, whatsapp_export

    first = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", MAYA_CHAT)
    again = tmp_path / "again"
    again.mkdir()
    whatsapp_export(again / "WhatsApp Chat with Maya.txt", MAYA_CHAT[:4])  # another file, no new message
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([first])
        before = raw_files(tmp_path / "data")
        report = await memory.ingest([again / "WhatsApp Chat with Maya.txt"])
    assert report.documents_added == 0 and report.messages_skipped == 3
    assert raw_files(tmp_path / "data") == before
