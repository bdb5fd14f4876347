"""Plain text and Markdown notes, journals and documents: imported as prose."""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from datetime import datetime, tzinfo
from pathlib import Path

from core.errors import ImportFailed
from core.importers.base import ImportContext, file_sha256
from core.types import SourceDocument

TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".text", ".org", ".rst"}


def decode_text(path: Path, data: bytes) -> str:
    """Decode text bytes: UTF-8 (with or without BOM), or UTF-16 when a BOM says so."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    if b"\x00" in data[:8192]:
        raise ImportFailed(path.name, "looks like a binary file, not text",
                           hint="export it as text, or check it is the file you meant")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ImportFailed(
            path.name, f"is not valid UTF-8 text (byte {error.start})",
            hint="save it as UTF-8 and import it again",
        ) from None


def looks_like_text(head: bytes) -> bool:
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    if b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        # a multi-byte character cut by the end of the head is still text
        return error.start >= len(head) - 4
    return True


class TextImporter:
    name = "text"

    def sniff(self, path: Path, head: bytes) -> bool:
        return path.suffix.lower() in TEXT_SUFFIXES

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        head = path.open("rb").read(8192) if path.exists() else b""
        if not head.strip():
            raise ImportFailed(path.name, "is empty", hint="nothing to import")
        if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise ImportFailed(path.name, "looks like a binary file, not text",
                               hint="export it as text, or check it is the file you meant")
        kind = "markdown" if path.suffix.lower() in {".md", ".markdown"} else "text"
        yield SourceDocument(
            kind=kind,
            name=path.name,
            identity=f"file:{file_sha256(path)}",
            text_blocks=read_text_blocks(path),
            time_start=date_in_name(path.name, context.timezone),
        )


def read_text_blocks(path: Path, *, block_size: int = 1 << 20) -> Iterator[str]:
    """The file's text, decoded incrementally (UTF-8, or UTF-16 by its BOM): a 1 GB file is
    never in memory at once. A decoding error raises ImportFailed, which rolls the import back."""
    with path.open("rb") as f:
        head = f.read(2)
        f.seek(0)
        encoding = "utf-16" if head in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
        decoder = codecs.getincrementaldecoder(encoding)()
        offset = 0
        for raw in iter(lambda: f.read(block_size), b""):
            try:
                yield decoder.decode(raw)
            except UnicodeDecodeError as error:
                raise ImportFailed(path.name, f"is not valid {'UTF-16' if encoding == 'utf-16' else 'UTF-8'} text "
                                   f"(byte {offset + error.start})",
                                   hint="save it as UTF-8 and import it again") from None
            offset += len(raw)
        try:
            yield decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            raise ImportFailed(path.name, "ends in the middle of a character",
                               hint="the file may be cut short; export it again") from None


_DATE_IN_NAME = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")


def date_in_name(name: str, zone: tzinfo) -> datetime | None:
    """A journal named like 2024-03-05.md is dated that day; a file's mtime says nothing reliable."""
    match = _DATE_IN_NAME.search(name)
    if not match:
        return None
    try:
        return datetime(*(int(g) for g in match.groups()), tzinfo=zone)
    except ValueError:
        return None
