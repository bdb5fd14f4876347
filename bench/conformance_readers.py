"""Small readers of real export formats, written from each format's documentation, for the
conformance corpus: how many entries a file holds and a few of them to check.

They import nothing from Biographer (core/, storage/, bot/) on purpose: they are the
independent side of `bench/conformance.py`'s comparison. Each counts what the format itself
calls an entry (a WhatsApp line that starts with a timestamp, an element of a Telegram
`messages` array, one e-mail, one VEVENT, one speaker turn); what Biographer keeps plus what it
says it left out must add up to that.

    python -m bench.conformance_readers            # fill in missing expectations in the manifest
    python -m bench.conformance_readers --check    # recompute all and show where they changed
    python -m bench.conformance_readers --refresh  # recompute all and write them
"""

from __future__ import annotations

import argparse
import email
import email.policy
import email.utils
import json
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser
from pathlib import Path

MANIFEST = Path(__file__).resolve().parent.parent / "tests" / "conformance" / "manifest.json"
BIDI = dict.fromkeys(map(ord, "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"))


@dataclass(frozen=True)
class Entry:
    """One entry as the format defines it: who, when (UTC, None where the file has no zone
    or the day/month order cannot be told), and its words."""

    senders: tuple[str, ...]  # the names the format gives the author (any of them will do)
    time: str | None  # ISO 8601 UTC, "2021-03-12T14:05:00Z"
    text: str


@dataclass
class Reading:
    entries: list[Entry] = field(default_factory=list)
    note: str = ""


def utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def flat(text: str) -> str:
    return " ".join(text.translate(BIDI).split())


# ------------------------------------------------------------------------------ WhatsApp .txt

# Android: "12/9/20, 23:55 - Name: text"; iOS: "[12/9/20, 23:55:01] Name: text". The date is
# digits with one separator, the time h:mm[:ss] with an optional am/pm word in the phone's
# language; Android ends the header with " - ", iOS with "] ".
_WA_HEADER = re.compile(
    r"^\u200e?\[?(?P<date>\d{1,4}([./-])\d{1,2}\2\d{1,4})\.?,?\s(?:\D{0,4}\s)?"
    r"(?P<time>\d{1,2}[:.]\d{2}(?:[:.]\d{2})?)(?P<ampm>\s?[^\]\-\d\n]{0,12}?)?"
    r"(?:\] | - )(?P<rest>.*)$")
_PM = re.compile(r"p\.?\s?m\.?|pm|午後|下午|오후|م|ب\.ظ|חה", re.I)
_AM = re.compile(r"a\.?\s?m\.?|am|午前|上午|오전|ص|ق\.ظ|לפנה", re.I)


def read_whatsapp(path: Path) -> Reading:
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    heads: list[tuple[re.Match, list[str]]] = []
    for line in text.splitlines():
        match = _WA_HEADER.match(line)
        if match:
            heads.append((match, [match["rest"]]))
        elif heads:
            heads[-1][1].append(line)
    order = _date_order([m["date"] for m, _ in heads])
    reading = Reading(note=f"date order {order or 'ambiguous'}")
    for match, lines in heads:
        body = "\n".join(lines)
        sender, sep, words = body.partition(": ")
        if not sep or len(sender) > 60:
            sender, words = "", body
        if words.startswith("\u200e") or re.fullmatch(r"<[^<>]+>", words.strip()):
            # iOS marks its own words ("image omitted", notices) with U+200E, Android writes
            # "<Media omitted>": placeholders in the phone's language, not the sender's words
            words = ""
        moment = _wa_time(match, order)
        # iOS writes "~ Name" for someone not in the phone's contacts (the name they publish)
        names = (flat(sender), flat(sender).lstrip("~").strip()) if sender else ()
        reading.entries.append(Entry(names, moment, words))
    return reading


def _date_order(dates: list[str]) -> str | None:
    """"dmy", "mdy" or "ymd" from the values that can only be one of them; None if undecided."""
    parts = [re.split(r"[./-]", d) for d in dates]
    if any(len(p[0]) == 4 for p in parts):
        return "ymd"
    if any(int(p[0]) > 12 for p in parts):
        return "dmy"
    if any(int(p[1]) > 12 for p in parts):
        return "mdy"
    return None


def _wa_time(match: re.Match, order: str | None) -> str | None:
    if order is None:
        return None
    a, b, c = (int(x) for x in re.split(r"[./-]", match["date"]))
    year, month, day = {"ymd": (a, b, c), "dmy": (c, b, a), "mdy": (c, a, b)}[order]
    year += 2000 if year < 100 else 0
    clock = [int(x) for x in re.split(r"[:.]", match["time"])]
    hour = clock[0]
    ampm = (match["ampm"] or "").strip()
    if ampm and _PM.search(ampm) and hour < 12:
        hour += 12
    elif ampm and _AM.search(ampm) and hour == 12:
        hour = 0
    moment = datetime(year, month, day, hour, clock[1], clock[2] if len(clock) > 2 else 0,
                      tzinfo=timezone.utc)  # the export has no zone: the runner sets UTC
    return utc(moment)


# ------------------------------------------------------------------------------ Telegram JSON

def _tg_text(value) -> str:
    if isinstance(value, str):
        return value
    return "".join(part if isinstance(part, str) else part.get("text", "") for part in value or [])


def read_telegram_json(path: Path) -> Reading:
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    chats = data["chats"]["list"] if "chats" in data else [data]
    reading = Reading()
    for chat in chats:
        for message in chat.get("messages", []):
            if "date_unixtime" in message:
                moment = utc(datetime.fromtimestamp(int(message["date_unixtime"]), timezone.utc))
            else:  # local time without zone: the runner sets UTC
                moment = utc(datetime.fromisoformat(message["date"]).replace(tzinfo=timezone.utc))
            who = message.get("from") or message.get("actor") or ""
            reading.entries.append(Entry((who,) if who else (), moment, _tg_text(message.get("text"))))
    return reading


# ------------------------------------------------------------------------------ Telegram Desktop HTML

class _TelegramPage(HTMLParser):
    """A page of Telegram Desktop's HTML export: each `div.message` with an id `messageN`
    (N > 0; the negative ones are the day separators) is one entry; a `joined` message has the
    sender of the one before it; forwarded and replied-to content is not the entry's own."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.entries: list[dict] = []
        self.stack: list[str] = []  # what each open div is: "message", "forwarded", "from", "text", ""
        self.capture: str | None = None
        self.last_sender = ""

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag != "div":
            return
        attr = dict(attrs)
        classes = (attr.get("class") or "").split()
        role = ""
        if "message" in classes and re.fullmatch(r"message\d+", attr.get("id") or ""):
            role = "message"
            sender = self.last_sender if "joined" in classes else ""
            self.entries.append({"sender": sender, "time": None, "text": "", "service": "service" in classes})
        elif "forwarded" in classes or "reply_to" in classes:
            role = "aside"
        elif self.entries and "aside" not in self.stack:
            if "date" in classes and "details" in classes and attr.get("title") and not self.entries[-1]["time"]:
                self.entries[-1]["time"] = attr["title"]
            elif "from_name" in classes:
                role = "from"
            elif "text" in classes or (self.entries[-1]["service"] and "details" in classes):
                role = "text"
        self.stack.append(role)

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self.stack:
            role = self.stack.pop()
            if role == "from" and self.entries:
                self.entries[-1]["sender"] = flat(self.entries[-1]["sender"])
                self.last_sender = self.entries[-1]["sender"]

    def handle_data(self, data: str) -> None:
        if not self.entries or "aside" in self.stack:
            return
        innermost = next((r for r in reversed(self.stack) if r in ("from", "text")), None)
        if innermost == "from":
            self.entries[-1]["sender"] += data
        elif innermost == "text":
            self.entries[-1]["text"] += data


def _tg_html_time(title: str | None) -> str | None:
    match = re.match(r"(\d{2})\.(\d{2})\.(\d{4}) (\d{2}):(\d{2}):(\d{2})(?: UTC([+-]\d{2}):(\d{2}))?", title or "")
    if not match:
        return None
    d, mo, y, h, mi, se = (int(x) for x in match.groups()[:6])
    zone = timezone.utc  # no offset (exports before 2021): local time, the runner sets UTC
    if match[7]:
        sign = -1 if match[7].startswith("-") else 1
        zone = timezone(sign * timedelta(hours=abs(int(match[7])), minutes=int(match[8])))
    return utc(datetime(y, mo, d, h, mi, se, tzinfo=zone))


def read_telegram_html(path: Path) -> Reading:
    """A folder: messages.html, messages2.html, ... in that order."""
    pages = sorted(path.glob("messages*.html"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 1))
    reading = Reading()
    for page in pages:
        parser = _TelegramPage()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        for entry in parser.entries:
            sender = "" if entry["service"] else flat(entry["sender"])
            reading.entries.append(Entry((sender,) if sender else (), _tg_html_time(entry["time"]),
                                         flat(entry["text"])))
    return reading


# ------------------------------------------------------------------------------ Discord (DCE)

def read_discord_json(path: Path) -> Reading:
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    reading = Reading()
    seen = set()
    for message in data["messages"]:
        if message["id"] in seen:  # exports of overlapping ranges repeat a message under its id
            continue
        seen.add(message["id"])
        author = message["author"]
        names = tuple(n for n in (author.get("nickname"), author.get("name")) if n)
        moment = utc(datetime.fromisoformat(message["timestamp"].replace("Z", "+00:00")))
        reading.entries.append(Entry(names, moment, message.get("content") or ""))
    return reading


# ------------------------------------------------------------------------------ Meta (Messenger, Instagram)

def _meta(text: str) -> str:
    """Meta writes UTF-8 bytes as Latin-1 code points; undo that where it applies."""
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def read_meta_json(path: Path) -> Reading:
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    reading = Reading()
    for message in data["messages"]:
        moment = utc(datetime.fromtimestamp(message["timestamp_ms"] / 1000, timezone.utc))
        sender = _meta(message.get("sender_name", ""))
        reading.entries.append(Entry((sender,) if sender else (), moment, _meta(message.get("content", ""))))
    return reading


# ------------------------------------------------------------------------------ Slack export folder

def read_slack(path: Path) -> Reading:
    users = {}
    if (path / "users.json").exists():
        for user in json.loads((path / "users.json").read_text(encoding="utf-8")):
            profile = user.get("profile", {})
            users[user["id"]] = tuple(n for n in (profile.get("real_name"), user.get("real_name"),
                                                  profile.get("display_name"), user.get("name")) if n)
    reading = Reading()
    for day in sorted(path.glob("*/*.json")):
        for message in json.loads(day.read_text(encoding="utf-8")):
            if not isinstance(message, dict) or "ts" not in message:
                continue
            names = users.get(message.get("user", ""), ())
            if message.get("user_profile"):
                names += tuple(n for n in (message["user_profile"].get("real_name"),
                                           message["user_profile"].get("display_name")) if n)
            moment = utc(datetime.fromtimestamp(float(message["ts"]), timezone.utc))
            # a mention is <@U123|handle>; Slack shows it as @ and the person's name
            text = re.sub(r"<@(U\w+)(?:\|[^>]*)?>",
                          lambda m: "@" + (users.get(m[1]) or (m[1],))[0], message.get("text", ""))
            reading.entries.append(Entry(names, moment, text))
    return reading


# ------------------------------------------------------------------------------ e-mail

def _mail_entry(message: email.message.EmailMessage) -> Entry:
    name, address = email.utils.parseaddr(str(message.get("From", "")))
    moment = None
    try:
        parsed = email.utils.parsedate_to_datetime(str(message["Date"])) if message["Date"] else None
        if parsed is not None and parsed.tzinfo is not None and 1970 <= parsed.year <= 2100:
            moment = utc(parsed)
    except (TypeError, ValueError, IndexError):
        pass
    body = message.get_body(preferencelist=("plain",))
    text = ""
    if body is not None:
        try:
            text = body.get_content()
        except (LookupError, ValueError, AssertionError):
            text = ""
    # what the writer wrote, not the reply chain quoted below it (mail clients show it folded)
    text = re.split(r"(?im)^\s*-{2,}\s*original message\s*-{2,}\s*$", text)[0]
    own = "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith(">") and not line.rstrip().endswith("wrote:"))
    return Entry(tuple(n for n in (name, address) if n), moment, own)


def read_eml(path: Path) -> Reading:
    data = path.read_bytes()
    if path.suffix.lower() == ".emlx":  # Apple Mail: the byte count on the first line, then the message
        first, _, rest = data.partition(b"\n")
        if first.strip().isdigit():  # a damaged one may lack it: then it is all message
            data = rest[: int(first.strip())]
        else:  # ...but for the plist of Mail's own flags after it
            data = data.split(b"<?xml version=", 1)[0]
    message = email.message_from_bytes(data, policy=email.policy.default)
    return Reading([_mail_entry(message)])


def read_mbox(path: Path) -> Reading:
    """mboxo/mboxrd (RFC 4155): a message starts at a line beginning "From " that opens the file
    or follows a blank line; where a message has a Content-Length header (Netscape, Thunderbird,
    Solaris mailboxes) its body is that many bytes and the next "From " line follows it,
    blank line or not."""
    data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    reading = Reading()
    at = 0 if data.startswith(b"From ") else _next_from(data, 0)
    while at is not None and at < len(data):
        start = data.index(b"\n", at) + 1 if b"\n" in data[at:] else len(data)
        head_end = _blank_line(data, start)
        length = re.search(rb"^Content-Length:[ \t]*(\d+)", data[start:head_end], re.M | re.I)
        following = length and re.compile(rb"(?:\r?\n)*From |(?:\r?\n)*$").match(data, head_end + int(length[1]))
        if following:  # a Content-Length that ends where a message or the file ends: trust it
            end = following.end() - 5 if following[0].endswith(b"From ") else len(data)
        else:
            end = _next_from(data, head_end)
        raw = data[start:end if end is not None else len(data)]
        reading.entries.append(_mail_entry(email.message_from_bytes(raw, policy=email.policy.default)))
        at = end
    return reading


def _blank_line(data: bytes, start: int) -> int:
    """Where the headers that begin at `start` end (after their blank line)."""
    empty = re.compile(rb"\r?\n").match(data, start)  # no headers at all
    if empty:
        return empty.end()
    match = re.compile(rb"\r?\n\r?\n").search(data, start)
    return match.end() if match else len(data)


def _next_from(data: bytes, start: int) -> int | None:
    """The next separator: a "From " line after a blank line, or one that a header line follows
    (Netscape and Thunderbird write "From - ..." straight after the previous body)."""
    for match in re.compile(rb"(?m)^From ").finditer(data, start):
        at = match.start()
        blank_before = at >= 1 and re.search(rb"(?:^|\n)\r?\n$", data[max(0, at - 3):at]) is not None
        line_end = data.find(b"\n", at)
        header_after = line_end != -1 and re.match(rb"[!-9;-~]+:[ \t]", data[line_end + 1:line_end + 200])
        if at >= start and (blank_before or header_after):
            return at
    return None


# ------------------------------------------------------------------------------ iCalendar

def _unfold(text: str) -> list[str]:
    return re.sub(r"\r?\n[ \t]", "", text).splitlines()


def read_ics(path: Path) -> Reading:
    """Every VEVENT is one entry (RFC 5545 §3.6.1); DTSTART in UTC ("...Z") gives its time."""
    reading = Reading()
    event: dict[str, str] | None = None
    depth = 0
    for line in _unfold(path.read_text(encoding="utf-8-sig", errors="replace")):
        name, _, value = line.partition(":")
        key = name.split(";")[0].upper()
        if key == "BEGIN" and value.strip().upper() == "VEVENT":
            event, depth = {}, 0
        elif event is not None and key == "BEGIN":
            depth += 1  # a VALARM inside the event: its lines are not the event's
        elif event is not None and key == "END" and value.strip().upper() != "VEVENT":
            depth -= 1
        elif event is not None and key == "END":
            start = event.get("DTSTART", "")
            moment = None
            if re.fullmatch(r"\d{8}T\d{6}Z", start):
                moment = utc(datetime.strptime(start, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc))
            summary = event.get("SUMMARY", "").replace("\\,", ",").replace("\\;", ";").replace("\\n", " ")
            reading.entries.append(Entry((), moment, summary))
            event = None
        elif event is not None and depth == 0 and key not in event:
            event[key] = value.strip()
    return reading


# ------------------------------------------------------------------------------ transcripts (WebVTT, SubRip)

_CUE_TIME = re.compile(r"^\s*(\d+:)?\d{1,2}:\d{2}[.,]\d{1,3}\s+-->\s+")
_VOICE = re.compile(r"^<v(?:\.[\w.]+)?\s+([^>]+)>")
_PREFIX = re.compile(r"^([^:\n]{1,40}):\s")


def read_transcript(path: Path) -> Reading:
    """Cues (W3C WebVTT / SubRip): a timing line, then text up to a blank line. A speaker is a
    `<v Name>` voice tag, else a `Name: ` prefix used by most cues; consecutive cues of one
    speaker are one turn."""
    text = path.read_text(encoding="utf-8-sig", errors="replace").replace("\r\n", "\n")
    cues: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if _CUE_TIME.match(lines[i]):
            body = []
            i += 1
            while i < len(lines) and lines[i].strip():
                body.append(lines[i].strip())
                i += 1
            cues.append(" ".join(body))
        i += 1
    voiced = [_VOICE.match(c) for c in cues]
    prefixed = [_PREFIX.match(c) for c in cues]
    use_prefix = sum(1 for p in prefixed if p) * 2 > len(cues)
    reading = Reading()
    last = object()
    for cue, voice, prefix in zip(cues, voiced, prefixed):
        if voice:
            speaker, words = voice[1].strip(), re.sub(r"</?v[^>]*>", "", cue[voice.end():])
        elif use_prefix and prefix:
            speaker, words = prefix[1].strip(), cue[prefix.end():]
        else:
            speaker, words = "", cue
        if speaker == last and reading.entries:
            previous = reading.entries[-1]
            reading.entries[-1] = Entry(previous.senders, None, previous.text + " " + words)
        else:
            reading.entries.append(Entry((speaker,) if speaker else (), None, words))
        last = speaker
    return reading


# ------------------------------------------------------------------------------ ChatGPT / Claude

def read_chatgpt(path: Path) -> Reading:
    """The branch from `current_node` up to the root; the user's and the assistant's visible
    turns (text or pictures), not hidden system nodes nor tool calls and their output."""
    reading = Reading()
    for conversation in json.loads(path.read_text(encoding="utf-8-sig")):
        mapping = conversation["mapping"]
        node = conversation.get("current_node")
        branch = []
        while node:
            branch.append(mapping[node])
            node = mapping[node].get("parent")
        for item in reversed(branch):
            message = item.get("message")
            if not message or message["author"]["role"] not in ("user", "assistant"):
                continue
            if (message.get("metadata") or {}).get("is_visually_hidden_from_conversation"):
                continue
            if message.get("recipient", "all") != "all":
                continue
            content = message.get("content") or {}
            if content.get("content_type") not in ("text", "multimodal_text"):
                continue
            parts = content.get("parts") or []
            words = " ".join(p for p in parts if isinstance(p, str)).strip()
            pictures = any(isinstance(p, dict) for p in parts)
            if not words and not pictures:
                continue
            moment = (utc(datetime.fromtimestamp(message["create_time"], timezone.utc))
                      if message.get("create_time") else None)
            reading.entries.append(Entry((), moment, words))
    return reading


def read_claude(path: Path) -> Reading:
    reading = Reading()
    for conversation in json.loads(path.read_text(encoding="utf-8-sig")):
        for message in conversation.get("chat_messages", []):
            # the answer's own words: its "text" parts; the `text` field also holds its thinking
            parts = [c.get("text", "") for c in message.get("content") or [] if c.get("type") == "text"]
            words = " ".join(parts) if parts else message.get("text") or ""
            if not words.strip() and not message.get("attachments") and not message.get("files"):
                continue
            moment = utc(datetime.fromisoformat(message["created_at"].replace("Z", "+00:00")))
            reading.entries.append(Entry((), moment, words))
    return reading


READERS = {
    "whatsapp-android": read_whatsapp,
    "whatsapp-ios": read_whatsapp,
    "telegram-json": read_telegram_json,
    "telegram-html": read_telegram_html,
    "discord-json": read_discord_json,
    "messenger-json": read_meta_json,
    "instagram-json": read_meta_json,
    "slack": read_slack,
    "eml": read_eml,
    "emlx": read_eml,
    "mbox": read_mbox,
    "ics": read_ics,
    "vtt": read_transcript,
    "srt": read_transcript,
    "chatgpt-json": read_chatgpt,
    "claude-json": read_claude,
}


# ------------------------------------------------------------------------------ expectations

def spot_checks(reading: Reading, count: int = 3) -> list[dict]:
    """Entries from the middle of the file with a sender or a time and a few words, to find back."""
    usable = [e for e in reading.entries if len(re.findall(r"\w{3,}", flat(e.text))) >= 2]
    if not usable:
        usable = [e for e in reading.entries if e.senders or e.time or re.search(r"\w{3,}", e.text)]
    picks = []
    for k in range(1, count + 1):
        if not usable:
            break
        entry = usable[min(len(usable) - 1, len(usable) * k // (count + 1))]
        if entry in picks:
            continue
        picks.append(entry)
    checks = []
    for entry in picks:
        words = re.findall(r"\w{3,}", flat(entry.text))
        middle = len(words) // 2
        check: dict = {"words": words[max(0, middle - 2):middle + 2]}
        if entry.senders:
            check["sender"] = list(dict.fromkeys(entry.senders))
        if entry.time:
            check["time"] = entry.time
        checks.append(check)
    return checks


def expectation(item: dict, path: Path) -> dict:
    reading = READERS[item["format"]](path)
    result = {"entries": len(reading.entries), "reader": READERS[item["format"]].__name__,
              "spot": spot_checks(reading)}
    if reading.note:
        result["note"] = reading.note
    return result


def main(argv: list[str] | None = None) -> int:
    from bench.conformance import locate  # the runner knows where each file lies

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="recompute every expectation, report changes")
    parser.add_argument("--refresh", action="store_true", help="recompute every expectation and write them")
    args = parser.parse_args(argv)
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    changed = 0
    for item in manifest["files"]:
        path = locate(item)
        if path is None:
            continue
        if "expected" in item and not (args.check or args.refresh):
            continue
        fresh = expectation(item, path)
        if item.get("expected") != fresh:
            changed += 1
            if args.check and "expected" in item:
                print(f"{item['id']}: {item['expected'].get('entries')} -> {fresh['entries']}")
            item["expected"] = fresh
    if not args.check:
        MANIFEST.write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{changed} expectations {'differ' if args.check else 'written'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
