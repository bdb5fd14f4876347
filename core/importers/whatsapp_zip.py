"""WhatsApp exports "with media": a zip of the chat text plus its photos, voice notes and files.

The chat is streamed straight from the zip member. A media file is extracted (into a private
temporary folder, never where its name points) only when something reads it: voice notes and
audio go to the transcriber, photos to the vision model when one is configured, documents to the
document importers, each yielded as its own document after the chat.
"""

from __future__ import annotations

import logging
from datetime import date
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from core.errors import ImportFailed, UserFacingError
from core.importers.archive import copy_member_to, member_name, open_zip, zip_holds
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.importers.documents import DocumentImporter
from core.importers.media import can_read, media_words
from core.importers.whatsapp import (
    ChatStream,
    chat_document,
    decode_head,
    looks_like_whatsapp,
)
from core.types import SourceDocument

log = logging.getLogger(__name__)

_CHAT_NAME = re.compile(r"(^_chat\.txt$|whatsapp.*\.txt$)", re.I)
_DOCUMENT_SUFFIXES = {".pdf", ".docx", ".html", ".htm"}


def find_chat_member(archive: zipfile.ZipFile) -> zipfile.ZipInfo | None:
    """The chat text: `_chat.txt` (iOS) or `WhatsApp Chat with X.txt` (Android, localised)."""
    candidates = [i for i in archive.infolist() if not i.is_dir()
                  and PurePosixPath(member_name(i)).suffix.lower() == ".txt"]
    for info in candidates:
        if _CHAT_NAME.search(PurePosixPath(member_name(info)).name):
            return info
    # a localised name: recognise the chat by its first lines
    for info in candidates[:20]:
        with archive.open(info) as f:
            if looks_like_whatsapp(decode_head(f.read(8192))):
                return info
    return None


class _Media:
    """Turns a media file named in a message into words, when a model can."""

    def __init__(self, archive: zipfile.ZipFile, folder: Path, context: ImportContext) -> None:
        self.archive = archive
        self.folder = folder
        self.context = context
        # messages name media by base name only
        self.by_name = {PurePosixPath(member_name(i)).name: i for i in archive.infolist()
                        if not i.is_dir()}
        self._count = 0

    def __call__(self, name: str, kind: str) -> str | None:
        info = self.by_name.get(name)
        if info is None or not can_read(name, self.context):
            return None
        local = self._extract(info, PurePosixPath(name).suffix.lower())
        try:
            return media_words(local, self.context, name=name)
        finally:
            local.unlink(missing_ok=True)

    def _extract(self, info: zipfile.ZipInfo, suffix: str) -> Path:
        # a name of our own: the member's name is never used as a path
        self._count += 1
        return copy_member_to(self.archive, info, self.folder / f"media-{self._count}{suffix}")


class WhatsAppZipImporter(ImporterBase):
    name = "whatsapp"

    def sniff(self, path: Path, head: bytes) -> bool:
        return zip_holds(path, head, find_chat_member)

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        archive = open_zip(path)
        with archive, context.scratch("wa-") as folder:
            chat = find_chat_member(archive)
            if chat is None:
                raise ImportFailed(path.name, "is a zip without a WhatsApp chat in it",
                                   hint="export the chat again with WhatsApp's Export chat")
            chat_name = member_name(chat)
            stream = ChatStream(lambda: archive.open(chat), f"{path.name}/{chat_name}")
            document = chat_document(
                stream, context, identity=f"file:{file_sha256(path)}",
                names=(PurePosixPath(chat_name).stem, path.stem, *PurePosixPath(chat_name).parent.parts[-1:]),
                media_hook=_Media(archive, folder, context),
                file_date=date(*chat.date_time[:3]),  # the zip records when the chat was written
            )
            yield document
            # the store reads a document's messages before asking for the next document; the
            # zip must stay open until then, which this generator's frame guarantees
            yield from self._documents(archive, folder, context, document.name)

    @staticmethod
    def _documents(archive: zipfile.ZipFile, folder: Path, context: ImportContext,
                   chat: str) -> Iterator[SourceDocument]:
        importer = DocumentImporter()
        for number, info in enumerate(archive.infolist()):
            suffix = PurePosixPath(member_name(info)).suffix.lower()
            if info.is_dir() or suffix not in _DOCUMENT_SUFFIXES:
                continue
            original = PurePosixPath(member_name(info)).name
            if original in {"", ".", ".."}:
                continue
            local = folder / f"doc-{number}" / original.replace("/", "_")
            local.parent.mkdir()
            copy_member_to(archive, info, local)
            try:
                for document in importer.parse(local, context):
                    document.name = f"{original} (shared in {chat})"
                    yield document
            except UserFacingError as error:
                log.warning("%s: %s", original, error)
            finally:
                local.unlink(missing_ok=True)
