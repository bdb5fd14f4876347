"""The registry of importers, most specific first, and picking one for a file by its content."""

from __future__ import annotations

from pathlib import Path

from core.errors import UnsupportedFormat
from core.importers.archive import ZIP_MAGIC, open_zip
from core.importers.base import Importer, read_head
from core.importers.calendar_ics import CalendarImporter
from core.importers.chatgpt import ChatGPTImporter
from core.importers.claude import ClaudeImporter
from core.importers.telegram import TelegramImporter
from core.importers.telegram_html import TelegramHtmlImporter
from core.importers.text import TextImporter, looks_like_text
from core.importers.audio import AudioImporter
from core.importers.discord import DiscordChatExporterImporter, DiscordPackageImporter, DiscordPackageZipImporter
from core.importers.documents import DocumentImporter
from core.importers.email import EmlImporter, EmlxImporter, MboxImporter
from core.importers.image import ImageImporter
from core.importers.imessage import IMessageImporter
from core.importers.meta import MetaImporter
from core.importers.signal_export import SignalExportImporter
from core.importers.slack import SlackImporter
from core.importers.transcript import TranscriptImporter
from core.importers.whatsapp import WhatsAppImporter
from core.importers.whatsapp_ios import WhatsAppIOSImporter
from core.importers.whatsapp_zip import WhatsAppZipImporter

#: Microsoft's compound file (CDFV2): Outlook .msg, Word .doc, Excel .xls
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def default_importers() -> list[Importer]:
    """Most specific first: a WhatsApp export is also a .txt file."""
    return [
        # chat exports, recognised by content (zips and named files of a known export first)
        WhatsAppZipImporter(), SlackImporter(), DiscordPackageZipImporter(), SignalExportImporter(),
        WhatsAppImporter(), TelegramImporter(), TelegramHtmlImporter(),
        DiscordChatExporterImporter(), DiscordPackageImporter(), MetaImporter(),
        ChatGPTImporter(), ClaudeImporter(),
        IMessageImporter(), WhatsAppIOSImporter(),
        MboxImporter(), EmlxImporter(), EmlImporter(),
        # dated records: meeting transcripts and calendars
        TranscriptImporter(), CalendarImporter(),
        # documents and media, recognised by extension and magic bytes
        DocumentImporter(), AudioImporter(), ImageImporter(),
        TextImporter(),
    ]


#: a file whose extension names a format Biographer reads but whose content is not that format:
#: say what was expected, never "unsupported extension" (which sends the user to rename it)
_NOT_WHAT_IT_SAYS = {
    ".mbox": ("does not start like an mbox mailbox (a 'From ' line followed by the e-mail's "
              "headers)", "export the folder again from the mail program (Gmail: Takeout; "
              "Thunderbird: ImportExportTools NG, 'Export folder'), or import its e-mails as .eml"),
    ".eml": ("does not start like an e-mail (header lines such as From:, Date:, Subject:)",
             "save the e-mail again from the mail program (File > Save As, .eml)"),
    ".emlx": ("does not hold an Apple Mail message (a byte count, then the e-mail's headers)",
              "copy the .emlx file again from Mail's folder, or export the mailbox as mbox"),
    ".vtt": ("does not start like a WebVTT transcript (a 'WEBVTT' line)",
             "download the transcript again from the meeting app"),
    ".srt": ("does not hold SubRip cues (a number, then '00:00:01,000 --> 00:00:04,000')",
             "download the transcript again from the meeting app"),
    ".ics": ("does not start like a calendar ('BEGIN:VCALENDAR')",
             "export the calendar again from the calendar app"),
}


def pick_importer(path: Path, importers: list[Importer]) -> Importer:
    head = read_head(path)
    if not head.strip():
        raise UnsupportedFormat(path.name, "is empty", hint="nothing to import")
    for importer in importers:
        if importer.sniff(path, head):
            return importer
    if head.startswith(ZIP_MAGIC):
        open_zip(path).close()  # a damaged or cut-short zip says so here, rather than "unknown"
    if head.startswith(OLE_MAGIC):  # Outlook's .msg, old Word and Excel files
        raise UnsupportedFormat(path.name, "is an Outlook message or an old Office file, which "
                                "Biographer cannot read", hint="save it from Outlook or Office as "
                                ".eml, .docx or PDF (or export the mail folder as mbox) and import that")
    expected = _NOT_WHAT_IT_SAYS.get(path.suffix.lower())
    if expected is not None:
        raise UnsupportedFormat(path.name, expected[0], hint=expected[1])
    if not looks_like_text(head):
        raise UnsupportedFormat(path.name, "is not a format Biographer knows",
                                hint="see the README's table of supported sources")
    raise UnsupportedFormat(
        path.name, f"has an unsupported extension {path.suffix or '(none)'!r}",
        hint="rename it to .txt or .md if it is plain text",
    )
