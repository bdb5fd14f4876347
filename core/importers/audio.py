"""Voice notes and recordings, transcribed by the configured Transcriber (local faster-whisper by
default) with the owner's names as spelling hints."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from core.errors import ImportFailed
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.importers.media import AUDIO_SUFFIXES
from core.importers.text import date_in_name
from core.types import SourceDocument

_MAGIC = (b"OggS", b"RIFF", b"ID3", b"fLaC", b"caff", b"\xff\xfb", b"\xff\xf3", b"\xff\xf2")

# dates that messengers put in voice-note names: PTT-20240305-WA0009.opus (WhatsApp Android),
# 00000014-AUDIO-2024-03-05-21-09-30.opus (iOS), audio_3@05-03-2024_21-08-10.ogg (Telegram)
_COMPACT_DATE = re.compile(r"(?<!\d)(20\d{2})(\d{2})(\d{2})(?!\d)")
_TELEGRAM_DATE = re.compile(r"@(\d{2})-(\d{2})-(\d{4})_(\d{2})-(\d{2})-(\d{2})")


def time_from_name(name: str, context: ImportContext) -> datetime | None:
    zone = context.timezone
    telegram = _TELEGRAM_DATE.search(name)
    try:
        if telegram:
            day, month, year, hour, minute, second = (int(g) for g in telegram.groups())
            return datetime(year, month, day, hour, minute, second, tzinfo=zone)
        compact = _COMPACT_DATE.search(name)
        if compact:
            return datetime(*(int(g) for g in compact.groups()), tzinfo=zone)
    except ValueError:
        return None
    return date_in_name(name, zone)


def transcribe(path: Path, context: ImportContext) -> str:
    """The words spoken in `path`; ImportFailed with a fix when no transcriber is configured."""
    if context.transcriber is None:
        raise ImportFailed(path.name, "is audio, and no speech-to-text model is configured",
                           hint="set BIOGRAPHER_TRANSCRIPTION_BACKEND=local (faster-whisper, the "
                                "default) or openai")
    return context.transcriber.transcribe(path, hints=tuple(context.spelling_hints)).strip()


class AudioImporter(ImporterBase):
    name = "audio"

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.suffix.lower() not in AUDIO_SUFFIXES:
            return False
        # .m4a/.aac start with an ISO box ("....ftyp") or ADTS sync bytes
        return head.startswith(_MAGIC) or head[4:8] == b"ftyp" or head[:2] == b"\xff\xf1"

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        text = transcribe(path, context)
        if not text:
            raise ImportFailed(path.name, "has no speech the transcriber could hear",
                               hint="check the recording plays and has speech in it")
        yield SourceDocument(
            kind="audio",
            name=path.name,
            identity=f"file:{file_sha256(path)}",
            text=text,
            time_start=time_from_name(path.name, context),
            note="transcribed speech",
        )
