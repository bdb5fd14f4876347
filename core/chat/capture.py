"""The owner's own words captured from a chat: voice transcripts and photos become dated journal entries."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from core.errors import UserFacingError
from core.memory.facade import Memory
from core.types import SourceDocument
from core.words import counted


def journal_identity_prefix(source: str, key: str) -> str:
    """What every version of the entry made from one platform message (`key`) starts with."""
    return f"journal:{source}:{key}:"


def journal_document(text: str, *, when: datetime, source: str, note: str = "",
                     key: str | None = None) -> SourceDocument:
    """A dated journal entry in the owner's words; `source` says where it came from ("voice note"),
    `key` which platform message made it (so an edit of that message can replace it)."""
    stamp = when.strftime("%Y-%m-%d %H:%M")
    digest = hashlib.sha1(f"{when.isoformat()}|{text}".encode()).hexdigest()[:16]
    identity = journal_identity_prefix(source, key) + digest if key else f"journal:{source}:{digest}"
    return SourceDocument(kind="journal", name=f"{source.capitalize()} {stamp}",
                          identity=identity, text=text, time_start=when, note=note)


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


async def save_photos(memory: Memory, paths: Sequence[Path], *, caption: str, when: datetime,
                      key: str | None = None) -> str:
    """Describe photos (one, or an album sent together) when a vision model is configured and save
    them as one journal entry with their caption; return what was saved."""
    describer = memory.context.describer
    parts = [caption.strip()] if caption.strip() else []
    if describer is not None:
        hints = await memory.refresh_spelling_hints()
        for path in paths:
            parts.append("Photo: " + (await asyncio.to_thread(describer.describe, path, hints=hints)).strip())
        note = "described by a vision model"
    else:
        noun = "a photo" if len(paths) == 1 else counted(len(paths), "photo")
        parts.append(f"({noun}; not described because no vision model is configured)")
        note = "photo not described: no vision model configured"
    text = "\n\n".join(parts)
    await memory.save([journal_document(text, when=when, source="photo", note=note, key=key)])
    return text
