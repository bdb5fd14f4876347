"""What the bots download to read (a voice note to transcribe) waits in a private folder inside
the data folder, never in the system's temporary folder, and is gone once read."""

from __future__ import annotations

import stat
import tempfile
from dataclasses import replace
from pathlib import Path

from tests.frontends.conftest import OWNER, running_bot, telegram_settings


async def test_a_voice_note_is_downloaded_into_the_data_folder(tmp_path, telegram_api, monkeypatch):
    from core.service.parts import Parts

    system_tmp = tmp_path / "system-tmp"
    system_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_tmp))
    heard = []

    class Transcriber:  # records where the recording lies while it is heard
        def transcribe(self, path: Path, *, hints=()) -> str:
            heard.append((path, stat.S_IMODE(path.parent.stat().st_mode), list(system_tmp.iterdir())))
            return "Today I went swimming with Maya."

    def with_transcriber(memory, **options):
        memory.context = replace(memory.context, transcriber=Transcriber())
        memory.ingestor.context = memory.context
        return Parts(memory=memory, **options)

    telegram_api.add_file("voice-1", "voice/file_9.oga", b"OggS" + b"\x00" * 64)
    voice = {"file_id": "voice-1", "file_unique_id": "u-voice-1", "duration": 5, "mime_type": "audio/ogg",
             "file_size": 68}
    data = tmp_path / "data"
    async with running_bot(telegram_settings(data, telegram_api.url), service_factory=with_transcriber):
        await telegram_api.push(user=OWNER, voice=voice, date=1715000000)
        await telegram_api.wait_for(lambda: telegram_api.texts(), timeout=60)
    [(path, folder_mode, in_system_tmp)] = heard
    assert path.is_relative_to(data / "uploads") and folder_mode == 0o700 and in_system_tmp == []
    assert [p for p in (data / "uploads").rglob("*") if p.is_file() and p.suffix != ".lock"] == []
    assert "swimming" in telegram_api.texts()[0]
