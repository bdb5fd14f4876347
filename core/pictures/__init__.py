"""Pictures of the owner's stored data for the chat and the CLI: the week at a glance, the
timeline, who the owner talks to. Drawn from counts, names and event titles only (never message
text), with no model call; each comes with the same content in words for screen readers.

`gather.py` reads the store into small dataclasses; `week.py`, `timeline.py` and `contact.py`
draw them (pure functions, matplotlib's Agg canvas); `canvas.py` holds the shared look. May import core.memory, core.biographer and storage.
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("week", "timeline", "people")


@dataclass(frozen=True)
class Picture:
    png: bytes
    caption: str  # everything the picture shows, in words (screen readers; the text below it)
    alt: str  # one or two sentences: a photo's caption, an attachment's description
    name: str  # a file name for it: "week-2024-03-10.png"
    empty: bool = False  # nothing to show in the period: the caption says so, the image only repeats it
