"""The owner's own words captured from a chat: voice transcripts and photos become dated journal entries."""

from __future__ import annotations

import asyncio
import hashlib
from datetime import datetime
from pathlib import Path

from core.errors import UserFacingError
from core.memory import Memory
from core.types import SourceDocument


def journal_document(text: str, *, when: datetime, source: str, note: str = "") -> SourceDocument:
    """A dated journal entry in the owner's words; `source` says where it came from ("voice note")."""
    stamp = when.strftime("%Y-%m-%d %H:%M")
    digest = hashlib.sha1(f"{when.isoformat()}|{text}".encode()).hexdigest()[:16]
    return SourceDocument(kind="journal", name=f"{source.capitalize()} {stamp}",
                          identity=f"journal:{source}:{digest}", text=text, time_start=when, note=note)


async def save_recording(memory: Memory, path: Path, *, when: datetime) -> str:
    """Transcribe a voice note with the profile's names as hints, save it as a journal entry, return the text."""
    transcriber = memory.context.transcriber
    if transcriber is None:
        raise UserFacingError("voice notes need a transcriber, and none is configured",
                              hint="set BIOGRAPHER_TRANSCRIPTION_BACKEND=local (the default) or openai")
    hints = await memory.refresh_spelling_hints()
    text = (await asyncio.to_thread(transcriber.transcribe, path, hints=hints)).strip()
    if not text:
        raise UserFacingError("I could not hear any words in that recording", hint="try again somewhere quieter")
    await memory.save([journal_document(text, when=when, source="voice note")])
    return text


async def save_photo(memory: Memory, path: Path, *, caption: str, when: datetime) -> str:
    """Describe a photo when a vision model is configured, save it with its caption; return what was saved."""
    describer = memory.context.describer
    parts = [caption.strip()] if caption.strip() else []
    if describer is not None:
        hints = await memory.refresh_spelling_hints()
        parts.append("Photo: " + (await asyncio.to_thread(describer.describe, path, hints=hints)).strip())
        note = "described by a vision model"
    else:
        parts.append("(a photo; not described because no vision model is configured)")
        note = "photo not described: no vision model configured"
    text = "\n\n".join(parts)
    await memory.save([journal_document(text, when=when, source="photo", note=note)])
    return text
