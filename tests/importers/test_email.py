"""E-mail: Takeout mbox, .eml, Apple Mail .emlx (shared/EXPORT_FORMATS.md §7)."""

from __future__ import annotations

import base64
import io
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.errors import ImportFailed
from core.importers.base import ImportContext
from core.importers.email import MboxImporter
from core.importers.email_body import strip_quoted
from core.importers.email_mbox import split_mbox
from core.types import SearchFilters
from tests.importers.conftest import only_messages, parse_all

MBOX = (
    b"From 1790123456789012345@xxx Tue Mar 05 21:07:44 +0000 2024\r\n"
    b"X-GM-THRID: 1790123456789012345\r\n"
    b"X-Gmail-Labels: Sent,Opened,Trips\r\n"
    b"MIME-Version: 1.0\r\n"
    b"Date: Tue, 5 Mar 2024 21:07:44 +0000\r\n"
    b"Message-ID: <CAF3x-example-4711@mail.example.com>\r\n"
    b"Subject: =?UTF-8?Q?Lisbon_=E2=9C=88?=\r\n"
    b"From: Mara Lind <mara@example.com>\r\n"
    b"To: Teo Ramos <teo@example.org>\r\n"
    b'Content-Type: text/plain; charset="UTF-8"\r\n'
    b"\r\n"
    b"Flights are booked, Friday 06:40.\r\n"
    b">From now on we share the calendar.\r\n"
    b"\r\n"
    b"From 1790123456789012399@xxx Tue Mar 05 22:00:00 +0000 2024\r\n"
    b"X-Gmail-Labels: Inbox,Trips\r\n"
    b"Date: Tue, 5 Mar 2024 22:00:00 +0100\r\n"
    b"Message-ID: <reply-1@example.org>\r\n"
    b"In-Reply-To: <CAF3x-example-4711@mail.example.com>\r\n"
    b"Subject: Re: Lisbon\r\n"
    b"From: =?ISO-8859-1?Q?Te=F3_Ramos?= <teo@example.org>\r\n"
    b"To: mara@example.com\r\n"
    b"MIME-Version: 1.0\r\n"
    b'Content-Type: multipart/alternative; boundary="b1"\r\n'
    b"\r\n"
    b"--b1\r\n"
    b'Content-Type: text/html; charset="iso-8859-1"\r\n'
    b"\r\n"
    b"<p>Great, caf\xe9 at the airport?</p><blockquote>old words</blockquote>\r\n"
    b"--b1\r\n"
    b'Content-Type: text/plain; charset="iso-8859-1"\r\n'
    b"\r\n"
    b"Great, caf\xe9 at the airport?\r\n"
    b"\r\n"
    b"On Tue, 5 Mar 2024 at 21:07, Mara Lind <mara@example.com>\r\n"
    b"wrote:\r\n"
    b"> Flights are booked, Friday 06:40.\r\n"
    b"--b1--\r\n"
    b"\r\n"
    b"From 1790123456789012400@xxx Wed Mar 06 08:00:00 +0000 2024\r\n"
    b"X-Gmail-Labels: Spam\r\n"
    b"Date: Wed, 6 Mar 2024 08:00:00 +0000\r\n"
    b"From: Prize <win@example.net>\r\n"
    b"Subject: You won\r\n"
    b"\r\n"
    b"Click.\r\n"
    b"\r\n"
    b"From 1790123456789012401@xxx Wed Mar 06 09:00:00 +0000 2024\r\n"
    b"From: Ana Sousa <ana@example.com>\r\n"
    b"Subject: html only\r\n"
    b'Content-Type: text/html; charset="us-ascii"\r\n'
    b"\r\n"
    b"<html><body><h1>Hello</h1><p>S\xc3\xa3o Paulo photos</p><script>x()</script></body></html>\r\n"
)


def test_mbox_takeout(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "All mail Including Spam and Trash.mbox"
    path.write_bytes(MBOX)
    [(document, messages)] = parse_all(path, context)
    assert document.conversation is not None
    assert document.conversation.key == "email:mbox:All mail Including Spam and Trash"
    first, reply, html_only = messages  # the spam is skipped
    assert first.sender == "Mara Lind" and first.sender_id == "mara@example.com" and first.is_owner
    assert first.platform_id == "CAF3x-example-4711@mail.example.com"
    assert first.text == ("Subject: Lisbon \u2708\nTo: Teo Ramos\n\n"
                          "Flights are booked, Friday 06:40.\nFrom now on we share the calendar.")
    assert first.time == datetime(2024, 3, 5, 21, 7, 44, tzinfo=timezone.utc)
    assert first.time.tzinfo is context.timezone
    assert reply.sender == "Teó Ramos" and not reply.is_owner
    assert reply.reply_to == "CAF3x-example-4711@mail.example.com"
    assert reply.text.endswith("Great, café at the airport?")  # quoted chain stripped
    assert "Flights are booked" not in reply.text
    assert reply.time == datetime(2024, 3, 5, 21, 0, tzinfo=timezone.utc)
    # no Date header: the From_ line's time; HTML only: turned into text, declared ASCII was UTF-8
    assert html_only.time == datetime(2024, 3, 6, 9, 0, tzinfo=timezone.utc)
    assert "São Paulo photos" in html_only.text and "x()" not in html_only.text


def test_mbox_split_is_incremental_and_strict() -> None:
    data = (b"From a@b Tue Mar 05 21:07:44 2024\n\nbody\nFrom here on, a body line\n\n"
            b"From c@d Tue Mar 05 21:08:44 2024\n\nsecond\n")
    parts = list(split_mbox(io.BytesIO(data)))
    assert len(parts) == 2
    assert b"From here on, a body line" in parts[0][1]


def test_overlapping_mbox_exports_share_message_ids(tmp_path: Path, context: ImportContext) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    older = tmp_path / "a" / "Trips.mbox"
    newer = tmp_path / "b" / "Trips.mbox"
    older.write_bytes(MBOX.split(b"\r\nFrom 1790123456789012400")[0])
    newer.write_bytes(MBOX)
    [(d1, m1)] = parse_all(older, context)
    [(d2, m2)] = parse_all(newer, context)
    assert d1.conversation.key == d2.conversation.key
    assert [m.platform_id for m in m1] == [m.platform_id for m in m2][:2]


def test_eml_and_emlx(tmp_path: Path, context: ImportContext) -> None:
    message = (b"Date: Tue, 5 Mar 2024 21:09:30 +0000\nFrom: Teo Ramos <teo@example.org>\n"
               b"To: Mara Lind <mara@example.com>\nSubject: Re: Lisbon\nMessage-ID: <x1@example.org>\n"
               b"Content-Type: text/plain; charset=utf-8\n\nSee you at the gate.\n")
    eml = tmp_path / "reply.eml"
    eml.write_bytes(message)
    [(document, [m])] = parse_all(eml, context)
    assert document.conversation.key == "email:thread:lisbon"
    assert m.sender == "Teo Ramos" and m.text.endswith("See you at the gate.")
    emlx = tmp_path / "1234.emlx"
    plist = (b'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>'
             b"<key>date-received</key><integer>1709672970</integer></dict></plist>\n")
    emlx.write_bytes(f"{len(message)}\n".encode() + message + plist)
    [m2] = only_messages(emlx, context)
    assert m2.platform_id == "x1@example.org" and m2.time == m.time


def test_emlx_cut_short(tmp_path: Path, context: ImportContext) -> None:
    emlx = tmp_path / "1.emlx"
    emlx.write_bytes(b"5000\nDate: Tue, 5 Mar 2024 21:09:30 +0000\nFrom: a@b.c\nSubject: x\n\nhi\n")
    with pytest.raises(ImportFailed, match="1.emlx: is cut short"):
        parse_all(emlx, context)


def test_strip_quoted_variants() -> None:
    assert strip_quoted("Yes!\n\n-----Original Message-----\nFrom: x\nold") == "Yes!"
    assert strip_quoted("Ja.\n\nAm 5. März 2024 schrieb Mara Lind <m@x>:\n> alt") == "Ja."
    assert strip_quoted("mine\n> theirs\nmine again") == "mine\nmine again"


def test_mbox_sniff_needs_a_real_from_line(tmp_path: Path) -> None:
    assert not MboxImporter().sniff(tmp_path / "x.txt", b"From the start of my journal\n")


# --- real Thunderbird and mbox_creator mailboxes (tests/importers/data/email, MPL-2.0) ---------

MAILBOXES = Path(__file__).parent / "data" / "email"


def _independent(path: Path) -> list[tuple[str, str]]:
    """(From, Subject) of each message as Python's own mbox reader splits the file."""
    import mailbox

    return [(m["From"], " ".join((m["Subject"] or "").split())) for m in mailbox.mbox(str(path))]


@pytest.mark.parametrize("name, count", [
    ("thunderbird_mbox_modern", 2),      # From - Fri Aug 24 11:55:47 2018
    ("thunderbird_movemailspool", 3),    # From - ..., three real bugmails
    ("thunderbird_migration", 3),        # a bare `From ` line
    ("mbox_creator_test_mailbox", 42),   # a bare `From ` line, another writer
    ("thunderbird_mbox_mboxrd", 2),      # Gmail-style dated From_ lines, >From escapes
])
def test_every_from_line_the_mbox_family_writes_opens_a_message(
        tmp_path: Path, context: ImportContext, name: str, count: int) -> None:
    path = tmp_path / f"{name}.mbox"
    path.write_bytes((MAILBOXES / name).read_bytes())
    [(document, messages)] = parse_all(path, context)
    expected = _independent(path)
    assert len(messages) == len(expected) == count
    for message, (sender, subject) in zip(messages, expected):
        assert sender.lower().endswith((message.sender_id or "").lower() + ">") or \
            sender.lower() == message.sender_id
        assert message.text.startswith(f"Subject: {_decoded_subject(subject)}")


def _decoded_subject(raw: str) -> str:
    from email.header import decode_header, make_header

    return str(make_header(decode_header(raw)))


def test_the_date_header_dates_each_message_not_the_from_line(tmp_path: Path,
                                                              context: ImportContext) -> None:
    path = tmp_path / "Inbox"  # Thunderbird's folders have no extension
    path.write_bytes((MAILBOXES / "thunderbird_movemailspool").read_bytes())
    [(_, messages)] = parse_all(path, context)
    # the From_ lines say 2007, 2008, 2007; the Date headers (read by hand) say otherwise
    assert [m.time for m in messages] == [
        datetime(2008, 5, 7, 21, 55, 10, tzinfo=timezone.utc),
        datetime(2008, 6, 6, 22, 53, 42, tzinfo=timezone.utc),  # 04:23:42 +0530
        datetime(2008, 5, 7, 21, 55, 10, tzinfo=timezone.utc)]
    assert messages[1].sender == "Some User"


def test_an_unquoted_from_inside_a_body_does_not_split_it(tmp_path: Path,
                                                          context: ImportContext) -> None:
    """Old Thunderbird left a body's `From ` line unquoted; it follows no blank line, so it is
    the body's. Python's mailbox (mboxo: any `From ` line) splits it in three; the file's own
    text, and Thunderbird's test of it, say two."""
    path = tmp_path / "unquoted.mbox"
    path.write_bytes((MAILBOXES / "thunderbird_mbox_unquoted").read_bytes())
    [(_, messages)] = parse_all(path, context)
    assert len(_independent(path)) == 3
    assert len(messages) == 2
    assert "don't seem to quote things like this:\nFrom \nThis could cause problems" in messages[0].text
    assert messages[1].time == datetime(2005, 8, 23, 11, 17, 43, tzinfo=timezone.utc)


def test_content_length_keeps_a_body_whole_and_a_wrong_one_is_ignored(tmp_path: Path,
                                                                      context: ImportContext) -> None:
    """mboxcl2: bodies unquoted, their length in a header. The real Thunderbird messages are
    given a body whose `From ` line follows a blank line and a header-like line, which only the
    count can keep whole; then the same file with a count that ends inside the body, which must be ignored."""
    body = (b"Forwarded below.\n\nFrom \nDate: Fri, 24 Aug 2018 11:00:00 +0000\n"
            b"Subject: not a new message\n\nstill the first body\n")

    def mailbox_with(delta: int) -> bytes:
        spool = (MAILBOXES / "thunderbird_mbox_modern").read_bytes().split(b"\n\nFrom - ")
        first_head = spool[0].split(b"\n\n")[0]
        second = b"From - " + spool[1]
        return (first_head + f"\nContent-Length: {len(body) + delta}\n\n".encode() + body
                + b"\n" + second)

    exact = tmp_path / "exact.mbox"
    exact.write_bytes(mailbox_with(0))
    [(_, messages)] = parse_all(exact, context)
    assert len(messages) == 2
    assert "still the first body" in messages[0].text and "Sample message 2" in messages[1].text
    wrong = tmp_path / "wrong.mbox"
    wrong.write_bytes(mailbox_with(-7))
    [(_, messages)] = parse_all(wrong, context)
    assert [m.text.split("\n")[0] for m in messages] == [
        "Subject: Sample message 1", "Subject: not a new message", "Subject: Sample message 2"]


def test_a_file_named_mbox_that_is_not_one_says_what_was_expected(tmp_path: Path) -> None:
    from core.errors import UnsupportedFormat
    from core.importers import default_importers, pick_importer

    path = tmp_path / "Sent.mbox"
    path.write_bytes(b"Subject: hello\n\nno From_ line here\n")
    with pytest.raises(UnsupportedFormat) as raised:
        pick_importer(path, default_importers())
    assert "mbox" in str(raised.value) and "extension" not in str(raised.value)
    assert "rename" not in raised.value.hint and "export" in raised.value.hint


# --- real Apple Mail messages (tests/importers/data/email, partial-emlx-converter, MIT) -------

DATA = Path(__file__).parent / "data" / "email"


def _emlx_message(name: str) -> bytes:
    """The RFC 822 message inside an .emlx (a byte count line, the message, a plist)."""
    data = (DATA / name).read_bytes()
    first, _, rest = data.partition(b"\n")
    return rest[: int(first.strip())]


def _with_headers(message: bytes, **changes: bytes | None) -> bytes:
    """The message with some headers replaced (a value) or removed (None), all occurrences."""
    head, _, body = message.partition(b"\n\n")
    lines: list[bytes] = []
    skipping = False
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t"):
            if not skipping:
                lines.append(line)
            continue
        name = line.split(b":", 1)[0].decode().replace("-", "_").lower().rstrip("_")
        key = name + "_" if name + "_" in changes else name  # from_: `from` is a keyword
        skipping = key in changes
        if not skipping:
            lines.append(line)
        elif changes[key] is not None:
            lines.append(line.split(b":", 1)[0] + b": " + changes[key])  # type: ignore[operator]
    return b"\n".join(lines) + b"\n\n" + body


def test_apple_mail_forward_keeps_the_forwarded_mail(context: ImportContext) -> None:
    """Apple Mail quotes a forward like a reply (`> Anfang der weitergeleiteten Nachricht:`,
    blockquote type=cite): it was cut as quoted history and the e-mail lost its whole body."""
    [(document, [message])] = parse_all(DATA / "114892.partial.emlx", context)
    assert message.time == datetime(2018, 1, 26, 21, 1, 16, tzinfo=timezone.utc)
    assert message.text.count("Anfang der weitergeleiteten Nachricht:") == 3  # a forward of a forward
    assert "But I must explain to you how all this mistaken idea" in message.text
    assert "Lorem ipsum dolor sit amet, consetetur sadipscing elitr" in message.text
    assert not any(line.startswith(">") for line in message.text.split("\n"))


def test_apple_mail_forward_in_html_is_kept() -> None:
    from email import message_from_bytes, policy

    from core.importers.email_body import decode_part, html_to_text

    parsed = message_from_bytes(_emlx_message("114892.partial.emlx"), policy=policy.compat32)
    html = [decode_part(p) for p in parsed.walk() if p.get_content_type() == "text/html"]
    text = html_to_text(html[2])  # the part that holds the forwarded mail's words
    assert text.startswith("Anfang der weitergeleiteten Nachricht:")
    assert "But I must explain to you" in text
    assert "Reply text" not in html_to_text("<p>Reply text</p>".join(["<blockquote>", "</blockquote>"]))


def test_raw_utf8_headers_are_decoded(tmp_path: Path, context: ImportContext) -> None:
    message = _with_headers(_emlx_message("11507.emlx"),
                            subject="Grüße aus Köln – Anmeldung".encode(),
                            from_="Jürgen Weiß <jw@example.nl>".encode())
    path = tmp_path / "anmeldung.eml"
    path.write_bytes(message)
    [(document, [mail])] = parse_all(path, context)
    assert mail.sender == "Jürgen Weiß" and mail.sender_id == "jw@example.nl"
    assert mail.text.startswith("Subject: Grüße aus Köln – Anmeldung")
    assert document.name == "E-mail: Grüße aus Köln – Anmeldung"
    assert "\ufffd" not in mail.text


@pytest.mark.parametrize("date", [None, b"Thu, 18 Apr 3609 14:00:29 +0200", b"soon"])
def test_missing_or_absurd_date_is_taken_from_received(tmp_path: Path, context: ImportContext,
                                                       date: bytes | None) -> None:
    path = tmp_path / "php.eml"
    path.write_bytes(_with_headers(_emlx_message("11507.emlx"), date=date))
    [(document, [mail])] = parse_all(path, context)
    # the newest Received line: "...; Thu, 18 Apr 2019 14:00:49 +0200 (CEST)"
    assert mail.time == datetime(2019, 4, 18, 12, 0, 49, tzinfo=timezone.utc)
    assert document.note == "no usable Date header: dated from its Received header"


def test_an_email_with_no_date_at_all_is_kept_undated(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "php.eml"
    path.write_bytes(_with_headers(_emlx_message("11507.emlx"), date=None, received=None))
    [(document, [mail])] = parse_all(path, context)
    assert (mail.sender, mail.time) == ("REDACTED", None) and document.time_start is None
    assert mail.text.startswith("Subject: REDACTED")
    assert document.note == "no usable Date or Received header: kept undated"


async def test_mbox_starting_with_a_blank_line_and_its_undated_mail(tmp_path: Path, embedder) -> None:
    """Two real messages in an mbox that starts with a blank line, a third with no date at all
    (its From_ line says year 3609): it is kept with its sender and no time, and the summary
    says so; a search by date leaves it out."""
    from tests.core.helpers import memory_at

    forward = _emlx_message("114892.partial.emlx")
    php = _emlx_message("11507.emlx")
    undated = _with_headers(php, date=None, received=None, message_id=b"<undated@example.nl>")
    mbox = tmp_path / "Archive.mbox"
    mbox.write_bytes(b"\n" + b"".join(
        b"From " + sender + b" " + stamp + b"\n" + message + b"\n"
        for sender, stamp, message in (
            (b"philipp@philippkatz.de", b"Fri Jan 26 21:01:16 +0000 2018", forward),
            (b"p20032@example.nl", b"Thu Apr 18 12:00:29 +0000 2019", php),
            (b"p20032@example.nl", b"Thu Apr 18 12:00:29 +0000 3609", undated))))
    async with memory_at(tmp_path / "data", embedder) as memory:
        report = await memory.ingest([mbox], index=False)
        async with memory.conn.execute("SELECT name, time_start FROM documents") as cur:
            documents = [tuple(r) for r in await cur.fetchall()]
        async with memory.conn.execute("SELECT sender, sender_id, time FROM messages ORDER BY id") as cur:
            messages = [tuple(r) for r in await cur.fetchall()]
        everything = await memory.search("REDACTED", mode="keyword")
        dated = await memory.search("REDACTED", mode="keyword", filters=SearchFilters(
            since=datetime(2000, 1, 1, tzinfo=timezone.utc)))
    assert report.errors == [] and report.messages_added == 3
    assert report.remarks == {"e-mails with no date at all, kept undated": 1}
    assert documents == [("E-mail: Archive", "2018-01-26T21:01:16Z")]
    assert messages[2][2] is None and messages[1][:2] == messages[2][:2]
    assert None in [hit.time_start for hit in everything]  # the undated one is found by its words
    assert dated and None not in [hit.time_start for hit in dated]  # and left out by dates


def test_a_relayed_mail_with_pages_of_headers_and_no_extension_is_an_email(tmp_path: Path,
                                                                             context: ImportContext) -> None:
    """As SpamScope/mail-parser's `mail_test_17` (Apache-2.0) came: saved with no extension, its
    From and Subject after some 80 lines of Received, Authentication-Results and anti-spam
    headers. It was refused as a file of unknown extension."""
    from core.importers import default_importers
    from core.importers.email import EmlImporter
    from core.importers.registry import pick_importer

    relay = "".join(f"X-IronPort-Data{i}: A9a23:{'P' * 60}\r\n {'q' * 70}\r\n" for i in range(40))
    mail = ("Received: from relay.example.net (198.51.100.7) by mx.example.org\r\n"
            " with SMTP; Mon, 10 Oct 2022 15:11:35 -0500\r\n" + relay +
            "From: Banco <avisos@banco.example>\r\nTo: ana@example.org\r\n"
            "Subject: Transferencia recibida\r\nDate: Mon, 10 Oct 2022 15:11:32 -0500\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n\r\nRecibiste una transferencia.\r\n")
    path = tmp_path / "mail_test_17"
    path.write_bytes(mail.encode())
    assert isinstance(pick_importer(path, default_importers()), EmlImporter)
    [message] = only_messages(path, context)
    assert message.sender == "Banco"
    assert "Recibiste una transferencia." in message.text


def test_gbk_text_labelled_gb2312_and_a_broken_byte_in_utf8_are_read(tmp_path: Path,
                                                                       context: ImportContext) -> None:
    """Two things real mail does (SpamScope/mail-parser's `mail_test_9` and `mail_test_6`,
    Apache-2.0): GBK text labelled gb2312, whose subject was left as raw encoded words; and one
    cut character in a UTF-8 body, which turned the whole Russian text into cp1252 mojibake."""
    subject = "王堃的发票"  # 堃 is GBK, not GB2312
    gbk = base64.b64encode(subject.encode("gbk")).decode()
    chinese = (f"From: a@example.cn\r\nTo: b@example.org\r\nSubject: =?gb2312?B?{gbk}?=\r\n"
               "Date: Mon, 26 Dec 2016 13:33:31 +0800\r\nMIME-Version: 1.0\r\n"
               "Content-Type: text/plain; charset=gb2312\r\nContent-Transfer-Encoding: base64\r\n\r\n"
               f"{base64.b64encode(subject.encode('gbk')).decode()}\r\n").encode()
    russian = ("From: b@example.ru\r\nTo: c@example.org\r\nSubject: Profile\r\n"
               "Date: Sat, 15 Jul 2017 09:18:41 +0000\r\nMIME-Version: 1.0\r\n"
               "Content-Type: text/plain; charset=UTF-8\r\n\r\n").encode() + \
        "Профиль и сообщения".encode() + b" \xd1f. " + "Контакты".encode() + b"\r\n"
    (tmp_path / "cn.eml").write_bytes(chinese)
    (tmp_path / "ru.eml").write_bytes(russian)
    [cn] = only_messages(tmp_path / "cn.eml", context)
    [ru] = only_messages(tmp_path / "ru.eml", context)
    assert subject in cn.text and "=?gb2312?" not in cn.text
    assert "Профиль и сообщения" in ru.text and "Контакты" in ru.text and "Ð" not in ru.text


def test_a_note_that_starts_with_from_is_no_mailbox(tmp_path: Path) -> None:
    """A file opens as an mbox only with a dated From_ line or a mail header after its `From `."""
    note = tmp_path / "trip"
    note.write_bytes(b"From Lisbon to Porto by train\nMonday: the 8:00 Alfa Pendular\n")
    assert not MboxImporter().sniff(note, note.read_bytes())


MIMEKIT = Path(__file__).parents[1] / "conformance" / "files" / "mbox" / "jstedfast-MimeKit"


@pytest.mark.parametrize("name, count", [
    ("simple.mbox.txt", 3),     # "From - " straight after the previous body, no blank line
    ("unmunged.mbox.txt", 4),   # a BOM, bare "From -", unquoted "From Russia with love" lines
    ("issue1189.mbox.txt", 4),  # Gmail's "From <id>@xxx" with no date
])
def test_mimekit_s_mailboxes_split_as_mimekit_reads_them(tmp_path: Path, name: str, count: int) -> None:
    """MimeKit's test mailboxes (MIT), with the counts its own parser gives (the conformance
    manifest): after a blank line any `From ` line opens a message (mboxo); straight after a
    body, one followed by a header line does."""
    path = tmp_path / name.replace(".txt", "")
    path.write_bytes((MIMEKIT / name).read_bytes())
    [(document, messages)] = parse_all(path, ImportContext())
    assert len(messages) == count  # undated ones too, each with its sender
    assert document.remarks["e-mails with no date at all, kept undated"] == sum(
        m.time is None for m in messages)


def test_a_separator_glued_to_the_first_header_is_two_lines(tmp_path: Path) -> None:
    """backupmaillib's Gmail backups glue the first header to the From_ line (`From a@b Mon Feb
    9 17:30:46 2009MIME-Version: 1.0`): the real mboxrd file, glued so, still splits in two."""
    original = (MAILBOXES / "thunderbird_mbox_mboxrd").read_bytes()
    glued = original.replace(b"2011\nFrom: Author", b"2011From: Author")
    assert glued.count(b"2011From: Author") == 2
    path = tmp_path / "inbox.mbox"
    path.write_bytes(glued)
    [(_, messages)] = parse_all(path, ImportContext())
    assert [m.sender for m in messages] == ["Author", "Author"]
    assert [m.text.split("\n")[0] for m in messages] == ["Subject: Sample message 1",
                                                         "Subject: Sample message 2"]


CORPUS_EML = Path(__file__).parents[1] / "conformance" / "files" / "eml" / "nodemailer-mailparser"


@pytest.mark.parametrize("name, sender", [("nested.eml", "u@example.com"),
                                          ("base64encodedroot.eml", "test@example.com"),
                                          ("mixed.eml", "unknown sender")])
def test_an_eml_with_few_headers_is_an_email_not_an_unsupported_extension(
        tmp_path: Path, context: ImportContext, name: str, sender: str) -> None:
    """nodemailer's mailparser fixtures (MIT): an .eml with From and no Date, and a MIME part
    saved alone with only Content-Type. They are e-mails, each a message from its sender with
    no time (they carry no date)."""
    path = tmp_path / name
    path.write_bytes((CORPUS_EML / name).read_bytes())
    [(document, [mail])] = parse_all(path, context)
    assert document.kind == "email" and (mail.sender, mail.time) == (sender, None)
    assert document.note == "no usable Date or Received header: kept undated"


def test_an_emlx_without_its_byte_count_is_read(tmp_path: Path, context: ImportContext) -> None:
    """The real Apple Mail message with its first line (the byte count) cut off, as terhechte's
    emlx library's broken2.emlx has it: the message and its plist remain."""
    data = (DATA / "11507.emlx").read_bytes()
    path = tmp_path / "broken.emlx"
    path.write_bytes(data.partition(b"\n")[2])
    [(_, [message])] = parse_all(path, context)
    [(_, [whole])] = parse_all(DATA / "11507.emlx", context)
    assert (message.sender, message.time, message.text) == (whole.sender, whole.time, whole.text)


def test_addresses_written_without_commas_are_addresses(tmp_path: Path, context: ImportContext) -> None:
    """mikel/mail's raw_email_multiple_from.eml (MIT): From and To hold two addresses with no
    comma; Python's parseaddr, read by hand, gives the first as the sender."""
    source = Path(__file__).parents[1] / "conformance" / "files" / "eml" / "mikel-mail" / "raw_email_multiple_from.eml"
    path = tmp_path / "multiple_from.eml"
    path.write_bytes(source.read_bytes())
    [(_, [message])] = parse_all(path, context)
    assert (message.sender, message.sender_id) == ("tim@powerupdev.com", "tim@powerupdev.com")
    assert "To: tim@powerupdev.com, concierge@powerupdev.com" in message.text


def test_an_address_with_comments_is_read_as_the_standard_reads_it(tmp_path: Path,
                                                                    context: ImportContext) -> None:
    """RFC 5322's own example A.5 (mikel/mail's fixture, MIT): `From: Pete(A wonderful \\) chap)
    <pete(his account)@silly.test(his host)>` is Pete at pete@silly.test, as the RFC says; its
    Date (1969, before e-mail) is not used, and the message is kept undated with its sender."""
    path = tmp_path / "example10.eml"
    path.write_bytes((CORPUS_EML.parent / "mikel-mail" / "example10.eml").read_bytes())
    [(_, [mail])] = parse_all(path, context)
    assert (mail.sender, mail.sender_id, mail.time) == ("Pete", "pete@silly.test", None)
    assert mail.text.endswith("Testing.")
