"""Photos and screenshots: described by a vision model when one is configured, else skipped with
a note saying how to turn it on (the original stays in the data directory's raw copies)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from core.errors import ImportFailed
from core.importers.audio import time_from_name
from core.importers.base import ImportContext, file_sha256
from core.types import SourceDocument

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".heic", ".gif"}
_MAGIC = (b"\xff\xd8\xff", b"\x89PNG", b"GIF8")


def describe(path: Path, context: ImportContext) -> str:
    if context.describer is None:
        raise ImportFailed(path.name, "is an image: stored, but skipped because no vision model "
                           "is configured", hint="set a vision model (BIOGRAPHER_VISION_MODEL) to "
                           "have photos described")
    return context.describer.describe(path, hints=tuple(context.spelling_hints)).strip()


class ImageImporter:
    name = "image"

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            return False
        is_webp = head[:4] == b"RIFF" and head[8:12] == b"WEBP"
        return head.startswith(_MAGIC) or is_webp or head[4:8] == b"ftyp"

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        text = describe(path, context)
        if not text:
            raise ImportFailed(path.name, "got an empty description from the vision model",
                               hint="try another vision model")
        yield SourceDocument(
            kind="image",
            name=path.name,
            identity=f"file:{file_sha256(path)}",
            text=text,
            time_start=time_from_name(path.name, context),
            note="described by a vision model",
        )
