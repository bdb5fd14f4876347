"""Documents as prose: PDF (pypdf), Word .docx (python-docx), HTML (BeautifulSoup), and JSON/CSV
files that no chat importer recognised (kept as plain text, with a note saying so)."""

from __future__ import annotations

import logging
import zipfile
from collections.abc import Iterator
from pathlib import Path

from core.errors import ImportFailed
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.importers.text import date_in_name, decode_text
from core.types import SourceDocument

log = logging.getLogger(__name__)

#: JSON/CSV fallback reads the whole file as text; past this it is a data dump, not a document
MAX_PLAIN_BYTES = 64 * 1024**2


def _empty(path: Path, what: str) -> ImportFailed:
    return ImportFailed(path.name, f"has no text to import ({what})",
                        hint="a scanned PDF needs OCR first; otherwise check the file")


def pdf_text(path: Path) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise ImportFailed(path.name, "is a password-protected PDF",
                               hint="save an unprotected copy and import that")
        pages = [page.extract_text() or "" for page in reader.pages]
    except PdfReadError as error:
        raise ImportFailed(path.name, f"is not a readable PDF ({error})",
                           hint="open it and save it as PDF again") from None
    # a blank line between pages lets the chunker cut there
    return "\n\n".join(page.strip() for page in pages if page.strip())


def docx_text(path: Path) -> str:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(str(path))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError) as error:
        raise ImportFailed(path.name, f"is not a readable Word document ({error})",
                           hint="open it in Word or LibreOffice and save it as .docx again") from None
    lines: list[str] = []
    for paragraph in document.paragraphs:
        text = paragraph.text.strip()
        if not text:
            continue
        style = (paragraph.style.name or "") if paragraph.style is not None else ""
        # headings become Markdown headings, so chunks keep the section they come from
        if style.startswith("Heading") and style[-1:].isdigit():
            text = "#" * int(style[-1]) + " " + text
        elif style == "Title":
            text = "# " + text
        lines.append(text)
    for table in document.tables:
        for row in table.rows:
            cells = [cell.text.strip() for cell in row.cells]
            if any(cells):
                lines.append(" | ".join(cells))
    return "\n\n".join(lines)


_BLOCK_TAGS = ["p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article",
               "blockquote", "pre", "table", "ul", "ol", "header", "footer", "title"]


def html_text(path: Path, data: bytes | None = None) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(data if data is not None else path.read_bytes(), "html.parser")
    for tag in soup(["script", "style", "noscript", "template"]):
        tag.decompose()
    for level in range(1, 7):
        for heading in soup.find_all(f"h{level}"):
            heading.insert(0, "#" * level + " ")
    # block elements end lines; inline ones (<b>, <a>) stay inside their sentence
    for block in soup.find_all(_BLOCK_TAGS):
        block.append("\n")
    for br in soup.find_all("br"):
        br.replace_with("\n")
    text = soup.get_text()
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return "\n".join(_squeeze_blank(lines)).strip()


def _squeeze_blank(lines: list[str]) -> Iterator[str]:
    blank = False
    for line in lines:
        if line:
            blank = False
            yield line
        elif not blank:
            blank = True
            yield ""


class DocumentImporter(ImporterBase):
    """PDF, Word, HTML; JSON and CSV as plain text when no chat importer claimed them."""

    name = "document"

    def sniff(self, path: Path, head: bytes) -> bool:
        suffix = path.suffix.lower()
        if suffix == ".pdf":
            return head.startswith(b"%PDF")
        if suffix == ".docx":
            return head.startswith(b"PK")
        if suffix in {".html", ".htm"}:
            return True
        if suffix in {".json", ".csv", ".jsonl"}:
            return b"\x00" not in head[:4096] or head.startswith((b"\xff\xfe", b"\xfe\xff"))
        # a PDF without its extension is still a PDF
        return head.startswith(b"%PDF-")

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        suffix = path.suffix.lower()
        note = ""
        if suffix in {".docx"}:
            kind, text = "docx", docx_text(path)
        elif suffix in {".html", ".htm"}:
            kind, text = "html", html_text(path)
        elif suffix in {".json", ".csv", ".jsonl"}:
            kind = suffix.lstrip(".")
            if path.stat().st_size > MAX_PLAIN_BYTES:
                raise ImportFailed(path.name, "is a large JSON/CSV file in no format Biographer knows",
                                   hint="see the README's table of supported sources")
            text = decode_text(path, path.read_bytes())
            note = f"{kind.upper()} in no known chat format, imported as plain text"
        else:
            kind, text = "pdf", pdf_text(path)
        if not text.strip():
            raise _empty(path, kind)
        yield SourceDocument(
            kind=kind,
            name=path.name,
            identity=f"file:{file_sha256(path)}",
            text=text,
            time_start=date_in_name(path.name, context.timezone),
            note=note,
        )
