"""The look shared by every picture: a 1080x1350 portrait canvas (what a phone shows full width),
large type, colour-blind-safe colours, and names drawn right in any script the fonts cover.

Fonts: DejaVu Sans, which ships inside matplotlib, so text renders on a machine with no fonts at
all. It covers Latin (with Vietnamese), Greek, Cyrillic, Armenian, Georgian, Hebrew and Arabic;
matplotlib 3.11 lays text out with libraqm, so Arabic letters join and right-to-left names read
in their order. It has no Chinese, Japanese, Korean, Indic or Thai:
a font for those installed on the machine (Noto CJK, Noto Sans Devanagari...; Debian's
fonts-noto-cjk) is used for those letters when present, else they show as boxes. The caption
always has every name right.

matplotlib is imported here, lazily by the callers: `biographer --help` and the bots' start-up do
not pay for it.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

WIDTH_IN, HEIGHT_IN, DPI = 6.0, 7.5, 180  # 1080 x 1350 pixels
FONT = "DejaVu Sans"
# installed fonts tried, in order, for letters DejaVu Sans lacks (only those found are named,
# so matplotlib never warns about a missing family)
FALLBACK_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Sans CJK KR", "Noto Sans Devanagari",
                  "Noto Sans Bengali", "Noto Sans Tamil", "Noto Sans Thai", "WenQuanYi Zen Hei",
                  "Droid Sans Fallback", "Arial Unicode MS", "PingFang SC", "Hiragino Sans",
                  "Apple SD Gothic Neo", "Microsoft YaHei", "Malgun Gothic", "Nirmala UI", "Leelawadee UI")

# Okabe and Ito's palette: told apart by people with any common colour blindness
BLUE, ORANGE, GREEN, VERMILION = "#0072B2", "#E69F00", "#009E73", "#D55E00"
SKY, PURPLE, GREY, INK, FAINT = "#56B4E9", "#CC79A7", "#8C8C8C", "#222222", "#E6E6E6"

TITLE_SIZE, HEADING_SIZE, TEXT_SIZE, SMALL_SIZE = 20, 15, 14, 12

_render_lock = threading.Lock()  # rc settings are process-wide: one drawing at a time


@cache
def font_families() -> tuple[str, ...]:
    from matplotlib import font_manager

    installed = {entry.name for entry in font_manager.fontManager.ttflist}
    return (FONT, *(name for name in FALLBACK_FONTS if name in installed))


def _style() -> dict:
    return {
        "font.family": list(font_families()), "font.size": TEXT_SIZE,
        "axes.titlesize": HEADING_SIZE, "axes.titleweight": "bold", "axes.titlelocation": "left",
        "axes.titlepad": 10, "axes.spines.top": False, "axes.spines.right": False,
        "axes.edgecolor": "#555555", "axes.labelcolor": INK, "text.color": INK,
        "xtick.color": INK, "ytick.color": INK, "xtick.labelsize": SMALL_SIZE, "ytick.labelsize": TEXT_SIZE,
        "figure.facecolor": "white", "savefig.facecolor": "white", "axes.facecolor": "white",
    }


@contextmanager
def drawing() -> Iterator[Figure]:
    """A blank portrait figure under the shared style; use `png(figure)` inside the block."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with _render_lock, matplotlib.rc_context(_style()):
        figure = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI)
        FigureCanvasAgg(figure)  # the Agg canvas: no display, no GUI toolkit
        yield figure


def png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    # no "Software" stamp: the same data gives byte-identical images across matplotlib patch releases
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word where it can be, with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:-–") + "…"


def empty_note(axes, text: str) -> None:
    """An empty panel that says why it is empty."""
    axes.set_axis_off()
    axes.text(0.5, 0.5, text, ha="center", va="center", color=GREY, fontsize=TEXT_SIZE,
              transform=axes.transAxes)


def number(n: int) -> str:
    return f"{n:,}"


def listing(words: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
