"""Meeting transcripts: WebVTT (`.vtt`) and SubRip (`.srt`) files with speaker names, as Zoom,
Microsoft Teams, Google Meet, Otter and Granola write them. The speaker comes from a voice tag
(`<v Ana Lima>…</v>`, Teams) or a `Name: ` prefix (Zoom, Meet, Otter); consecutive cues of one
speaker become one message. Cues without any name are kept under "Unknown speaker".

The formats carry offsets, not dates. The meeting's start is taken from the file name (Zoom's
`GMT20240124-202901_…`, or a date and time such as `2024-03-05 14.30`), else from the file's
modification time less the meeting's length; the document's note says which.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import webvtt
from webvtt.errors import MalformedCaptionError, MalformedFileError

from core.errors import ImportFailed
from core.files import file_sha256
from core.importers.base import ImportContext, ImporterBase
from core.importers.text import decode_text
from core.types import Conversation, Message, SourceDocument

UNKNOWN = "Unknown speaker"
_SRT_HEAD = re.compile(rb"^\s*\d+\s*\r?\n\s*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}\s*-->")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?\s+([^>]+)>")
_TAG = re.compile(r"<[^>]*>")
_PREFIX = re.compile(r"^([^:\n]{1,60}):\s+(\S.*)$", re.S)
# a name is a few words of any script, with initials or titles ("Dr. Jane Roe", "J. R. Lee"),
# digits ("Speaker 2") and a bracketed part ("Sam Lee (SL)", "Sam (she/her)", "Host (Zoom)");
# not a clause: no sentence punctuation, no quotes, no link
# (a word's characters are not limited to \w: Indic names hold vowel signs, which are marks)
_NAME_WORD = r"(?:[^\s()\[\]]+|\([^()]{1,30}\)|\[[^\[\]]{1,30}\])"
_NAME = re.compile(rf"{_NAME_WORD}(?: {_NAME_WORD}){{0,5}}")
_NOT_A_NAME = re.compile(r"[!?,;\"“”«»]|https?:|www\.")
_ZOOM_NAME = re.compile(r"GMT(\d{8})-(\d{6})")
_DATE_TIME_NAME = re.compile(r"(?<!\d)(\d{4})-?(\d{2})-?(\d{2})(?:[ T_-]+(\d{1,2})[.:h-]?(\d{2}))?(?!\d)")


@dataclass
class Turn:
    offset: float  # seconds from the start of the recording
    speaker: str | None
    text: str


def looks_like_transcript(path: Path, head: bytes) -> bool:
    suffix = path.suffix.lower()
    start = head.removeprefix(b"\xef\xbb\xbf")
    if suffix == ".vtt":
        return start.lstrip().startswith(b"WEBVTT")
    return suffix == ".srt" and _SRT_HEAD.match(start) is not None


def _seconds(caption: webvtt.Caption) -> float:
    stamp = caption.start_time
    return stamp.hours * 3600 + stamp.minutes * 60 + stamp.seconds + stamp.milliseconds / 1000


def _clean(text: str) -> str:
    text = _TAG.sub("", text).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    text = text.replace("&nbsp;", " ").replace("&apos;", "'").replace("&quot;", '"')
    return " ".join(text.split())


def _voiced(offset: float, raw: str) -> list[Turn]:
    """A cue's voice spans: `<v A>hi</v> <v B>hello</v>` is two turns."""
    pieces = _VOICE.split(raw)
    turns = [Turn(offset, None, _clean(pieces[0]))] if _clean(pieces[0]) else []
    for speaker, text in zip(pieces[1::2], pieces[2::2]):
        turns.append(Turn(offset, speaker.strip(), _clean(text)))
    return turns


def read_turns(path: Path) -> list[Turn]:
    """Every cue of the file as turns, speakers named where the file names them."""
    text = decode_text(path, path.read_bytes())
    layout = "srt" if path.suffix.lower() == ".srt" else "vtt"
    try:
        captions = webvtt.from_buffer(io.StringIO(text), format=layout)
    except (MalformedFileError, MalformedCaptionError) as error:
        raise ImportFailed(path.name, f"is not a readable {layout.upper()} transcript ({error})",
                           hint="download the transcript again from the meeting app") from None
    turns: list[Turn] = []
    for caption in captions:
        offset = _seconds(caption)
        if _VOICE.search(caption.raw_text):
            turns += _voiced(offset, caption.raw_text)
            continue
        words = _clean(caption.raw_text.replace("\n", " "))
        if words:
            turns.append(Turn(offset, None, words))
    if not captions.captions and "-->" in text:
        raise ImportFailed(path.name, f"is not a readable {layout.upper()} transcript (no cue could be read)",
                           hint="download the transcript again from the meeting app")
    return _name_prefixes(turns)


def _name_prefix(text: str) -> str | None:
    """The `Name` of a cue written `Name: text`, if what stands before the colon can be a name."""
    match = _PREFIX.match(text)
    if match is None:
        return None
    name = match.group(1).strip()
    if not (name[:1].isalnum() or name[:1] in "([") or _NOT_A_NAME.search(name):
        return None
    return name if _NAME.fullmatch(name) else None


def _name_prefixes(turns: list[Turn]) -> list[Turn]:
    """`Name: text` names its speaker when the file writes names that way, which is decided
    across the file, not per cue: when at least half of its cues without a voice tag open with a
    name, or when two names or more recur (a conversation whose continuation cues carry none).
    Then every prefix that recurs is a speaker; one used once is too only where every cue carries
    a prefix (so a `Note: …` among unprefixed continuation cues stays text). Captions with a
    sentence or two that start "Note:" names nobody."""
    candidates = Counter(name for t in turns if t.speaker is None
                         and (name := _name_prefix(t.text)) is not None)
    unvoiced = sum(1 for t in turns if t.speaker is None)
    prefixed = sum(candidates.values())
    recurring = {n for n, count in candidates.items() if count >= 2}
    if prefixed and prefixed * 2 >= unvoiced:
        names = set(candidates) if prefixed == unvoiced else recurring
    elif len(recurring) >= 2:
        names = recurring  # a turn's first cue named, its continuation cues not (Otter, Meet)
    else:
        return turns
    named = []
    for t in turns:
        match = _PREFIX.match(t.text) if t.speaker is None else None
        if match and match.group(1).strip() in names:
            named.append(Turn(t.offset, match.group(1).strip(), match.group(2).strip()))
        else:
            named.append(t)
    return named


def merged(turns: list[Turn]) -> list[Turn]:
    """Consecutive cues of one speaker as one turn."""
    out: list[Turn] = []
    for t in turns:
        if out and out[-1].speaker == t.speaker:
            out[-1] = Turn(out[-1].offset, t.speaker, f"{out[-1].text} {t.text}".strip())
        else:
            out.append(t)
    return out


def meeting_start(path: Path, length: float, context: ImportContext) -> tuple[datetime, str]:
    """When the recording started, and a note saying where that came from."""
    zoom = _ZOOM_NAME.search(path.name)
    if zoom:
        start = datetime.strptime("".join(zoom.groups()), "%Y%m%d%H%M%S").replace(tzinfo=timezone.utc)
        return start.astimezone(context.timezone), "meeting start from the file name (Zoom, UTC)"
    named = _DATE_TIME_NAME.search(path.name)
    if named:
        year, month, day, hour, minute = named.groups()
        try:
            if hour is not None:
                start = datetime(int(year), int(month), int(day), int(hour), int(minute),
                                 tzinfo=context.timezone)
                return start, "meeting start from the file name"
            day_start = datetime(int(year), int(month), int(day), tzinfo=context.timezone)
        except ValueError:
            day_start = None
        if day_start is not None:
            modified = _modified(path, length, context)
            if modified.date() == day_start.date():
                return modified, "meeting date from the file name, its time from the file's modification time"
            return day_start, ("meeting date from the file name; its time of day is unknown, "
                               "so messages are timed from midnight")
    return _modified(path, length, context), ("meeting time from the file's modification time "
                                              "(the transcript carries no date)")


def _modified(path: Path, length: float, context: ImportContext) -> datetime:
    ended = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc).astimezone(context.timezone)
    return ended - timedelta(seconds=length)


def _title(path: Path) -> str:
    stem = path.name
    for suffix in (".vtt", ".srt", ".transcript"):
        stem = stem.removesuffix(suffix).removesuffix(suffix.upper())
    return stem.replace("_", " ").strip() or path.name


class TranscriptImporter(ImporterBase):
    name = "meeting"

    def sniff(self, path: Path, head: bytes) -> bool:
        return looks_like_transcript(path, head)

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        turns = merged(read_turns(path))
        if not turns:
            raise ImportFailed(path.name, "is a transcript without any words", hint="nothing to import")
        start, note = meeting_start(path, turns[-1].offset, context)
        speakers = tuple(dict.fromkeys(t.speaker or UNKNOWN for t in turns))
        digest = file_sha256(path)
        conversation = Conversation(platform="meeting", key=f"meeting:{digest[:16]}",
                                    name=f"Meeting: {_title(path)}", participants=speakers,
                                    is_group=len(speakers) > 2)
        messages = (Message(sender=t.speaker or UNKNOWN, text=t.text,
                            time=start + timedelta(seconds=t.offset),
                            is_owner=t.speaker is not None and context.is_owner(t.speaker))
                    for t in turns)
        yield SourceDocument(kind="meeting", name=conversation.name, identity=f"file:{digest}",
                             conversation=conversation, messages=messages, note=note)
