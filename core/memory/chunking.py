"""Pure functions that cut text into chunks with exact offsets.

Prose: at most `max_chars`, cut at the latest natural boundary (blank line, newline, sentence end,
space), consecutive chunks overlapping by `overlap` characters so no phrase is lost at a cut.
Messages: kept whole and in order, grouped into conversation windows, rendered one per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from core.types import Chunk, Message

MAX_CHARS = 900
OVERLAP = 150
WINDOW_GAP = timedelta(minutes=30)

_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*\s")
_BOUNDARIES: tuple[re.Pattern[str], ...] = (
    re.compile(r"\n[ \t]*\n"),
    re.compile(r"\n"),
    _SENTENCE_END,
    re.compile(r"\s"),
)


def _cut_point(text: str, start: int, hard_end: int, min_len: int) -> int:
    """The end of the chunk starting at `start`: after the latest, best boundary in range."""
    lo = start + min_len
    for pattern in _BOUNDARIES:
        last = None
        for match in pattern.finditer(text, lo, hard_end):
            last = match
        if last is not None:
            return last.end()
    return hard_end


def _span_at(text: str, start: int, *, final: bool, max_chars: int, overlap: int
             ) -> tuple[int, int, int] | None:
    """The chunk starting at or after `start` and where the next one starts, or None when the
    text has no more words (if `final`) or more text is needed to decide (if not)."""
    n = len(text)
    while start < n and text[start].isspace():
        start += 1
    if start >= n or (not final and start + max_chars >= n):
        return None
    hard_end = min(start + max_chars, n)
    end = hard_end if hard_end == n else _cut_point(text, start, hard_end, max_chars // 3)
    if end >= n:
        return start, end, n
    # step back by the overlap, then forward to the next word start so no word is cut
    next_start = max(end - overlap, start + 1)
    space = text.find(" ", next_start, end)
    return start, end, (space + 1 if space != -1 and space + 1 < end else next_start)


def _check_overlap(max_chars: int, overlap: int) -> None:
    if overlap >= max_chars // 2:
        raise ValueError("overlap must be under half the chunk size")


def prose_spans(
    text: str, *, max_chars: int = MAX_CHARS, overlap: int = OVERLAP
) -> Iterator[tuple[int, int]]:
    """(start, end) spans of `text`, each at most `max_chars`.

    Spans keep their trailing whitespace, so together they cover the whole text (only leading
    whitespace of the text is skipped) and any range can be read back from the chunks exactly.
    """
    _check_overlap(max_chars, overlap)
    start = 0
    while (span := _span_at(text, start, final=True, max_chars=max_chars, overlap=overlap)):
        yield span[0], span[1]
        if span[1] >= len(text):
            return
        start = span[2]


def stream_prose_spans(
    blocks: Iterable[str], *, max_chars: int = MAX_CHARS, overlap: int = OVERLAP
) -> Iterator[tuple[int, int, str]]:
    """The spans prose_spans would give for "".join(blocks), with their text, holding only
    about one chunk of text in memory (a 1 GB file streams through)."""
    _check_overlap(max_chars, overlap)
    buffer, base, start = "", 0, 0  # buffer holds the text from absolute offset `base`
    for block in blocks:
        buffer += block
        while (span := _span_at(buffer, start, final=False, max_chars=max_chars, overlap=overlap)):
            s, e, start = span
            yield base + s, base + e, buffer[s:e]
        buffer, base, start = buffer[start:], base + start, 0
    while (span := _span_at(buffer, start, final=True, max_chars=max_chars, overlap=overlap)):
        s, e, start = span
        yield base + s, base + e, buffer[s:e]
        if e >= len(buffer):
            return


def stream_section_spans(
    sections: Iterable[tuple[object, str]], *, max_chars: int = MAX_CHARS, overlap: int = OVERLAP
) -> Iterator[tuple[int, int, str]]:
    """The spans of the sections' text joined, with their text, none across a change of key (a
    journal's day): each dated entry is chunked on its own, as stream_prose_spans would chunk
    it. A chunk of five entries over eight months embeds as none of them and is dated all eight
    months, so neither a question's meaning nor the newest evidence of a present state finds it.
    Text before the first key (a title, key None) goes with the first entry; consecutive
    sections with one key stay together, so a long entry streams through in blocks."""
    _check_overlap(max_chars, overlap)
    pending = iter(sections)
    current = next(pending, None)
    base = 0
    while current is not None:
        key, taken = current[0], 0

        def run() -> Iterator[str]:
            nonlocal current, key, taken
            while current is not None and (current[0] == key or key is None):
                key = current[0] if key is None else key  # the title joins the first entry
                taken += len(current[1])
                yield current[1]
                current = next(pending, None)

        for start, end, text in stream_prose_spans(run(), max_chars=max_chars, overlap=overlap):
            yield base + start, base + end, text
        base += taken


def render_message(message: Message) -> str:
    """One line per message: `[YYYY-MM-DD HH:MM] Sender: text`, in the sender's wall-clock time
    (`[undated]` for a message its source gave no time)."""
    t = message.time
    stamp = "undated" if t is None else f"{t.year:04d}-{t.month:02d}-{t.day:02d} {t.hour:02d}:{t.minute:02d}"
    if message.kind == "system":
        return f"[{stamp}] · {message.text}"
    return f"[{stamp}] {message.sender}: {message.text}"


_STAMP = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d\] ", re.M)


def embedding_text(chunk_text: str) -> str:
    """Chunk text without the per-line timestamps: they carry no meaning for the model and would
    use up its short window (MiniLM reads 256 tokens)."""
    return _STAMP.sub("", chunk_text)


@dataclass
class RenderedMessage:
    message: Message
    char_start: int
    char_end: int


@dataclass
class _Window:
    start: int = 0  # offset of the first line in the document text
    end: int = 0
    lines: list[str] = field(default_factory=list)
    speakers: dict[str, None] = field(default_factory=dict)
    first: datetime | None = None
    last: datetime | None = None


class MessageChunker:
    """Streams messages into document text and chunks, holding at most one window in memory.

    Feed messages in source order with `add`; each call returns the chunks it completed and the
    message's place in the document text. `finish` flushes the last window.
    """

    def __init__(self, *, max_chars: int = MAX_CHARS, gap: timedelta = WINDOW_GAP) -> None:
        self.max_chars = max_chars
        self.gap = gap
        self.offset = 0  # length of the document text so far
        self.ordinal = 0
        self._window = _Window()

    def add(self, message: Message) -> tuple[list[Chunk], RenderedMessage]:
        line = render_message(message)
        done: list[Chunk] = []
        window = self._window
        new_conversation = self._apart(window, message.time)
        too_long = window.lines and (window.end - window.start) + 1 + len(line) > self.max_chars
        if new_conversation or too_long:
            done.extend(self._flush())
            window = self._window
        start = self.offset
        end = start + len(line)
        self.offset = end + 1  # the newline after each message
        rendered = RenderedMessage(message, start, end)
        if len(line) > self.max_chars:
            # a single message longer than a chunk is split as prose, on its own
            done.extend(self._flush())
            done.extend(self._split_long(line, start, message))
            return done, rendered
        if not window.lines:
            window.start = start
            window.first = message.time
        window.lines.append(line)
        window.end = end
        window.last = message.time
        if message.kind != "system":
            window.speakers[message.sender] = None
        return done, rendered

    def finish(self) -> list[Chunk]:
        return self._flush()

    def _apart(self, window: _Window, moment: datetime | None) -> bool:
        """A new window: after a quiet gap, and between dated and undated messages (a chunk's
        time range never mixes the two)."""
        if moment is None or window.last is None:
            return bool(window.lines) and (moment is None) != (window.last is None)
        return moment - window.last > self.gap

    def _flush(self) -> list[Chunk]:
        window = self._window
        self._window = _Window(last=window.last)
        if not window.lines:
            return []
        chunk = Chunk(
            ordinal=self._next_ordinal(),
            char_start=window.start,
            char_end=window.end,
            text="\n".join(window.lines),
            time_start=window.first,
            time_end=window.last,
            speakers=tuple(window.speakers),
        )
        return [chunk]

    def _split_long(self, line: str, base: int, message: Message) -> list[Chunk]:
        speakers = () if message.kind == "system" else (message.sender,)
        return [
            Chunk(
                ordinal=self._next_ordinal(),
                char_start=base + s,
                char_end=base + e,
                text=line[s:e],
                time_start=message.time,
                time_end=message.time,
                speakers=speakers,
            )
            for s, e in prose_spans(line, max_chars=self.max_chars)
        ]

    def _next_ordinal(self) -> int:
        self.ordinal += 1
        return self.ordinal - 1
