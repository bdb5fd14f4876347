"""Photos and screenshots: described by a vision model when one is configured; otherwise kept
as a dated record of the photo (its name and date), with a note on how to have it described."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from core.errors import ImportFailed
from core.importers.audio import time_from_name
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.importers.media import IMAGE_SUFFIXES
from core.types import SourceDocument

_MAGIC = (b"\xff\xd8\xff", b"\x89PNG", b"GIF8")
NOT_DESCRIBED = "not described: no vision model is configured (set BIOGRAPHER_LLM_VISION_MODEL)"


class ImageImporter(ImporterBase):
    name = "image"

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            return False
        is_webp = head[:4] == b"RIFF" and head[8:12] == b"WEBP"
        return head.startswith(_MAGIC) or is_webp or head[4:8] == b"ftyp"

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        when = time_from_name(path.name, context)
        digest = file_sha256(path)
        if context.describer is None:
            # the photo is on record (and its raw copy kept); setting a vision model and importing
            # it again adds the description, as a document of its own identity
            stamp = f", {when:%Y-%m-%d}" if when else ""
            yield SourceDocument(kind="image", name=path.name, identity=f"file:{digest}:undescribed",
                                 text=f"Photo {path.name}{stamp} ({NOT_DESCRIBED}).",
                                 time_start=when, note=NOT_DESCRIBED)
            return
        text = context.describer.describe(path, hints=tuple(context.spelling_hints)).strip()
        if not text:
            raise ImportFailed(path.name, "got an empty description from the vision model",
                               hint="try another vision model")
        yield SourceDocument(kind="image", name=path.name, identity=f"file:{digest}", text=text,
                             time_start=when, note="described by a vision model")
