"""A voice note transcribed by the real small Whisper model; `biographer run` starts and stops cleanly."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from bot.runtime import serve
from tests.frontends.conftest import OWNER, running_bot, telegram_settings

needs_speech_tools = pytest.mark.skipif(not (shutil.which("espeak-ng") and shutil.which("ffmpeg")),
                                        reason="needs espeak-ng and ffmpeg (apt-get install espeak-ng ffmpeg)")


def speech_ogg(folder: Path, text: str) -> bytes:
    wav, ogg = folder / "speech.wav", folder / "speech.ogg"
    subprocess.run(["espeak-ng", "-s", "120", "-w", str(wav), text], check=True, capture_output=True)
    subprocess.run(["ffmpeg", "-y", "-loglevel", "error", "-i", str(wav), "-c:a", "libopus", str(ogg)], check=True)
    return ogg.read_bytes()


def with_whisper(memory, **options):
    from core.providers.whisper import WhisperTranscriber
    from core.service.parts import Parts

    memory.context = replace(memory.context, transcriber=WhisperTranscriber(), spelling_hints=("Maya",))
    memory.ingestor.context = memory.context
    return Parts(memory=memory, **options)


@pytest.mark.model
@needs_speech_tools
async def test_voice_note_transcribed_saved_and_echoed(tmp_path, telegram_api):
    audio = speech_ogg(tmp_path, "Today I went swimming with Maya in the morning.")
    telegram_api.add_file("voice-1", "voice/file_9.oga", audio)
    voice = {"file_id": "voice-1", "file_unique_id": "u-voice-1", "duration": 5, "mime_type": "audio/ogg",
             "file_size": len(audio)}
    async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url),
                           service_factory=with_whisper) as (_, facets):
        await telegram_api.push(user=OWNER, voice=voice, date=1715000000)
        await telegram_api.wait_for(lambda: telegram_api.texts(), timeout=120)
        hits = await facets.admin.memory.grep("swimming")
        stats = await facets.admin.memory.stats()
    echo = telegram_api.texts()[0]
    assert echo.startswith("Saved as a journal entry of 06 May 2024")
    assert "swimming" in echo.lower() and "Maya" in echo
    assert hits.total == 1 and stats["by_kind"]["journal"]["documents"] == 1
    assert any(c.params.get("action") == "typing" for c in telegram_api.sent("sendChatAction"))


async def test_run_starts_the_bot_and_stops_cleanly(tmp_path, telegram_api, monkeypatch):
    import bot.runtime as runtime
    from tests.frontends.conftest import service_at

    settings = telegram_settings(tmp_path / "data", telegram_api.url)

    monkeypatch.setattr(runtime, "open_runtime_facets", service_at)  # the test's store and model
    stop = asyncio.Event()
    server = asyncio.create_task(serve(settings, stop))
    await telegram_api.wait_for(lambda: telegram_api.sent("setMyCommands"))
    await telegram_api.push(user=OWNER, text="/stats", entities=[{"type": "bot_command", "offset": 0, "length": 6}])
    await telegram_api.wait_for(lambda: telegram_api.texts())
    stop.set()
    await asyncio.wait_for(server, 20)
    assert telegram_api.texts()[0].startswith("Sources: 0")


async def test_run_without_any_bot_runs_the_scheduler_alone(tmp_path, monkeypatch, caplog):
    import bot.runtime as runtime
    from tests.frontends.conftest import service_at

    settings = telegram_settings(tmp_path / "data", "http://127.0.0.1:9", telegram_token=None)

    monkeypatch.setattr(runtime, "open_runtime_facets", service_at)  # the test's store and model
    stop = asyncio.Event()
    server = asyncio.create_task(serve(settings, stop))
    await asyncio.sleep(0.5)
    assert not server.done()  # no crash, no restart loop in docker
    stop.set()
    await asyncio.wait_for(server, 20)
    assert "running the scheduler only" in caplog.text
