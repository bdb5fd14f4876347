"""The export formats the invented lives of bench/life_eval are written in: one emitter a format,
turning a life's messages into the bytes that app or program exports, shared by the five
write_archive.py (here and in second/, third/, fourth/, fifth/). What differs between the lives on purpose
(a phone's locale, an iOS clock's seconds, a Message-ID's scheme, a calendar's layout) is a
parameter; their people, words and dates stay in their writers.

A message is `(naive local time, sender, text)`. Nothing here reads the clock or hash(): the same
arguments give the same bytes, on any machine.
"""

from __future__ import annotations

import json
import random
import zipfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path
from typing import NamedTuple
from zoneinfo import ZoneInfo

Message = tuple[datetime, str, str]

# --- WhatsApp (Export chat > Without media: a .txt) ----------------------------------------------

WHATSAPP_NOTICE_EN = ("Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, "
                      "can read or listen to them.")


def android_stamp_en(t: datetime) -> str:
    """An Android phone in English (UK, Ireland): `31/12/2024, 21:07`."""
    return f"{t:%d/%m/%Y, %H:%M}"


def android_stamp_pl(t: datetime) -> str:
    """An Android phone in Polish: `31.12.2024, 21:07`."""
    return f"{t:%d.%m.%Y, %H:%M}"


def android_stamp_es_mx(t: datetime) -> str:
    """An Android phone in Spanish (Mexico), 12-hour clock: `5/3/24, 9:07 p. m.` (a no-break space inside)."""
    hour = t.hour % 12 or 12
    half = "a.\u00a0m." if t.hour < 12 else "p.\u00a0m."
    return f"{t.day}/{t.month}/{t:%y}, {hour}:{t:%M} {half}"


def whatsapp_android(path: Path, messages: Iterable[Message], *, stamp: Callable[[datetime], str],
                     notice: tuple[datetime, str], events: Iterable[tuple[datetime, str]] = ()) -> None:
    """WhatsApp for Android's Export chat (a .txt, without media): `<stamp> - Sender: text` a line in
    the phone's `stamp`, WhatsApp's own lines (`notice`, a group's `events`: created, renamed) among
    them without a sender."""
    lines = [notice, *events, *((t, f"{who}: {text}") for t, who, text in messages)]
    path.write_text("".join(f"{stamp(t)} - {body}\n" for t, body in sorted(lines)), encoding="utf-8", newline="")


def whatsapp_ios(path: Path, messages: Iterable[Message], *, partner: str, day: str, notice: tuple[datetime, str],
                 seconds: Callable[[datetime], int] = lambda t: t.second, newline: str = "\n") -> None:
    """WhatsApp for iOS's Export chat (_chat.txt): `[<day>, HH:MM:SS] Sender: text` a line, `day` the
    phone's strftime of the date, the end-to-end notice first in the partner's name behind a
    left-to-right mark.

    iOS stamps carry seconds: `seconds` invents them for messages written to the minute; `newline` is
    "\\r\\n" where the export was saved as Windows text."""
    at, text = notice
    lines = [f"[{at:{day}, %H:%M:%S}] {partner}: \u200e{text}"]
    lines += [f"[{t:{day}, %H:%M}:{seconds(t):02d}] {who}: {text}" for t, who, text in messages]
    path.write_text(newline.join(lines) + newline, encoding="utf-8", newline="")


# --- Telegram Desktop, signal-export ---------------------------------------------------------------

def telegram(path: Path, messages: Iterable[Message], *, owner: str, owner_id: str, partner: str, chat_id: int,
             zone: ZoneInfo) -> None:
    """Telegram Desktop's single-chat JSON export (result.json): local `date`, `date_unixtime`,
    plain `text_entities`, a one-space indent."""
    ids = {owner: owner_id, partner: f"user{chat_id}"}
    out = [{"id": n, "type": "message", "date": f"{t:%Y-%m-%dT%H:%M:%S}",
            "date_unixtime": str(int(t.replace(tzinfo=zone).timestamp())), "from": who, "from_id": ids[who],
            "text": text, "text_entities": [{"type": "plain", "text": text}]}
           for n, (t, who, text) in enumerate(messages, 1)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"name": partner, "type": "personal_chat", "id": chat_id, "messages": out},
                               ensure_ascii=False, indent=1), encoding="utf-8")


def signal(folder: Path, messages: list[Message], *, owner: str, padding: str = "", markdown: bool = False) -> None:
    """signal-export's data.json: one JSON object a line, the owner as `Me`, naive local times; with
    `markdown`, its chat.md too. `padding` ends each body (an export that kept trailing white space)."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = [{"date": f"{t:%Y-%m-%dT%H:%M:%S}", "sender": "Me" if who == owner else who, "body": text + padding,
             "quote": "", "sticker": "", "reactions": [], "attachments": [], "deleted": False, "call": False,
             "missed": False} for t, who, text in messages]
    (folder / "data.json").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                      encoding="utf-8")
    if markdown:
        (folder / "chat.md").write_text("".join(f"[{t:%Y-%m-%d %H:%M}] {who}: {text}\n\n"
                                                for t, who, text in messages), encoding="utf-8")


# --- Meta: Messenger and Instagram ("Download your information", JSON) -----------------------------

def _meta_escape(value: object) -> object:
    """Meta writes each UTF-8 byte of a string as its own \\u00XX escape."""
    if isinstance(value, str):
        return value.encode("utf-8").decode("latin-1")
    if isinstance(value, list):
        return [_meta_escape(v) for v in value]
    if isinstance(value, dict):
        return {k: _meta_escape(v) for k, v in value.items()}
    return value


def meta_thread(path: Path, messages: Iterable[Message], *, title: str, participants: list[str], thread_path: str,
                group: bool, zone: ZoneInfo, photo: str = "<photo>") -> None:
    """A Messenger or Instagram thread's message_1.json: newest first, milliseconds since the epoch,
    the mojibake of Meta's escapes; a message whose text is `photo` is a photo instead."""
    rows = []
    for t, who, text in sorted(messages, reverse=True):
        # the minute * 7 milliseconds: Meta's stamps are never on the second
        row = {"sender_name": who, "timestamp_ms": int(t.replace(tzinfo=zone).timestamp()) * 1000 + t.minute * 7}
        if text == photo:
            # named by the local time read as UTC, as the archive was first written on a UTC machine
            taken = int(t.replace(tzinfo=timezone.utc).timestamp())
            row["photos"] = [{"uri": f"{thread_path}/photos/{taken}.jpg", "creation_timestamp": taken}]
        else:
            row["content"] = text
        row["is_geoblocked_for_viewer"] = False
        rows.append(row)
    data = {"participants": [{"name": p} for p in participants], "messages": rows, "title": title,
            "is_still_participant": True, "thread_path": thread_path, "magic_words": []}
    if group:
        data["joinable_mode"] = {"mode": 1, "link": ""}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_meta_escape(data), ensure_ascii=True, indent=2), encoding="utf-8")


# --- DiscordChatExporter (JSON), a Slack workspace export ------------------------------------------

def discord(path: Path, messages: Iterable[Message], *, users: dict[str, tuple[str, str]], guild: dict,
            channel: dict, exported_at: str, zone: ZoneInfo,
            attachments: Callable[[int, str], list[dict]] = lambda n, text: []) -> None:
    """DiscordChatExporter's JSON of one channel; `users` maps a shown name to (id, user name),
    `attachments` gives the n-th message's files."""
    out = []
    for n, (t, who, text) in enumerate(messages):
        uid, name = users[who]
        stamp = t.replace(tzinfo=zone).isoformat(timespec="milliseconds")
        out.append({"id": str(1030000000000000000 + n * 1000003), "type": "Default", "timestamp": stamp,
                    "timestampEdited": None, "callEndedTimestamp": None, "isPinned": False, "content": text,
                    "author": {"id": uid, "name": name, "discriminator": "0000", "nickname": who,
                               "color": None, "isBot": False, "roles": [],
                               "avatarUrl": f"https://cdn.discordapp.com/embed/avatars/{int(uid) % 5}.png"},
                    "attachments": attachments(n, text), "embeds": [], "stickers": [], "reactions": [],
                    "mentions": []})
    data = {"guild": guild, "channel": channel, "dateRange": {"after": None, "before": None},
            "exportedAt": exported_at, "messages": out, "messageCount": len(out)}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


class SlackChannel(NamedTuple):
    id: str
    name: str
    topic: str
    purpose: str


def slack(folder: Path, conversations: Iterable[tuple[str, str, list[Message]]], *, team: str,
          users: dict[str, tuple[str, str, str]], channels: list[SlackChannel],
          dms: list[tuple[str, datetime, list[str]]], creator: str, created: datetime, zone: ZoneInfo,
          domain: str) -> None:
    """A Slack workspace export, unzipped: users.json, channels.json, dms.json, and a folder of day
    files for each conversation `(seed of its message ids, folder, messages)`.

    `users` maps an id to (name, real name, display name), messages name their sender by real name;
    every channel has every user, `creator` made them at `created`; a dm is (id, created, members)."""
    by_name = {real: uid for uid, (_, real, _) in users.items()}
    folder.mkdir(parents=True, exist_ok=True)
    listed = [{"id": uid, "team_id": team, "name": name, "deleted": False, "real_name": real, "tz": zone.key,
               "profile": {"real_name": real, "display_name": display, "email": f"{name}@{domain}"}, "is_bot": False}
              for uid, (name, real, display) in users.items()]
    made = int(created.timestamp())

    def about(value: str) -> dict:
        return {"value": value, "creator": creator if value else "", "last_set": made if value else 0}

    rooms = [{"id": c.id, "name": c.name, "created": made, "creator": creator, "is_archived": False,
              "is_general": False, "members": list(users), "topic": about(c.topic), "purpose": about(c.purpose)}
             for c in channels]
    direct = [{"id": uid, "created": int(when.timestamp()), "members": members} for uid, when, members in dms]
    for name, data in (("users.json", listed), ("channels.json", rooms), ("dms.json", direct)):
        (folder / name).write_text(json.dumps(data, ensure_ascii=False, indent=4), encoding="utf-8")
    for seed, sub, messages in conversations:
        days: dict[str, list[dict]] = {}
        for n, (t, who, text) in enumerate(messages):
            uid = by_name[who]
            name, real, display = users[uid]
            days.setdefault(f"{t:%Y-%m-%d}", []).append(
                {"client_msg_id": f"{zlib.crc32(f'{seed}{n}'.encode()):08x}-0000-4000-8000-{n:012d}",
                 "type": "message", "text": text, "user": uid,
                 "ts": f"{int(t.replace(tzinfo=zone).timestamp())}.{n % 1000000:06d}", "team": team,
                 "user_team": team, "source_team": team,
                 "user_profile": {"real_name": real, "display_name": display, "name": name, "is_restricted": False},
                 "blocks": [{"type": "rich_text", "block_id": f"b{n}", "elements": [
                     {"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}]}]})
        (folder / sub).mkdir(exist_ok=True)
        for day, rows in days.items():
            (folder / sub / f"{day}.json").write_text(json.dumps(rows, ensure_ascii=False, indent=4), encoding="utf-8")


# --- mail: .eml, mbox (classic, Gmail Takeout's) ---------------------------------------------

@dataclass(frozen=True)
class Mail:
    """One plain-text e-mail, sent at `when` (aware); `tag`, the Message-ID's part after the time, is a
    CRC of the subject where None; `labels`, Gmail's X-Gmail-Labels, makes it a Takeout message."""

    when: datetime
    sender: str
    address: str
    to: str
    subject: str
    body: str
    tag: int | None = None
    domain: str = "example.org"
    labels: str | None = None


def email_text(mail: Mail) -> str:
    """An RFC 5322 message as a mail client saves it (.eml): UTF-8 text, 8-bit, LF line ends; Gmail
    Takeout puts X-GM-THRID and X-Gmail-Labels first."""
    tag = zlib.crc32(mail.subject.encode()) % 10**6 if mail.tag is None else mail.tag
    gmail = ("" if mail.labels is None else
             f"X-GM-THRID: {1700000000000000000 + zlib.crc32(mail.subject.encode())}\nX-Gmail-Labels: {mail.labels}\n")
    return (f"{gmail}From: {mail.sender} <{mail.address}>\nTo: {mail.to}\nSubject: {mail.subject}\n"
            f"Date: {format_datetime(mail.when)}\nMessage-ID: <{int(mail.when.timestamp())}.{tag}@{mail.domain}>\n"
            "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
            f"{mail.body}\n")


def eml(path: Path, mail: Mail) -> None:
    """One message saved from a mail client."""
    path.write_text(email_text(mail), encoding="utf-8")


def mbox(path: Path, mails: Iterable[Mail]) -> None:
    """An mbox (RFC 4155), one blank line between messages, each after its `From ` line: the classic
    `From <address> <asctime>`, or for a labelled mail Gmail Takeout's `From <id>@xxx <date with zone>`."""
    parts = []
    for mail in mails:
        if mail.labels is None:
            envelope = f"From {mail.address} {mail.when:%a %b %d %H:%M:%S %Y}\n"
        else:
            thread = 1700000000000000000 + zlib.crc32(mail.body.encode())
            envelope = f"From {thread}@xxx {mail.when:%a %b %d %H:%M:%S %z %Y}\n"
        parts.append(envelope + email_text(mail))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts), encoding="utf-8")


def newsletters(rng: random.Random, start: datetime, end: datetime, subjects: list[str], *, gap: tuple[int, int],
                hour: int, minute: int = 0) -> list[Message]:
    """Newsletters between the mails that matter, `gap` days apart at random, all at one hour of the day."""
    out, day = [], start
    while day < end:
        day += timedelta(days=rng.randint(*gap))
        out.append((day.replace(hour=hour, minute=minute), "Newsletter", rng.choice(subjects)))
    return out


def addressed(mails: Iterable[Message], senders: dict[str, tuple[str, str, ZoneInfo]], *, to: str, zone: ZoneInfo,
              tag: Callable[[str], int] | None = None, newsletter_stop: bool = True) -> list[Mail]:
    """Messages (local time, sender, text) as mail in time order, each text a body ending in a full
    stop: a sender in `senders` has its (address, subject, zone), any other is a newsletter from
    news@letters.example in `zone` whose text is its subject (and, unless `newsletter_stop`, its whole body).
    `tag` makes the Message-ID of a subject."""
    out = []
    for when, who, text in sorted(mails):
        address, subject, local = senders.get(who, ("news@letters.example", text, zone))
        stop = "." if newsletter_stop or who in senders else ""
        out.append(Mail(when.replace(tzinfo=local), who, address, to, subject, text + stop,
                        tag=None if tag is None else tag(subject)))
    return out


# --- Google Calendar (.ics) -------------------------------------------------------------------------

class Event(NamedTuple):
    """A calendar event: "YYYY-MM-DD HH:MM" times in `zone` (an IANA name), or a "YYYY-MM-DD" start and
    no end for a whole day; `rule` an RRULE or ""."""

    start: str
    end: str | None
    summary: str
    location: str
    rule: str = ""
    zone: str = ""


def _ics_text(value: str) -> str:
    return value.replace(",", "\\,")


def calendar(events: Iterable[Event], *, name: str, zone: str, stamp: str, uid: Callable[[int, Event], str],
             calscale: bool = True, created: str | None = None) -> str:
    """An iCalendar file (RFC 5545, CRLF) as Google Calendar exports one, named `name` in `zone`, each
    event stamped `stamp` with the UID `uid(n, event)`.

    With `created` (its CREATED and LAST-MODIFIED), in Google's full layout: METHOD:PUBLISH, and each
    event's times first, then DTSTAMP, UID, CREATED, LAST-MODIFIED, SEQUENCE, STATUS, SUMMARY,
    LOCATION, TRANSP. Without, a shorter one: UID, DTSTAMP, times, SUMMARY, LOCATION."""
    if created is None:
        out = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Google Inc//Google Calendar 70.9054//EN"]
        out += ["CALSCALE:GREGORIAN"] if calscale else []
    else:
        out = ["BEGIN:VCALENDAR", "PRODID:-//Google Inc//Google Calendar 70.9054//EN", "VERSION:2.0",
               "CALSCALE:GREGORIAN", "METHOD:PUBLISH"]
    out += [f"X-WR-CALNAME:{name}", f"X-WR-TIMEZONE:{zone}"]
    for n, event in enumerate(events):
        stamped, named = f"DTSTAMP:{stamp}", f"UID:{uid(n, event)}"
        out.append("BEGIN:VEVENT")
        out += [named, stamped] if created is None else []
        if event.end is None:
            day = datetime.strptime(event.start, "%Y-%m-%d")
            out += [f"DTSTART;VALUE=DATE:{day:%Y%m%d}", f"DTEND;VALUE=DATE:{day + timedelta(days=1):%Y%m%d}"]
        else:
            out += [f"DTSTART;TZID={event.zone}:{_minute(event.start):%Y%m%dT%H%M%S}",
                    f"DTEND;TZID={event.zone}:{_minute(event.end):%Y%m%dT%H%M%S}"]
        out += [f"RRULE:{event.rule}"] if event.rule else []
        if created is not None:
            out += [stamped, named, f"CREATED:{created}", f"LAST-MODIFIED:{created}", "SEQUENCE:0", "STATUS:CONFIRMED"]
        out.append(f"SUMMARY:{_ics_text(event.summary)}")
        out += [f"LOCATION:{_ics_text(event.location)}"] if event.location else []
        out += [] if created is None else ["TRANSP:OPAQUE"]
        out.append("END:VEVENT")
    return "\r\n".join(out + ["END:VCALENDAR"]) + "\r\n"


def _minute(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M")


# --- a Zoom transcript (WebVTT) ------------------------------------------------------------------

def zoom_transcript(path: Path, lines: Iterable[tuple[str, str]], *, start: float, chars_per_second: float,
                    pause: float) -> None:
    """Zoom's audio transcript of a recorded meeting: numbered WebVTT cues `Name: text`, offsets from
    the meeting's start; a line lasts two seconds and its characters at `chars_per_second`, `pause`
    seconds before the next."""
    out, at = ["WEBVTT", ""], start
    for n, (who, text) in enumerate(lines, 1):
        length = 2.0 + len(text) / chars_per_second
        out += [str(n), f"{_offset(at)} --> {_offset(at + length)}", f"{who}: {text}", ""]
        at = at + length + pause
    path.write_text("\n".join(out), encoding="utf-8")


def _offset(seconds: float) -> str:
    whole = int(seconds)
    millis = int(round((seconds - whole) * 1000)) % 1000
    return f"{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}.{millis:03d}"


# --- documents: Markdown journals, .docx, PDF ---------------------------------------------------

def journals(folder: Path, entries: dict[str, str], *, title: str) -> None:
    """Markdown notes, a file a year (`<title> 2023.md`, lower-cased), an `## YYYY-MM-DD` heading an entry."""
    by_year: dict[str, list[str]] = {}
    for day, entry in sorted(entries.items()):
        by_year.setdefault(day[:4], []).append(f"## {day}\n\n{entry}\n")
    for year, texts in by_year.items():
        (folder / f"{title.lower()} {year}.md").write_text(f"# {title} {year}\n\n" + "\n".join(texts),
                                                           encoding="utf-8")


def docx(path: Path, text: str, *, created: datetime, modified: bool = True, heading: bool = False,
         author: str | None = None, zipped: datetime | None = None) -> None:
    """A Word document (python-docx's default template), a paragraph a line of `text`, the first a
    heading if `heading`; created (and, if `modified`, last modified) at `created`.

    python-docx stamps each zip member with the time of writing: a fixed one (`zipped`, else
    `created`) keeps the file's bytes."""
    import docx as python_docx  # only the writers that make a .docx need it

    document = python_docx.Document()
    lines = text.strip().split("\n")
    if heading:
        document.add_heading(lines.pop(0), level=1)
    for paragraph in lines:
        document.add_paragraph(paragraph)
    if author is not None:
        document.core_properties.author = author
    document.core_properties.created = created
    if modified:
        document.core_properties.modified = created
    document.save(str(path))
    with zipfile.ZipFile(path) as saved:
        members = [(info.filename, saved.read(info)) for info in saved.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as fixed:
        for name, data in members:
            fixed.writestr(zipfile.ZipInfo(name, date_time=(zipped or created).timetuple()[:6]), data,
                           compress_type=zipfile.ZIP_DEFLATED)


def pdf(path: Path, lines: list[str], *, producer: str, created: str, gaps: Iterable[int] = ()) -> None:
    """A one-page PDF 1.4 of Helvetica text lines, written by hand (ASCII only), a blank line after
    each line numbered in `gaps`; `producer` and `created` (a PDF date) in its Info."""
    def escape(s: str) -> str:
        return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    blank_after = set(gaps)
    stream = ["BT", "/F1 11 Tf", "14 TL", "60 780 Td"]
    stream += [f"({escape(line)}) Tj T*" + (" T*" if i in blank_after else "") for i, line in enumerate(lines)]
    stream.append("ET")
    content = "\n".join(stream).encode("ascii")
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> "
               b"/Contents 5 0 R >>",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
               b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream",
               f"<< /Producer ({escape(producer)}) /CreationDate ({created}) >>".encode("ascii")]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
