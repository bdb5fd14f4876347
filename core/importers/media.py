"""Media inside chat exports and on their own: which files are recordings or pictures, and the
words a model can make of them (a transcript, a description)."""

from __future__ import annotations

import logging
from pathlib import Path, PurePosixPath

from core.errors import UserFacingError
from core.importers.base import ImportContext

log = logging.getLogger(__name__)

AUDIO_SUFFIXES = frozenset({".ogg", ".oga", ".opus", ".m4a", ".mp3", ".wav", ".aac", ".flac", ".caf"})
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".webp", ".heic", ".gif"})


def poll_text(question: str, options: list[str]) -> str:
    """A poll as every chat importer keeps it: its question and its options, in order (votes,
    which change after the export, are left out)."""
    listed = ", ".join(o for o in options if o)
    return f"[poll] {question}" + (f" ({listed})" if listed else "")


def is_media(name: str | Path) -> bool:
    suffix = PurePosixPath(str(name)).suffix.lower()
    return suffix in AUDIO_SUFFIXES or suffix in IMAGE_SUFFIXES


def can_read(name: str, context: ImportContext) -> bool:
    """Whether a model is configured that turns this file into words."""
    suffix = PurePosixPath(name).suffix.lower()
    return ((suffix in AUDIO_SUFFIXES and context.transcriber is not None)
            or (suffix in IMAGE_SUFFIXES and context.describer is not None))


def media_words(local: Path, context: ImportContext, *, name: str) -> str | None:
    """`(transcript) …` or `(description) …` for a file attached to a message, or None when no
    model reads it. One unreadable voice note must not sink a ten-year chat: its error becomes a
    note in the message, and the import goes on."""
    suffix = local.suffix.lower()
    hints = tuple(context.spelling_hints)
    try:
        if suffix in AUDIO_SUFFIXES and context.transcriber is not None:
            text = context.transcriber.transcribe(local, hints=hints).strip()
            return f"(transcript) {text}" if text else None
        if suffix in IMAGE_SUFFIXES and context.describer is not None:
            text = context.describer.describe(local, hints=hints).strip()
            return f"(description) {text}" if text else None
    except UserFacingError as error:
        log.warning("%s: %s", name, error)
        return f"(not transcribed: {error.message})" if suffix in AUDIO_SUFFIXES \
            else f"(not described: {error.message})"
    return None


class FolderMedia:
    """Finds the files a chat export names in the folder beside it (an unzipped export)."""

    def __init__(self, folder: Path, context: ImportContext) -> None:
        self.folder = folder
        self.context = context

    def __call__(self, name: str, kind: str) -> str | None:
        base = PurePosixPath(name.replace("\\", "/")).name  # never a path out of the folder
        if not base or base in {".", ".."} or not can_read(base, self.context):
            return None
        local = self.folder / base
        return media_words(local, self.context, name=base) if local.is_file() else None
