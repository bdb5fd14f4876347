"""Who the owner talks to: for the people who wrote most, their messages over time, one row each
(small multiples: no legend to decode, no lines crossing), and the same in words."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from core.dates import span_text
from core.pictures import Picture
from core.pictures.canvas import (BLUE, FAINT, GREEN, GREY, ORANGE, PURPLE, SKY, SMALL_SIZE, TEXT_SIZE, TITLE_SIZE,
                                  VERMILION, drawing, empty_note, number, png, shorten)
from core.words import counted

TOP = 6
COLOURS = (BLUE, ORANGE, GREEN, VERMILION, PURPLE, SKY)
# the coarsest bins that still show a pattern: a row stays readable with up to about 60 bars
UNITS = (("day", 45), ("week", 26 * 7), ("month", 62 * 31), ("quarter", 16 * 366))


def unit_for(first: date, last: date) -> str:
    """"day", "week", "month", "quarter" or "year": the bin for a period of this length."""
    days = (last - first).days + 1
    return next((unit for unit, most in UNITS if days <= most), "year")


def bin_start(day: date, unit: str) -> date:
    if unit == "day":
        return day
    if unit == "week":
        return day - timedelta(days=day.weekday())
    if unit == "month":
        return day.replace(day=1)
    if unit == "quarter":
        return date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)
    return date(day.year, 1, 1)


def next_bin(start: date, unit: str) -> date:
    if unit in ("day", "week"):
        return start + timedelta(days=1 if unit == "day" else 7)
    months = {"month": 1, "quarter": 3, "year": 12}[unit]
    index = start.year * 12 + start.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def bins_between(first: date, last: date, unit: str) -> tuple[date, ...]:
    """Every bin from the one holding `first` to the one holding `last`."""
    bins, current = [], bin_start(first, unit)
    while current <= last:
        bins.append(current)
        current = next_bin(current, unit)
    return tuple(bins)


def bin_text(start: date, unit: str) -> str:
    if unit == "day":
        return f"{start.day} {start:%b %Y}"
    if unit == "week":
        return f"the week of {start.day} {start:%b %Y}"
    if unit == "month":
        return f"{start:%b %Y}"
    if unit == "quarter":
        return f"Q{(start.month - 1) // 3 + 1} {start.year}"
    return str(start.year)


@dataclass(frozen=True)
class Series:
    name: str
    counts: tuple[int, ...]  # messages from them per bin

    @property
    def total(self) -> int:
        return sum(self.counts)


@dataclass(frozen=True)
class ContactData:
    first: date
    last: date
    unit: str
    bins: tuple[date, ...]  # the start of each bin
    people: tuple[Series, ...]  # the people who wrote most, most first
    everyone_else: int  # messages from all other people in the period


def _period(data: ContactData) -> str:
    return span_text(data.first, data.last)


def _describe(series: Series, data: ContactData) -> str:
    active = [i for i, n in enumerate(series.counts) if n]
    if not active:
        return f"{series.name}: no messages"
    peak = max(range(len(series.counts)), key=lambda i: (series.counts[i], i))
    span = f"from {bin_text(data.bins[active[0]], data.unit)} to {bin_text(data.bins[active[-1]], data.unit)}" \
        if len(active) > 1 else f"all in {bin_text(data.bins[active[0]], data.unit)}"
    return (f"{series.name}: {counted(series.total, 'message')}, {span}; most in "
            f"{bin_text(data.bins[peak], data.unit)} ({number(series.counts[peak])})")


def caption(data: ContactData) -> str:
    if not data.people:
        return f"Who you talk to, {_period(data)}: no messages from anyone in this period."
    lines = [f"Who you talk to, {_period(data)}: messages per {data.unit} from the "
             f"{counted(len(data.people), 'person', 'people')} who wrote most."]
    lines.extend(_describe(series, data) + "." for series in data.people)
    if data.everyone_else:
        lines.append(f"Everyone else: {counted(data.everyone_else, 'message')}.")
    return "\n".join(lines)


def alt(data: ContactData) -> str:
    if not data.people:
        return f"Who you talk to, {_period(data)}: nobody wrote in this period."
    names = ", ".join(s.name for s in data.people)
    return f"Messages per {data.unit}, {_period(data)}, from the people who wrote most: {names}."


def draw(data: ContactData) -> Picture:
    name = f"people-{data.last.isoformat()}.png"
    with drawing() as figure:
        figure.text(0.06, 0.96, "Who you talk to", fontsize=TITLE_SIZE, fontweight="bold", va="center")
        figure.text(0.06, 0.922, f"{_period(data)} · messages per {data.unit}", fontsize=TEXT_SIZE, color=GREY,
                    va="center")
        if not data.people:
            empty_note(figure.add_axes((0.06, 0.1, 0.88, 0.75)), "No messages in this period")
        else:
            _rows(figure, data)
        image = png(figure)
    return Picture(png=image, caption=caption(data), alt=alt(data), name=name, empty=not data.people)


def _rows(figure, data: ContactData) -> None:
    """One row per person on one time axis and one scale, so heights compare across rows."""
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter, date2num

    rows = len(data.people)
    grid = figure.add_gridspec(rows, 1, hspace=0.9, left=0.06, right=0.94, top=0.86,
                               bottom=max(0.07, 0.86 - 0.16 * rows))
    xs = [date2num(b) for b in data.bins]
    width = (xs[1] - xs[0]) * 0.85 if len(xs) > 1 else 20
    span = (xs[0] - width, xs[-1] + width * 1.2)
    top = max(max(series.counts) for series in data.people)
    shared = None
    for row, series in enumerate(data.people):
        axes = figure.add_subplot(grid[row], sharex=shared)
        shared = shared or axes
        colour = COLOURS[row % len(COLOURS)]
        axes.bar(xs, series.counts, width=width, align="edge", color=colour)
        peak = max(series.counts)
        axes.set_ylim(0, top * 1.05)
        axes.grid(axis="x", color=FAINT, linewidth=1)
        axes.set_axisbelow(True)
        axes.set_title(f"{shorten(series.name, 24)}", loc="left", fontsize=TEXT_SIZE, fontweight="bold", pad=6)
        axes.text(1.0, 1.0, f"{counted(series.total, 'message')} · peak {number(peak)}", transform=axes.transAxes,
                  ha="right", va="bottom", fontsize=SMALL_SIZE, color=GREY)
        axes.set_yticks([])
        axes.spines["left"].set_visible(False)
        axes.spines["bottom"].set_color(FAINT)
        axes.tick_params(axis="x", length=0, labelsize=SMALL_SIZE, labelbottom=row == rows - 1)
    locator = AutoDateLocator(minticks=3, maxticks=6)
    shared.xaxis.set_major_locator(locator)
    shared.xaxis.set_major_formatter(ConciseDateFormatter(locator, show_offset=False))
    shared.set_xlim(*span)
