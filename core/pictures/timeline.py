"""The timeline as a picture: years across, each event a mark coloured (and shaped) by its kind,
the best-sourced events labelled with their titles, one row each so no label covers another.

The kind (work, home, health, people) is read from the event's words with a small keyword table;
an event that matches none is "other". The picture shows titles and dates only, never details.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta

from core.pictures import Picture
from core.pictures.canvas import (BLUE, FAINT, GREEN, GREY, ORANGE, SMALL_SIZE, TEXT_SIZE, TITLE_SIZE, VERMILION,
                                  drawing, empty_note, png, shorten)
from core.words import counted

MAX_ROWS = 14  # labelled events: more would not be readable on a phone
TITLE_CHARS = 30


@dataclass(frozen=True)
class Kind:
    name: str
    legend: str  # what the colour means, in the legend
    colour: str
    marker: str  # a shape too, so the kinds differ without colour
    words: tuple[str, ...]  # word beginnings that make an event this kind


# earlier kinds win ties: a hospital stay while moving house is about health first
KINDS: tuple[Kind, ...] = (
    Kind("health", "health", VERMILION, "P", (
        "health", "hospital", "doctor", "surg", "operat", "ill", "sick", "diagnos", "injur", "broke", "fractur",
        "physio", "therap", "dentist", "clinic", "cancer", "covid", "flu", "pregnan", "miscarr", "recover",
        "rehab", "medic", "knee", "back pain", "marathon", "diet", "sober", "allerg", "vaccin", "mental")),
    Kind("people", "people & family", GREEN, "D", (
        "married", "marri", "wedding", "divorc", "engag", "met ", "meet", "friend", "girlfriend", "boyfriend",
        "partner", "dating", "date with", "broke up", "breakup", "split", "born", "birth", "baby", "son",
        "daughter", "mother", "mum", "mom", "father", "dad", "sister", "brother", "grand", "family", "died",
        "death", "funeral", "passed away", "anniversar", "reunion", "wife", "husband")),
    Kind("home", "home & moves", ORANGE, "^", (
        "moved", "move", "moving", "relocat", "house", "flat", "apartment", "home", "rent", "lease", "mortgage",
        "landlord", "flatmate", "roommate", "neighbo", "bought a place", "settled in", "emigrat", "immigrat")),
    Kind("work", "work & study", BLUE, "s", (
        "job", "work", "hired", "promot", "career", "company", "office", "boss", "colleague", "startup",
        "interview", "resign", "quit", "fired", "laid off", "layoff", "retir", "intern", "business", "contract",
        "salary", "client", "launch", "founded", "employ", "manager", "team", "school", "universit", "college",
        "degree", "graduat", "studies", "studied", "exam", "thesis", "phd", "course", "bakery", "shop")),
)
OTHER = Kind("other", "other", GREY, "o", ())
BY_NAME = {kind.name: kind for kind in (*KINDS, OTHER)}
_PATTERNS = {kind.name: re.compile(r"\b(?:" + "|".join(re.escape(w) for w in kind.words) + ")", re.IGNORECASE)
             for kind in KINDS}


def kind_of(title: str, detail: str = "") -> str:
    """The kind of an event: one its title has words of, else one its detail has; where several
    fit, the first in KINDS."""
    scores = {name: 2 * bool(pattern.search(title)) + bool(pattern.search(detail))
              for name, pattern in _PATTERNS.items()}
    best = max(KINDS, key=lambda kind: scores[kind.name])  # max keeps the first of equals
    return best.name if scores[best.name] else OTHER.name


def event_span(date_text: str) -> tuple[date, date] | None:
    """The days a timeline date names (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`): a year, a month or a
    day; None for a date that does not exist."""
    try:
        parts = [int(p) for p in date_text.split("-")]
        if len(parts) == 1:
            return date(parts[0], 1, 1), date(parts[0], 12, 31)
        if len(parts) == 2:
            following = date(parts[0] + parts[1] // 12, parts[1] % 12 + 1, 1)
            return date(parts[0], parts[1], 1), following - timedelta(days=1)
        if len(parts) == 3:
            return date(*parts), date(*parts)
    except ValueError:
        pass
    return None


@dataclass(frozen=True)
class Mark:
    number: int  # its place in the period's events, by date (the list below the picture uses it)
    date_text: str  # as stored: YYYY, YYYY-MM or YYYY-MM-DD
    first: date  # the days that date names
    last: date
    title: str
    kind: str
    locators: tuple[str, ...]

    @property
    def middle(self) -> date:
        return self.first + (self.last - self.first) / 2


@dataclass(frozen=True)
class TimelineData:
    marks: tuple[Mark, ...]  # the period's events, by date


def labelled(marks: tuple[Mark, ...]) -> tuple[Mark, ...]:
    """The events that get a row and a label: all when they fit, else the best sourced (most
    citations; the later of equals), shown in date order."""
    if len(marks) <= MAX_ROWS:
        return marks
    best = sorted(marks, key=lambda m: (len(m.locators), m.first, m.number), reverse=True)[:MAX_ROWS]
    return tuple(sorted(best, key=lambda m: m.number))


def _years(data: TimelineData) -> str:
    first = min(m.first for m in data.marks).year
    last = max(m.last for m in data.marks).year
    return str(first) if first == last else f"{first}–{last}"


def _kind_counts(marks: tuple[Mark, ...]) -> str:
    counts = Counter(m.kind for m in marks)
    return ", ".join(f"{counts[k.name]} {k.name}" for k in (*KINDS, OTHER) if counts[k.name])


def event_line(mark: Mark) -> str:
    sources = f" — {', '.join(mark.locators)}" if mark.locators else ""
    return f"{mark.number}. {mark.date_text} · {mark.title} ({mark.kind}){sources}"


def caption(data: TimelineData) -> str:
    """The picture in words, then every event of the period with its sources."""
    if not data.marks:
        return "Timeline: no dated events in this period yet (they are added as your sources are analysed)."
    shown = labelled(data.marks)
    lines = [f"Timeline, {_years(data)}: {counted(len(data.marks), 'event')} ({_kind_counts(data.marks)})."]
    if len(shown) < len(data.marks):
        lines.append(f"The picture labels the {len(shown)} best-sourced events; the strip at its foot marks all "
                     f"{len(data.marks)}.")
    lines.append("")
    lines.extend(event_line(mark) for mark in data.marks)
    return "\n".join(lines)


def alt(data: TimelineData) -> str:
    if not data.marks:
        return "An empty timeline: no dated events yet."
    return (f"Timeline of {counted(len(data.marks), 'event')}, {_years(data)}, coloured by kind "
            f"({_kind_counts(data.marks)}); the events are listed below.")


def draw(data: TimelineData) -> Picture:
    name = "timeline.png"
    with drawing() as figure:
        figure.text(0.06, 0.96, "Your timeline", fontsize=TITLE_SIZE, fontweight="bold", va="center")
        if not data.marks:
            empty_note(figure.add_axes((0.06, 0.1, 0.88, 0.75)), "No dated events yet")
            return Picture(png=png(figure), caption=caption(data), alt=alt(data), name=name, empty=True)
        shown = labelled(data.marks)
        strip = len(shown) < len(data.marks)
        figure.text(0.06, 0.922, f"{_years(data)} · {counted(len(data.marks), 'event')}"
                    + (f", {len(shown)} labelled" if strip else ""), fontsize=TEXT_SIZE, color=GREY, va="center")
        _legend(figure, data)
        axes = figure.add_axes((0.05, 0.2 if strip else 0.07, 0.9, 0.62 if strip else 0.75))
        lo, hi = _limits(data)
        _rows(figure, axes, shown, lo, hi)
        _year_axis(axes, lo, hi)
        if strip:
            _strip(figure.add_axes((0.05, 0.05, 0.9, 0.045)), data.marks, lo, hi)
        image = png(figure)
    return Picture(png=image, caption=caption(data), alt=alt(data), name=name)


def _limits(data: TimelineData) -> tuple[date, date]:
    """The dates across: every event's whole span, a margin, and at least a year."""
    lo = min(m.first for m in data.marks)
    hi = max(m.last for m in data.marks)
    margin = max(timedelta(days=45), (hi - lo) * 0.04)
    lo, hi = lo - margin, hi + margin
    if hi - lo < timedelta(days=365):
        middle = lo + (hi - lo) / 2
        lo, hi = middle - timedelta(days=183), middle + timedelta(days=183)
    return lo, hi


def _legend(figure, data: TimelineData) -> None:
    from matplotlib.lines import Line2D

    present = {m.kind for m in data.marks}
    kinds = [k for k in (*KINDS, OTHER) if k.name in present]
    handles = [Line2D([], [], linestyle="", marker=k.marker, markersize=11, color=k.colour, label=k.legend)
               for k in kinds]
    figure.legend(handles=handles, loc="center left", bbox_to_anchor=(0.04, 0.868), ncol=3, frameon=False,
                  fontsize=SMALL_SIZE, handletextpad=0.3, columnspacing=1.0)


def _when(mark: Mark) -> str:
    first, last = mark.first, mark.last
    if last - first > timedelta(days=31):
        return str(first.year)
    return f"{first:%b} {first.year}" if first != last else f"{first.day} {first:%b} {first.year}"


def _rows(figure, axes, marks: tuple[Mark, ...], lo: date, hi: date) -> None:
    """One row per event, top to bottom by date: its span as a faint bar, its mark in the middle,
    its title beside the mark on whichever side has room."""
    from matplotlib.dates import date2num

    axes.set_xlim(date2num(lo), date2num(hi))
    axes.set_ylim(len(marks) - 0.4, -0.6)
    renderer = figure.canvas.get_renderer()
    box = axes.get_window_extent(renderer)
    for row, mark in enumerate(marks):
        kind = BY_NAME[mark.kind]
        first, last = mark.first, mark.last
        if last > first:
            axes.plot([date2num(first), date2num(last + timedelta(days=1))], [row, row], color=kind.colour,
                      alpha=0.3, linewidth=7, solid_capstyle="butt")
        x = date2num(mark.middle)
        axes.plot([x], [row], linestyle="", marker=kind.marker, markersize=12, color=kind.colour,
                  markeredgecolor="white", markeredgewidth=1.2, zorder=3)
        right = (x - date2num(lo)) / (date2num(hi) - date2num(lo)) <= 0.5
        # beside the span's end (or start), so the label never covers its own bar
        anchors = {True: max(x, date2num(last + timedelta(days=1))), False: min(x, date2num(first))}
        _place_label(axes, renderer, box, anchors, row, mark, right=right)


def _place_label(axes, renderer, box, anchors: dict[bool, float], row: int, mark: Mark, *, right: bool) -> None:
    """"Title · date" beside its mark: on the roomier side, then the other, then with the year
    only, and at last with the title shortened until it fits inside the axes."""
    from matplotlib.transforms import offset_copy

    label = axes.text(0, row, "", va="center", fontsize=TEXT_SIZE)

    def fits(text: str, side: bool) -> bool:
        label.set_transform(offset_copy(axes.transData, fig=axes.figure, x=10 if side else -10, y=0,
                                        units="points"))
        label.set_position((anchors[side], row))
        label.set_horizontalalignment("left" if side else "right")
        label.set_text(text)
        extent = label.get_window_extent(renderer)
        return extent.x0 >= box.x0 and extent.x1 <= box.x1

    title, year = shorten(mark.title, TITLE_CHARS), str(mark.first.year)
    for text in (f"{title} · {_when(mark)}", f"{title} · {year}"):
        for side in (right, not right):
            if fits(text, side):
                return
    limit = len(title)
    while limit > 6 and not fits(f"{shorten(title, limit)} · {year}", right):
        limit -= 2


def _year_axis(axes, lo: date, hi: date) -> None:
    from matplotlib.dates import DateFormatter, YearLocator

    years = (hi - lo).days / 365.25
    step = next(s for s in (1, 2, 5, 10, 20, 50, 100) if years / s <= 7)
    axes.xaxis.set_major_locator(YearLocator(step))
    axes.xaxis.set_major_formatter(DateFormatter("%Y"))
    axes.grid(axis="x", color=FAINT, linewidth=1)
    axes.set_axisbelow(True)
    axes.set_yticks([])
    axes.tick_params(axis="x", labelsize=SMALL_SIZE, length=0, pad=6)
    for side in ("left", "right", "top"):
        axes.spines[side].set_visible(False)


def _strip(axes, marks: tuple[Mark, ...], lo: date, hi: date) -> None:
    """Every event of the period as a tick in its kind's colour, under the labelled rows."""
    from matplotlib.dates import date2num

    axes.set_xlim(date2num(lo), date2num(hi))
    axes.set_ylim(-1, 1)
    axes.set_axis_off()
    for mark in marks:
        axes.plot([date2num(mark.middle)] * 2, [-0.8, 0.8], color=BY_NAME[mark.kind].colour, linewidth=2)
    axes.text(0, 1.2, f"all {counted(len(marks), 'event')}", transform=axes.transAxes, fontsize=SMALL_SIZE, color=GREY)
