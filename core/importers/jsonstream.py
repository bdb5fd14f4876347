"""Streaming JSON helpers over ijson: a chat export of several GB is read as events, and only one
message object at a time is built in memory."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

import ijson

from core.errors import ImportFailed

Event = tuple[str, str, Any]

_BAD_ESCAPE = re.compile(rb"(?<!\\)((?:\\\\)*)\\x([0-9A-Fa-f]{2})")
_ESCAPE_CHARS = frozenset(b"\\xX0123456789abcdefABCDEF")


class EscapeRepairingReader:
    """A binary reader that rewrites `\\xNN` escapes (invalid JSON) as `\\u00NN`.

    Telegram Desktop writes control characters that way (EXPORT_FORMATS.md §2.5). Each block is
    cut after a byte that cannot belong to an escape, so no `\\xNN` (or the run of backslashes
    before it, which decides whether it is an escape at all) is split between two blocks.
    """

    def __init__(self, raw: IO[bytes], block: int = 1 << 16) -> None:
        self.raw = raw
        self.block = block
        self.carry = b""

    def read(self, size: int = -1) -> bytes:
        if size == 0:  # ijson probes read(0) to learn whether the stream gives bytes or str
            return b""
        data = self.carry + self.raw.read(max(size, self.block) if size > 0 else -1)
        if not data:
            return b""
        eof = len(data) <= len(self.carry) or size <= 0
        cut = len(data)
        if not eof:
            cut = max(len(data) - 4, 0)
            while cut > 0 and data[cut - 1] in _ESCAPE_CHARS:
                cut -= 1
            if cut == 0:  # a very long run of hex-looking bytes: keep it whole for next time
                self.carry = data
                return self.read(size)
        piece, self.carry = data[:cut], data[cut:]
        if b"\\x" in piece:
            piece = _BAD_ESCAPE.sub(rb"\1\\u00\2", piece)
        return piece


@contextmanager
def json_errors(source: str) -> Iterator[None]:
    """ijson's errors become one clear line naming the file."""
    try:
        yield
    except ijson.IncompleteJSONError as error:
        reason = str(error).strip().splitlines()[0][:120] if str(error).strip() else "cut short"
        raise ImportFailed(source, f"is not valid JSON or is cut short ({reason})",
                           hint="the export may be incomplete; export or download it again") from None
    except ijson.JSONError as error:
        raise ImportFailed(source, f"is not valid JSON ({error})",
                           hint="the export may be incomplete; export or download it again") from None
    except UnicodeDecodeError as error:
        raise ImportFailed(source, f"is not UTF-8 JSON ({error.reason})",
                           hint="export it again; Biographer reads UTF-8 JSON") from None


def parse_events(reader: IO[bytes]) -> Iterator[Event]:
    return iter(ijson.parse(reader, use_float=True))


def objects_in_array(events: Iterator[Event], array_prefix: str) -> Iterator[dict]:
    """The objects of the array at `array_prefix`, built one at a time from the shared events.

    Call right after the array's start_array event; stops after its end_array, leaving `events`
    positioned for the caller.
    """
    item = f"{array_prefix}.item"
    for prefix, event, value in events:
        if prefix == array_prefix and event == "end_array":
            return
        if prefix == item and event == "start_map":
            builder = ijson.ObjectBuilder()
            builder.event(event, value)
            for prefix2, event2, value2 in events:
                builder.event(event2, value2)
                if prefix2 == item and event2 == "end_map":
                    break
            yield builder.value


def skip_rest(iterator: Iterator[Any]) -> None:
    """Drain a sub-iterator the consumer left unfinished, so the shared event stream moves on."""
    for _ in iterator:
        pass
