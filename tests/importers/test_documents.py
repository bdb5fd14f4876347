"""Documents: PDF, Word, HTML, and JSON/CSV kept as plain text with a note."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import ImportFailed
from core.importers import default_importers, pick_importer
from core.importers.base import ImportContext
from tests.importers.conftest import parse_all


def make_pdf(path: Path, lines: list[str]) -> Path:
    """A minimal, valid one-page PDF with text (pypdf reads but does not write text)."""
    text = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(f"({line}) Tj T*" for line in lines) + " ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text.encode()),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path


def test_pdf(tmp_path: Path, context: ImportContext) -> None:
    path = make_pdf(tmp_path / "2024-03-05 itinerary.pdf", ["Lisbon itinerary", "Day one: Alfama"])
    [(document, _)] = parse_all(path, context)
    assert document.kind == "pdf"
    assert "Lisbon itinerary" in document.text and "Alfama" in document.text
    assert document.time_start is not None and document.time_start.day == 5


def test_broken_pdf(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\n garbage")
    with pytest.raises(ImportFailed, match="broken.pdf"):
        parse_all(path, context)


def test_docx_keeps_headings(tmp_path: Path, context: ImportContext) -> None:
    from docx import Document

    doc = Document()
    doc.add_heading("Summer 2023", level=1)
    doc.add_paragraph("We rented a flat in Porto.")
    path = tmp_path / "memoir.docx"
    doc.save(path)
    [(document, _)] = parse_all(path, context)
    assert document.text == "# Summer 2023\n\nWe rented a flat in Porto."


def test_html(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "post.html"
    path.write_text("<html><head><style>p{}</style></head><body><h2>Trip</h2>"
                    "<p>Tram <b>28</b> at dawn</p><script>alert(1)</script></body></html>")
    [(document, _)] = parse_all(path, context)
    assert document.text == "## Trip\nTram 28 at dawn"


def test_unknown_json_and_csv_are_plain_text_with_a_note(tmp_path: Path, context: ImportContext) -> None:
    data = tmp_path / "steps.json"
    data.write_text('{"steps": [1200, 8000]}')
    [(document, _)] = parse_all(data, context)
    assert document.kind == "json" and "8000" in document.text
    assert "plain text" in document.note
    table = tmp_path / "runs.csv"
    table.write_text("date,km\n2024-03-05,10\n")
    [(csv_doc, _)] = parse_all(table, context)
    assert csv_doc.kind == "csv" and "2024-03-05,10" in csv_doc.text


def test_docx_that_is_not_a_zip(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "fake.docx"
    path.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(ImportFailed, match="fake.docx"):
        list(pick_importer(path, default_importers()).parse(path, context))
