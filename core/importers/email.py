"""E-mail: .mbox (Google Takeout), .eml and Apple Mail .emlx. One e-mail is one Message.

An mbox is split on From_ lines by an incremental reader (a 2 GB Takeout is never in memory; the
stdlib `mailbox` module indexes the whole file first and splits on any line starting "From ").
Bodies prefer text/plain, else HTML turned into text; quoted reply chains are cut so each e-mail's
own words are indexed once. See shared/EXPORT_FORMATS.md §7.
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
from typing import IO

from core.errors import ImportFailed
from core.importers.base import ImportContext, ImporterBase, file_sha256
from core.types import Conversation, Message, SourceDocument

log = logging.getLogger(__name__)

_FROM_LINE = re.compile(
    rb"^From \S+\s+\w{3} \w{3}\s+\d{1,2} \d{1,2}:\d\d(?::\d\d)?(?: (?P<tz>[+-]\d{4}))? \d{4}\s*$"
)
_FROM_ESCAPE = re.compile(rb"^>(>*From )")
#: a header line that opens an e-mail after an undated From_ line: a field mail programs write
#: (or any X- field), not a body's "Monday: ..." after a paragraph that begins "From ..."
_FIELD_LINE = re.compile(
    rb"^(?:X-[A-Za-z0-9-]+|From|To|Cc|Bcc|Date|Subject|Message-ID|Received|Return-Path|Delivered-To"
    rb"|MIME-Version|Content-Type|Content-Transfer-Encoding|Reply-To|Sender|Status|References"
    rb"|In-Reply-To|Path|Newsgroups|Envelope-To|DKIM-Signature|ARC-[A-Za-z-]+"
    rb"|Authentication-Results|Received-SPF|Thread-Topic|Thread-Index|List-[A-Za-z-]+|Precedence"
    rb"|Organization|User-Agent|Importance|Priority):", re.I)
_GLUED_HEADER = re.compile(rb"^(?P<separator>From \S+ +\w{3} \w{3} +\d{1,2} \d{1,2}:\d\d(?::\d\d)?"
                           rb"(?: [+-]\d{4})? \d{4})[A-Za-z][A-Za-z0-9-]{1,40}:")
_CONTENT_LENGTH = re.compile(rb"^Content-Length:[ \t]*(\d+)[ \t]*\r?$", re.I)
_HEADER_LINE = re.compile(rb"^[A-Za-z][A-Za-z0-9-]{1,40}: ")
_KNOWN_HEADERS = (b"from:", b"date:", b"subject:", b"received:", b"message-id:", b"to:",
                  b"mime-version:", b"return-path:", b"delivered-to:")
_LATIN_LABELS = {"us-ascii", "ascii", "iso-8859-1", "latin-1", "latin1", "windows-1252", "cp1252"}
# Mailers label text with a charset its bytes outgrow: GBK text as gb2312, Windows Korean as
# euc-kr. Decode with the superset the label has come to mean, as browsers do (WHATWG Encoding).
_SUPERSETS = {"gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "chinese": "gb18030",
              "euc-kr": "cp949", "ks_c_5601-1987": "cp949", "shift_jis": "cp932", "sjis": "cp932",
              "x-sjis": "cp932", "big5": "big5hkscs", "tis-620": "cp874", "iso-8859-11": "cp874",
              "iso-8859-9": "cp1254", "iso-8859-8-i": "iso-8859-8"}


def _superset(charset: str) -> str:
    return _SUPERSETS.get(charset.lower(), charset)


# where a reply's quotation of the earlier mail begins
_QUOTE_HEADERS = re.compile(
    r"^(?:On|Am|Le|El|Il|Em|Op) [^\n]{0,200}(?:\n[^\n]{0,200})?"
    r"(?:wrote|schrieb|a écrit|escribió|ha scritto|escreveu|schreef)[^\n]{0,120}:\s*$"
    r"|^-{2,} ?(?:Original Message|Ursprüngliche Nachricht|Message d'origine) ?-{2,}\s*$"
    r"|^_{10,}\s*\n(?:From|Von|De): ",
    re.M | re.I,
)

# compat32 keeps headers as raw strings, decoded here only where needed: the default policy's
# header registry parsed every header eagerly and took three quarters of an mbox import's time
_PARSER = BytesParser(policy=policy.compat32)


def decode_part(part: EmailMessage) -> str:
    """A text part's words, surviving mislabelled charsets (UTF-8 declared as ASCII/Latin-1)."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return str(payload or "")
    declared = _superset((part.get_content_charset() or "utf-8").lower())
    order = ["utf-8", declared, "cp1252"] if declared in _LATIN_LABELS else [declared, "utf-8"]
    for charset in order:
        try:
            return payload.decode(charset)
        except (LookupError, UnicodeDecodeError):
            continue
    # a few broken bytes (a character cut where a line was wrapped) in otherwise good text: keep
    # the text in its own charset and mark only those bytes, rather than misread it all as cp1252
    for charset in order:
        try:
            return payload.decode(charset, errors="replace")
        except LookupError:
            continue
    return payload.decode("cp1252", errors="replace")


# Apple Mail's "Begin forwarded message:" in the languages Mail ships (the list kept by
# crisp-oss/email-forward-parser), and Gmail's separator: what follows is the forwarded e-mail,
# which is the point of a forward, not quoted history to cut.
_FORWARD_WORDS = (
    "Begin forwarded message", "Anfang der weitergeleiteten Nachricht", "Začátek přeposílané zprávy",
    "Start på videresendt besked", "Inicio del mensaje reenviado", "Välitetty viesti alkaa",
    "Début du message réexpédié", "Début du message transféré", "Započni proslijeđenu poruku",
    "Továbbított levél kezdete", "Inizio messaggio inoltrato", "Begin doorgestuurd bericht",
    "Videresendt melding", "Początek przekazywanej wiadomości", "Início da mensagem reencaminhada",
    "Início da mensagem encaminhada", "Începe mesajul redirecționat",
    "Начало переадресованного сообщения", "Začiatok preposlanej správy", "Vidarebefordrat mejl",
    "İleti başlangıcı", "Початок листа, що пересилається",
)
_FORWARD_LINE = re.compile(
    rf"^(?P<quotes>(?:> ?)*)[ \t]*(?:(?:{'|'.join(map(re.escape, _FORWARD_WORDS))})[ \t]?:"
    r"|-{5,}[ \t]*Forwarded message[ \t]*-{5,})[ \t]*$",
    re.M | re.I,
)


def html_to_text(html: str) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "head"]):
        tag.decompose()
    # Gmail and Outlook wrap quoted replies in these; the quoted part is another e-mail's words,
    # unless it is a forward (Apple Mail and Gmail wrap those the same way), which is kept
    for tag in soup.select("blockquote, .gmail_quote, #appendonsend, #divRplyFwdMsg"):
        if tag.decomposed:
            continue
        first = next(iter(tag.stripped_strings), "")
        if _FORWARD_LINE.match(first):
            tag.unwrap()
        else:
            tag.decompose()
    lines = (" ".join(line.split()) for line in soup.get_text("\n").split("\n"))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _unquote(text: str, levels: int) -> str:
    """Remove `levels` of `>` quoting from the start of each line."""
    if not levels:
        return text
    return re.sub(rf"^(?:> ?){{1,{levels}}}", "", text, flags=re.M)


def _find_forward(text: str) -> re.Match[str] | None:
    """The first forward marker line. Every marker ends in a colon, or is Gmail's dashed line,
    so only those lines are tried: running the regex over every body was a tenth of an mbox
    import's time."""
    candidates: list[int] = []
    at = text.find("Forwarded message")
    if at >= 0:
        candidates.append(text.rfind("\n", 0, at) + 1)
    end = text.find(":")
    while end >= 0:
        line_end = text.find("\n", end)
        if line_end < 0:
            line_end = len(text)
        if not text[end + 1:line_end].strip():  # the colon ends its line
            candidates.append(text.rfind("\n", 0, end) + 1)
        end = text.find(":", line_end)
    for line_start in sorted(candidates):
        found = _FORWARD_LINE.match(text, line_start)
        if found:
            return found
    return None


def strip_quoted(text: str) -> str:
    """The e-mail's own words: cut at the quoted chain, drop `>` lines left in between. A
    forwarded e-mail is kept (its quoting removed), with what it forwards in turn."""
    text = text.replace("\r\n", "\n")
    forward = _find_forward(text)
    if forward is None:
        return _own_words(text)
    own = _own_words(text[: forward.start()])
    marker = forward.group().lstrip("> \t")
    forwarded = strip_quoted(_unquote(text[forward.end():], forward["quotes"].count(">")))
    return "\n\n".join(part for part in (own, f"{marker}\n{forwarded}".strip()) if part)


def _own_words(text: str) -> str:
    match = _QUOTE_HEADERS.search(text)
    if match:
        text = text[: match.start()]
    own = [line for line in text.split("\n") if not line.startswith(">")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(own)).strip()


def _is_attachment(part: EmailMessage) -> bool:
    return (part.get("Content-Disposition") or "").strip().lower().startswith("attachment")


def _first_part(message: EmailMessage, content_type: str) -> EmailMessage | None:
    for part in message.walk():
        if part.get_content_type() == content_type and not _is_attachment(part):
            return part
    return None


def body_text(message: EmailMessage) -> str:
    plain = _first_part(message, "text/plain")
    if plain is not None:
        return strip_quoted(decode_part(plain))
    html = _first_part(message, "text/html")
    if html is not None:
        return strip_quoted(html_to_text(decode_part(html)))
    return ""


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
            text = str(make_header([(words, _superset(charset) if charset else charset)
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


# --- mbox -------------------------------------------------------------------------------------

def _from_line_time(line: bytes) -> datetime | None:
    text = line.decode("ascii", errors="replace").split(None, 2)
    if len(text) < 3:
        return None
    rest = " ".join(text[2].split())
    for layout in ("%a %b %d %H:%M:%S %z %Y", "%a %b %d %H:%M:%S %Y"):
        try:
            moment = datetime.strptime(rest, layout)
        except ValueError:
            continue
        return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    return None


def _is_blank(line: bytes) -> bool:
    return line in (b"\n", b"\r\n")


def _opens_message(line: bytes, stream: IO[bytes], *, after_blank: bool) -> bool:
    """Whether a `From ` line starts a message.

    The mbox family writes `From ` and then anything: an address and a date (`From
    MAILER-DAEMON Fri Jul  8 12:08:34 2011`, Gmail's), a dash and a date (Netscape, Mozilla and
    Thunderbird: `From - Tue Oct 02 00:26:47 2007`), an id alone, or nothing at all. After a
    blank line any such line opens a message, as mboxo defines it (a body's own lines are
    quoted `>From `). Netscape and Thunderbird also wrote separators straight after the
    previous body: there a `From ` line opens a message only when a header line follows it, so
    an unquoted "From ..." inside a paragraph stays in its body.
    """
    if after_blank:
        return True
    at = stream.tell()
    following = stream.readline()
    stream.seek(at)
    return bool(_FIELD_LINE.match(following))


def _unglued(line: bytes) -> tuple[bytes, bytes]:
    """A From_ line and the header a writer glued to it (`From a@b Mon Feb  9 17:30:46
    2009MIME-Version: 1.0`, backupmaillib's Gmail backups), apart; else the line and nothing."""
    glued = _GLUED_HEADER.match(line)
    if glued is None:
        return line, b""
    return line[: glued.end("separator")] + b"\n", line[glued.end("separator"):]


def _content_length(header_lines: list[bytes]) -> int | None:
    for line in header_lines:
        found = _CONTENT_LENGTH.match(line)
        if found:
            return int(found.group(1))
    return None


def _body_by_length(stream: IO[bytes], length: int) -> bytes | None:
    """The body a Content-Length header (mboxcl, mboxcl2) promises, or None when the count is
    wrong: it must end at the end of the file or just before the next message's From_ line
    (with at most one blank line between), as mutt and MimeKit check it. A wrong count (a file
    edited by hand, or joined from others) is then ignored and the From_ lines decide."""
    at = stream.tell()
    body = stream.read(length)
    after = stream.tell()
    if len(body) == length:
        following = stream.readline()
        if _is_blank(following):
            following = stream.readline()
        if not following or (following.startswith(b"From ")
                             and _opens_message(following, stream, after_blank=True)):
            stream.seek(after)
            return body
    stream.seek(at)
    return None


def split_mbox(stream: IO[bytes]) -> Iterator[tuple[bytes, bytes]]:
    """(From_ line, message bytes) pairs, read incrementally (a seekable binary stream).

    A `From ` line starts a message after a blank line (or at the start of the file), and
    straight after a body when a header line follows it (see `_opens_message`); a body's own
    quoted `>From ` lines are undone, as mboxrd does. Where a message's headers carry a
    Content-Length that agrees with the file, its body is taken by that count, whatever it
    holds.
    """
    from_line: bytes | None = None
    lines: list[bytes] = []
    previous_blank = True
    in_headers = False
    first = True
    while line := stream.readline():
        if first:
            line, first = line.removeprefix(b"\xef\xbb\xbf"), False  # a BOM some tools write
        if line.startswith(b"From ") and _opens_message(line, stream, after_blank=previous_blank):
            if from_line is not None:
                yield from_line, b"".join(lines)
            from_line, glued = _unglued(line)
            lines, in_headers, previous_blank = [glued] if glued else [], True, False
            continue
        previous_blank = _is_blank(line)
        if in_headers and previous_blank:
            in_headers = False
            lines.append(line)
            length = _content_length(lines)
            body = _body_by_length(stream, length) if length is not None else None
            if body is not None:
                lines.append(body)
                previous_blank = True  # what follows is the next From_ line, or nothing
            continue
        if not in_headers and line.startswith(b">") and _FROM_ESCAPE.match(line):
            line = line[1:]
        lines.append(line)
    if from_line is not None:
        yield from_line, b"".join(lines)


class MboxImporter(ImporterBase):
    name = "email"

    def sniff(self, path: Path, head: bytes) -> bool:
        lines = head.removeprefix(b"\xef\xbb\xbf").lstrip(b"\r\n").split(b"\n", 2)  # a BOM, a blank line
        if len(lines) < 2 or not lines[0].startswith(b"From "):
            return False
        if _FROM_LINE.match(lines[0].rstrip(b"\r") + b"\n"):
            return True
        # Thunderbird saves a single .eml with its `From - ` line: that is one e-mail, not a mailbox
        return path.suffix.lower() != ".eml" and bool(_FIELD_LINE.match(lines[1]))

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
                                            _from_line_time(from_line))
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
