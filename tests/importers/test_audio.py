"""Audio: the real local Whisper model on espeak-ng speech, the OpenAI-compatible transcriber
against a local server, spelling hints, and the importer's errors without a transcriber."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from core.errors import ImportFailed
from core.importers.audio import AudioImporter, time_from_name
from core.importers.base import ImportContext
from core.importers.image import ImageImporter
from core.providers.spelling_hints import initial_prompt, spelling_hints
from tests.importers.conftest import parse_all

SPEECH = "Hello Mara. The flight to Lisbon leaves on Friday morning."


def test_spelling_hints_from_profile_and_names() -> None:
    profile = "# Profile\nMara lives in Lisbon. Her brother Teodoro works in Porto. Lisbon is home."
    hints = spelling_hints(profile, ["Ana Sousa", "Teo Ramos"])
    assert hints[:2] == ["Lisbon", "Sousa"] or "Lisbon" in hints
    assert {"Mara", "Teodoro", "Porto", "Sousa", "Ramos"} <= set(hints)
    assert "Profile" not in hints and "Her" not in hints and "Ana" not in hints
    assert initial_prompt(["Teodoro", "Porto"]) == "Names: Teodoro, Porto."
    assert initial_prompt([]) is None


def test_audio_without_transcriber_fails_with_hint(tmp_path: Path) -> None:
    path = tmp_path / "PTT-20240305-WA0009.opus"
    path.write_bytes(b"OggS" + b"\x00" * 100)
    with pytest.raises(ImportFailed, match="no speech-to-text model is configured"):
        parse_all(path, ImportContext())


def test_image_without_describer_is_kept_on_record_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "IMG-20240305-WA0007.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 100)
    [(record, _)] = parse_all(path, ImportContext())
    assert record.text == ("Photo IMG-20240305-WA0007.jpg, 2024-03-05 (not described: no vision model "
                           "is configured (set BIOGRAPHER_LLM_VISION_MODEL)).")
    assert record.identity.endswith(":undescribed")  # a later import with a vision model adds one

    class Describer:
        def describe(self, path: Path, *, hints=()) -> str:
            return "A rooftop bar at sunset"

    [(document, _)] = parse_all(path, ImportContext(describer=Describer()))
    assert document.text == "A rooftop bar at sunset" and document.time_start.day == 5
    assert ImageImporter().name == "image"


def test_dates_in_voice_note_names() -> None:
    context = ImportContext()
    assert time_from_name("audio_3@05-03-2024_21-08-10.ogg", context).hour == 21
    assert time_from_name("PTT-20240305-WA0009.opus", context).day == 5
    assert time_from_name("memo.m4a", context) is None


class _Handler(BaseHTTPRequestHandler):
    requests: list[tuple[str, bytes]] = []

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        _Handler.requests.append((self.path, body))
        payload = json.dumps({"text": "the tram leaves at eight"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args) -> None:
        pass


def test_openai_compatible_transcriber_against_local_server(tmp_path: Path) -> None:
    from core.providers.openai_transcriber import OpenAITranscriber

    server = HTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        transcriber = OpenAITranscriber(base_url=f"http://127.0.0.1:{server.server_port}/v1",
                                        api_key="test", model="whisper-1")
        audio = tmp_path / "note.ogg"
        audio.write_bytes(b"OggS fake audio")
        context = ImportContext(transcriber=transcriber, spelling_hints=("Teodoro",))
        [(document, _)] = parse_all(audio, context)
    finally:
        server.shutdown()
    assert document.text == "the tram leaves at eight" and document.kind == "audio"
    path, body = _Handler.requests[-1]
    assert path == "/v1/audio/transcriptions"
    assert b"OggS fake audio" in body and b"Names: Teodoro." in body and b"whisper-1" in body


def _speech(tmp_path: Path) -> Path:
    if not (shutil.which("espeak-ng") and shutil.which("ffmpeg")):
        pytest.skip("needs espeak-ng and ffmpeg (apt-get install espeak-ng ffmpeg)")
    wav = tmp_path / "speech.wav"
    ogg = tmp_path / "PTT-20240305-WA0009.opus"
    subprocess.run(["espeak-ng", "-s", "150", "-w", str(wav), SPEECH], check=True)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", str(wav), "-c:a", "libopus",
                    "-f", "ogg", str(ogg)], check=True)
    return ogg


@pytest.mark.model
def test_whisper_transcribes_real_speech(tmp_path: Path) -> None:
    from core.providers.whisper import WhisperTranscriber

    audio = _speech(tmp_path)
    transcriber = WhisperTranscriber()
    context = ImportContext(transcriber=transcriber, spelling_hints=("Mara", "Lisbon"))
    assert AudioImporter().sniff(audio, audio.read_bytes()[:64])
    [(document, _)] = parse_all(audio, context)
    words = (document.text or "").lower()
    assert "lisbon" in words and "friday" in words and "flight" in words
    assert document.time_start is not None and document.time_start.day == 5
