"""An mbox file cut into its e-mails, read incrementally: a 2 GB Google Takeout is never in
memory (the stdlib `mailbox` module indexes the whole file first and splits on any line starting
"From "). The mbox family's variants (mboxo, mboxrd, mboxcl, Netscape's separators) are described
in shared/EXPORT_FORMATS.md §7.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import IO

FROM_LINE = re.compile(
    rb"^From \S+\s+\w{3} \w{3}\s+\d{1,2} \d{1,2}:\d\d(?::\d\d)?(?: (?P<tz>[+-]\d{4}))? \d{4}\s*$"
)
_FROM_ESCAPE = re.compile(rb"^>(>*From )")
#: a header line that opens an e-mail after an undated From_ line: a field mail programs write
#: (or any X- field), not a body's "Monday: ..." after a paragraph that begins "From ..."
FIELD_LINE = re.compile(
    rb"^(?:X-[A-Za-z0-9-]+|From|To|Cc|Bcc|Date|Subject|Message-ID|Received|Return-Path|Delivered-To"
    rb"|MIME-Version|Content-Type|Content-Transfer-Encoding|Reply-To|Sender|Status|References"
    rb"|In-Reply-To|Path|Newsgroups|Envelope-To|DKIM-Signature|ARC-[A-Za-z-]+"
    rb"|Authentication-Results|Received-SPF|Thread-Topic|Thread-Index|List-[A-Za-z-]+|Precedence"
    rb"|Organization|User-Agent|Importance|Priority):", re.I)
_GLUED_HEADER = re.compile(rb"^(?P<separator>From \S+ +\w{3} \w{3} +\d{1,2} \d{1,2}:\d\d(?::\d\d)?"
                           rb"(?: [+-]\d{4})? \d{4})[A-Za-z][A-Za-z0-9-]{1,40}:")
_CONTENT_LENGTH = re.compile(rb"^Content-Length:[ \t]*(\d+)[ \t]*\r?$", re.I)



def from_line_time(line: bytes) -> datetime | None:
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
    return bool(FIELD_LINE.match(following))


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
