"""E-mail: .mbox (Google Takeout), .eml and Apple Mail .emlx. One e-mail is one Message.

An mbox is cut into e-mails by email_mbox's incremental reader; each e-mail's own words come from
email_body (text/plain, else HTML as text, quoted reply chains cut so each e-mail's words are
indexed once). Here: headers (senders, subject, the date, or Received's, or the mbox's), the
Message, and the importers. See shared/EXPORT_FORMATS.md §7.
"""

from __future__ import annotations

import hashlib
import logging
import plistlib
import re
from collections.abc import Iterator
from datetime import datetime, timezone
from email import policy
from email.header import Header, decode_header, make_header
from email.headerregistry import HeaderRegistry
from email.message import Message as EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses, parsedate_to_datetime
from pathlib import Path

from core.errors import ImportFailed
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.importers.email_body import body_text, superset_charset
from core.importers.email_mbox import FIELD_LINE, FROM_LINE, from_line_time, split_mbox
from core.types import Conversation, Message, SourceDocument

log = logging.getLogger(__name__)

_HEADER_LINE = re.compile(rb"^[A-Za-z][A-Za-z0-9-]{1,40}: ")
_KNOWN_HEADERS = (b"from:", b"date:", b"subject:", b"received:", b"message-id:", b"to:",
                  b"mime-version:", b"return-path:", b"delivered-to:")
# compat32 keeps headers as raw strings, decoded here only where needed: the default policy's
# header registry parsed every header eagerly and took three quarters of an mbox import's time
_PARSER = BytesParser(policy=policy.compat32)


def _bytes_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _raw_text(raw: object) -> str:
    """A header value as written. Many mailers put UTF-8 straight into headers (RFC 6532, or
    just careless); compat32 hands such a value back as a Header in "unknown-8bit" whose str()
    is replacement characters, so its bytes are decoded here, only for those headers."""
    if isinstance(raw, Header):
        return "".join(_bytes_text(part) if isinstance(part, bytes) else part
                       for part, _charset in decode_header(raw))
    return str(raw)


def _decoded(raw: object) -> str:
    """A header's text with RFC 2047 encoded words decoded and whitespace folded."""
    if raw is None:
        return ""
    text = _raw_text(raw)
    if "=?" in text:
        try:
            text = str(make_header([(words, superset_charset(charset) if charset else charset)
                                    for words, charset in decode_header(text)]))
        except (ValueError, LookupError, UnicodeDecodeError, AssertionError):
            pass  # malformed encoded words: keep them as written
    return " ".join(text.split())


def _header(message: EmailMessage, name: str) -> str:
    return _decoded(message.get(name))


_BARE_ADDRESS = re.compile(r"[^\s<>(),;:@\"]+@[^\s<>(),;:@\"]+\.[^\s<>(),;:@\"]+")


def _addresses(message: EmailMessage, name: str) -> list[tuple[str, str]]:
    # split the raw header first: a decoded display name may hold a comma ("Doe, John")
    values = [_raw_text(v) for v in message.get_all(name) or ()]
    found = [(_decoded(display), address.lower()) for display, address in getaddresses(values) if address]
    if any("(" in value for value in values):
        # a comment stays in getaddresses' names; an old "addr (Name)" is its only name, though
        names = {address: display for display, address in _without_comments(name, values)}
        found = [(names.get(address) or display, address) for display, address in found]
    if any(address.startswith("@") or "@" not in address for _, address in found):
        # addresses written without commas ("tim@example.com ana@example.com") defeat the RFC
        # parser (it makes "@example.com" of them): take each address as written instead
        return [("", address.lower()) for value in values for address in _BARE_ADDRESS.findall(value)]
    return found


_HEADERS = HeaderRegistry()


def _without_comments(name: str, values: list[str]) -> list[tuple[str, str]]:
    """Addresses with RFC 5322 comments ("Pete(A wonderful \\) chap) <pete(his account)@silly.test>")
    as the standard's full grammar reads them: getaddresses keeps the comments in the name. The
    full parser is kept to these few headers, as it is several times slower."""
    found: list[tuple[str, str]] = []
    try:
        for value in values:
            header = _HEADERS(name, value)
            found += [(address.display_name, address.addr_spec.lower())
                      for address in getattr(header, "addresses", ()) if "@" in address.addr_spec]
    except (ValueError, IndexError, TypeError, AttributeError):  # the full grammar gave up on it
        return []
    return found


#: e-mail did not exist before 1971; a date past next year is a broken clock, not the future
_EARLIEST_YEAR = 1971
_RECEIVED_DATE = re.compile(r";\s*([^;]+?)\s*$")


def _parse_date(raw: str, context: ImportContext) -> datetime | None:
    try:
        moment = parsedate_to_datetime(raw)
    except (ValueError, TypeError, IndexError):
        return None
    if moment is None:
        return None
    if moment.tzinfo is None:  # "-0000": the sender's zone is unknown
        moment = moment.replace(tzinfo=context.timezone)
    if not _EARLIEST_YEAR <= moment.year <= datetime.now(timezone.utc).year + 1:
        return None  # "Date: ... 3609": a real message, but not a date to file it under
    return moment.astimezone(context.timezone)


def email_time(message: EmailMessage, context: ImportContext,
               fallback: datetime | None) -> tuple[datetime | None, str]:
    """When the e-mail was sent, and how that is known when not from its own Date header:
    "received" (the last server's Received line), "mbox" (the mailbox's own record of it) or
    "undated". A Date that is missing, unreadable or absurd (year 3609) is not used."""
    moment = _parse_date(_header(message, "Date"), context)
    if moment is not None:
        return moment, ""
    for received in message.get_all("Received") or ():  # the newest hop comes first
        found = _RECEIVED_DATE.search(" ".join(_raw_text(received).split()))
        moment = _parse_date(found.group(1), context) if found else None
        if moment is not None:
            return moment, "received"
    if fallback is not None and _EARLIEST_YEAR <= fallback.year <= datetime.now(timezone.utc).year + 1:
        return fallback.astimezone(context.timezone), "mbox"
    return None, "undated"


def normalise_subject(subject: str) -> str:
    return re.sub(r"^(?:\s*(?:re|fwd?|aw|wg|sv|tr)\s*(?:\[\d+\])?\s*:\s*)+", "", subject,
                  flags=re.I).strip()


def gmail_labels(message: EmailMessage) -> set[str]:
    return {label.strip().lower() for label in _header(message, "X-Gmail-Labels").split(",")}


def email_text(message: EmailMessage) -> str:
    """Subject and To heading the e-mail's own words (forwarded mail included)."""
    recipients = ", ".join(n or a for n, a in _addresses(message, "To") + _addresses(message, "Cc"))
    head = f"Subject: {_header(message, 'Subject')}" + (f"\nTo: {recipients}" if recipients else "")
    return f"{head}\n\n{body_text(message)}".strip()


def email_message(message: EmailMessage, context: ImportContext, time: datetime | None, *,
                  labels: set[str] | None = None) -> Message:
    """One e-mail as a Message: From as sender, Subject and To heading its own words (`time`
    None: the e-mail gives no usable date, and it is kept undated rather than dated wrongly)."""
    labels = gmail_labels(message) if labels is None else labels
    senders = _addresses(message, "From")
    name, address = senders[0] if senders else ("", "")
    sender = name or address or _header(message, "From") or "unknown sender"
    message_id = _header(message, "Message-ID").strip("<>") or None
    in_reply_to = _header(message, "In-Reply-To").strip("<>") or None
    return Message(
        sender=sender,
        text=email_text(message),
        time=time,
        sender_id=address or None,
        is_owner="sent" in labels or context.is_owner(name, address),
        platform_id=message_id,
        reply_to=in_reply_to,
    )


_UNDATED = "e-mails with no date at all, kept undated"
_DATED_BY = {"received": "e-mails without a usable Date, dated from Received",
             "mbox": "e-mails without a usable Date, dated from the mbox"}


class MboxImporter(ImporterBase):
    name = "email"

    def sniff(self, path: Path, head: bytes) -> bool:
        lines = head.removeprefix(b"\xef\xbb\xbf").lstrip(b"\r\n").split(b"\n", 2)  # a BOM, a blank line
        if len(lines) < 2 or not lines[0].startswith(b"From "):
            return False
        if FROM_LINE.match(lines[0].rstrip(b"\r") + b"\n"):
            return True
        # Thunderbird saves a single .eml with its `From - ` line: that is one e-mail, not a mailbox
        return path.suffix.lower() != ".eml" and bool(FIELD_LINE.match(lines[1]))

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        mailbox = path.stem
        digest = file_sha256(path)
        conversation = Conversation(platform="email", key=f"email:mbox:{mailbox}",
                                    name=f"E-mail: {mailbox}")
        document = SourceDocument(kind="email", name=conversation.name,
                                  identity=f"file:{digest}", conversation=conversation)
        document.messages = self._messages(path, context, document)
        yield document

    @staticmethod
    def _messages(path: Path, context: ImportContext, document: SourceDocument) -> Iterator[Message]:
        with path.open("rb") as stream:
            for from_line, data in split_mbox(stream):
                parsed = _PARSER.parsebytes(data)
                labels = gmail_labels(parsed)  # type: ignore[arg-type]
                if "spam" in labels:
                    document.skipped["spam e-mails"] += 1
                    continue
                time, dated_by = email_time(parsed, context,  # type: ignore[arg-type]
                                            from_line_time(from_line))
                if time is None:
                    document.remarks[_UNDATED] += 1  # kept, with its sender, and said so
                elif dated_by:
                    document.remarks[_DATED_BY[dated_by]] += 1
                yield email_message(parsed, context, time, labels=labels)  # type: ignore[arg-type]


# --- single messages: .eml and .emlx ----------------------------------------------------------

def single_email(path: Path, parsed: EmailMessage, context: ImportContext,
                 fallback: datetime | None = None) -> SourceDocument:
    """One .eml/.emlx as a document holding its message (undated, with a note saying so, when
    it has no usable date)."""
    return email_document(parsed, context, identity=f"file:{file_sha256(path)}", stem=path.stem,
                          fallback=fallback)


def raw_email_document(data: bytes, context: ImportContext, *, stem: str, sent: bool = False) -> SourceDocument:
    """An e-mail's bytes (as an IMAP server gives them) as the document its .eml would make, with
    the same identity: one read from a mail folder and its saved .eml are one source. `sent`:
    it lies in the owner's Sent folder, so the owner wrote it."""
    parsed = _PARSER.parsebytes(data)
    labels = gmail_labels(parsed) | {"sent"} if sent else None  # type: ignore[arg-type]
    return email_document(parsed, context, identity=f"file:{hashlib.sha256(data).hexdigest()}",  # type: ignore[arg-type]
                          stem=stem, labels=labels)


def email_document(parsed: EmailMessage, context: ImportContext, *, identity: str, stem: str,
                   fallback: datetime | None = None, labels: set[str] | None = None) -> SourceDocument:
    """One e-mail as a document in its thread; `stem` names it when it has no subject."""
    subject = _header(parsed, "Subject")
    time, dated_by = email_time(parsed, context, fallback)
    thread = normalise_subject(subject) or stem
    conversation = Conversation(platform="email", key=f"email:thread:{thread.lower()}",
                                name=f"E-mail: {thread}")
    document = SourceDocument(
        kind="email",
        name=f"E-mail: {subject or stem}",
        identity=identity,
        conversation=conversation,
        messages=iter([email_message(parsed, context, time, labels=labels)]),
        time_start=time,
    )
    if time is None:
        document.note = "no usable Date or Received header: kept undated"
    elif dated_by:
        source = "its Received header" if dated_by == "received" else "Mail's own record"
        document.note = f"no usable Date header: dated from {source}"
    return document


def looks_like_headers(head: bytes) -> bool:
    """An RFC 822 header block: it opens with a header line and holds two of the usual headers
    before the first blank line (a relay's mail may carry pages of Received, Authentication and
    anti-spam headers before its From and Subject)."""
    block = head.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]
    lines = block.split(b"\n")
    if not lines or not _HEADER_LINE.match(lines[0]):
        return False
    known = sum(1 for line in lines if line.lower().startswith(_KNOWN_HEADERS))
    return known >= 2


class EmlImporter(ImporterBase):
    name = "email"

    def sniff(self, path: Path, head: bytes) -> bool:
        suffix = path.suffix.lower()
        if suffix not in {".eml", ".msg", ".txt", ""}:
            return False
        if head.startswith(b"From ") and b"\n" in head:
            head = head.split(b"\n", 1)[1]  # some tools put an mbox From_ line on top
        # a file named .eml says what it is: one header line is enough (a MIME part saved
        # alone, with only Content-Type, or an e-mail with From and no Date)
        return looks_like_headers(head) or (suffix == ".eml" and bool(_HEADER_LINE.match(head.lstrip())))

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        data = path.read_bytes()
        if data.startswith(b"From "):
            data = data.split(b"\n", 1)[1]
        yield single_email(path, _PARSER.parsebytes(data), context)  # type: ignore[arg-type]


class EmlxImporter(ImporterBase):
    """Apple Mail: a byte count line, the RFC 822 message, then an XML plist of metadata."""

    name = "email"

    def sniff(self, path: Path, head: bytes) -> bool:
        first, _, rest = head.partition(b"\n")
        if path.suffix.lower() != ".emlx":
            return False
        # without its byte count line (a copy cut by hand), the message and its plist remain
        return (first.strip().isdigit() and looks_like_headers(rest)) or looks_like_headers(head)

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        data = path.read_bytes()
        if not data.partition(b"\n")[0].strip().isdigit():
            message = data.split(b"\n<?xml version=", 1)[0]
            yield single_email(path, _PARSER.parsebytes(message), context)  # type: ignore[arg-type]
            return
        with path.open("rb") as f:
            try:
                size = int(f.readline().strip())
            except ValueError:
                raise ImportFailed(path.name, "is not an Apple Mail .emlx file (no byte count)",
                                   hint="import the .emlx files of Mail's folders as they are") from None
            data = f.read(size)
            trailer = f.read()
        if len(data) < size:
            raise ImportFailed(path.name, "is cut short", hint="copy the file again from Mail's folder")
        received = None
        if trailer.strip():
            try:
                meta = plistlib.loads(trailer)
                if "date-received" in meta:
                    received = datetime.fromtimestamp(int(meta["date-received"]), tz=timezone.utc)
            except (plistlib.InvalidFileException, ValueError, TypeError):
                received = None  # the plist is optional metadata; the message itself is complete
        yield single_email(path, _PARSER.parsebytes(data), context, received)  # type: ignore[arg-type]
