"""Plain text and Markdown notes, journals and documents: imported as prose."""

from __future__ import annotations

import codecs
import re
from collections.abc import Generator, Iterable, Iterator
from datetime import datetime, tzinfo
from pathlib import Path

from core.errors import ImportFailed
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase, MONTH_NUMBERS
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


class TextImporter(ImporterBase):
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
            # a journal's dated headings date the text under them; the rest takes the file's date
            text_sections=dated_sections(read_text_blocks(path), context.timezone),
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


# --- dated sections of journals ----------------------------------------------------------------

_ORDINAL = r"(?:st|nd|rd|th)?"
_WEEKDAY = r"(?:[A-Za-z]{3,9}\.?,?[ \t]+)?"
# a line that is a heading (Markdown #, Org *) starting with a date, or a date on its own line
# (optionally bold, after "Date:", with a time): `## 2023-06-02 Lisbon`, `Monday, 2 June 2023`,
# `June 2, 2023`, `**2.6.2023**`, `Date: 2 June 2023 at 10:12:33 BST` (Day One's text export)
_DATED_LINE = re.compile(
    r"^[ \t]*(?P<heading>(?:#{1,6}|\*{1,3})[ \t]+)?(?:\*\*|__)?(?:Date:[ \t]*)?<?"
    r"(?:(?P<y1>\d{4})[-/.](?P<m1>\d{1,2})[-/.](?P<d1>\d{1,2})"
    rf"|{_WEEKDAY}(?P<d2>\d{{1,2}}){_ORDINAL}[ \t]+(?P<mon2>[A-Za-z]{{3,9}})\.?,?[ \t]+(?P<y2>\d{{4}})"
    rf"|{_WEEKDAY}(?P<mon3>[A-Za-z]{{3,9}})\.?[ \t]+(?P<d3>\d{{1,2}}){_ORDINAL},?[ \t]+(?P<y3>\d{{4}})"
    r"|(?P<d4>\d{1,2})\.(?P<m4>\d{1,2})\.(?P<y4>\d{4}))"
    r"(?!\d)(?P<tail>[^\n]*)$",
    re.M,
)
# what may follow a date standing alone on its line: markers, a clock time, a zone, a colon
_PLAIN_TAIL = re.compile(r"^(?:\*\*|__)?>?(?:[ \t]+(?:at[ \t]+)?\d{1,2}[:.]\d{2}\S*(?:[ \t]+[A-Z]{2,5})?)?"
                         r"[ \t]*:?[ \t]*$")
_MAX_CARRY = 4 << 20  # text without a newline is not held longer than this to look for headings


def heading_day(match: re.Match[str], zone: tzinfo) -> datetime | None:
    """The day a dated line names, or None when it is not a real date or not a heading."""
    if match["heading"] is None and not _PLAIN_TAIL.match(match["tail"]):
        return None  # a date inside a sentence dates nothing
    if match["y1"]:
        year, month, day = int(match["y1"]), int(match["m1"]), int(match["d1"])
    elif match["y4"]:
        year, month, day = int(match["y4"]), int(match["m4"]), int(match["d4"])
    else:
        word = (match["mon2"] or match["mon3"]).lower()
        if word not in MONTH_NUMBERS:
            return None
        year, month = int(match["y2"] or match["y3"]), MONTH_NUMBERS[word]
        day = int(match["d2"] or match["d3"])
    try:
        return datetime(year, month, day, tzinfo=zone)
    except ValueError:
        return None


def dated_sections(blocks: Iterable[str], zone: tzinfo) -> Iterator[tuple[datetime | None, str]]:
    """The text in consecutive parts, each with the day of the dated heading above it (None
    before the first). Blocks are cut at their last newline so no heading is split; the text
    streams through with about one block in memory."""
    day: datetime | None = None
    carry = ""
    for block in blocks:
        text = carry + block
        cut = text.rfind("\n") + 1
        if cut == 0 and len(text) < _MAX_CARRY:
            carry = text
            continue
        text, carry = (text, "") if cut == 0 else (text[:cut], text[cut:])
        day = yield from _split_at_headings(text, day, zone)
    if carry:
        yield from _split_at_headings(carry, day, zone)


def _split_at_headings(text: str, day: datetime | None, zone: tzinfo
                       ) -> Generator[tuple[datetime | None, str], None, datetime | None]:
    start = 0
    for match in _DATED_LINE.finditer(text):
        found = heading_day(match, zone)
        if found is None:
            continue
        if match.start() > start:
            yield day, text[start:match.start()]
        day, start = found, match.start()
    if start < len(text):
        yield day, text[start:]
    return day


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
