"""The week at a glance: messages per day (yours and others'), who wrote most, who came up most,
sources added and open questions answered; one picture and the same in words."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from core.dates import span_text
from core.pictures import Picture
from core.pictures.canvas import (BLUE, GREY, HEADING_SIZE, ORANGE, SKY, SMALL_SIZE, TEXT_SIZE, TITLE_SIZE,
                                  drawing, empty_note, listing, number, png, shorten)
from core.words import counted

TOP = 5  # names per list: five bars stay readable on a phone
NAME_CHARS = 20
BAR_LEFT, BAR_SPAN = 0.45, 0.45  # in a name list: where the bars start, and the longest bar's length


@dataclass(frozen=True)
class DayCount:
    day: date
    yours: int
    others: int

    @property
    def total(self) -> int:
        return self.yours + self.others


@dataclass(frozen=True)
class NameCount:
    name: str
    count: int


@dataclass(frozen=True)
class WeekData:
    days: tuple[DayCount, ...]  # every day of the period, in order
    senders: tuple[NameCount, ...]  # most messages from (the owner aside), most first
    mentioned: tuple[NameCount, ...]  # named in most messages and entries, most first
    sources: tuple[NameCount, ...]  # sources added, per kind
    questions_answered: int
    questions_open: int

    @property
    def first(self) -> date:
        return self.days[0].day

    @property
    def last(self) -> date:
        return self.days[-1].day


def _names(items: tuple[NameCount, ...]) -> str:
    return ", ".join(f"{item.name} ({number(item.count)})" for item in items)


def caption(data: WeekData) -> str:
    """Everything the picture shows, in words."""
    yours = sum(d.yours for d in data.days)
    total = sum(d.total for d in data.days)
    lines = [f"{'Your week' if len(data.days) == 7 else 'Your days'} at a glance, {span_text(data.first, data.last)}."]
    if total:
        peak = max(d.total for d in data.days)
        busiest = [f"{d.day:%A} {d.day.day}" for d in data.days if d.total == peak]
        per_day = ", ".join(f"{d.day:%a} {d.day.day}: {number(d.total)}" for d in data.days)
        lines.append(f"Messages: {number(total)}, {number(yours)} of them yours; busiest {listing(busiest)} "
                     f"({number(peak)}{' each' if len(busiest) > 1 else ''}). Per day: {per_day}.")
    else:
        lines.append("Messages: none in this period.")
    if data.senders:
        lines.append(f"Most messages from: {_names(data.senders)}.")
    if data.mentioned:
        lines.append(f"Came up most (messages and entries naming them): {_names(data.mentioned)}.")
    added = sum(s.count for s in data.sources)
    kinds = ", ".join(f"{number(s.count)} {s.name}" for s in data.sources)
    lines.append(f"Sources added: {number(added)}" + (f" ({kinds})." if added else "."))
    lines.append(f"Open questions answered: {number(data.questions_answered)}; "
                 f"{number(data.questions_open)} still open.")
    return "\n".join(lines)


def alt(data: WeekData) -> str:
    total = sum(d.total for d in data.days)
    who = f", most from {data.senders[0].name}" if data.senders else ""
    return (f"The week of {span_text(data.first, data.last)} at a glance: {counted(total, 'message')}{who}; "
            f"{counted(sum(s.count for s in data.sources), 'source')} added; "
            f"{counted(data.questions_answered, 'open question')} answered.")


def draw(data: WeekData) -> Picture:
    with drawing() as figure:
        grid = figure.add_gridspec(4, 1, height_ratios=(3.0, 2.5, 2.5, 1.3), hspace=0.75,
                                   left=0.07, right=0.95, top=0.83, bottom=0.02)
        title = "Your week" if len(data.days) == 7 else "Your days"
        figure.text(0.07, 0.96, title, fontsize=TITLE_SIZE, fontweight="bold", va="center")
        figure.text(0.07, 0.92, span_text(data.first, data.last), fontsize=TEXT_SIZE, color=GREY, va="center")
        _per_day(figure.add_subplot(grid[0]), data)
        _bars(figure.add_subplot(grid[1]), "Most messages from", data.senders, BLUE,
              empty="No messages from others")
        _bars(figure.add_subplot(grid[2]), "Came up most", data.mentioned, SKY, empty="Nobody named")
        _tiles(figure.add_subplot(grid[3]), data)
        image = png(figure)
    empty = not any(d.total for d in data.days) and not data.sources and not data.questions_answered
    return Picture(png=image, caption=caption(data), alt=alt(data), name=f"week-{data.last.isoformat()}.png",
                   empty=empty)


def _per_day(axes, data: WeekData) -> None:
    axes.set_title("Messages per day")
    if not any(d.total for d in data.days):
        empty_note(axes, "No messages in this period")
        return
    xs = range(len(data.days))
    yours = [d.yours for d in data.days]
    others = [d.others for d in data.days]
    axes.bar(xs, yours, color=BLUE, width=0.72, label="you")
    axes.bar(xs, others, bottom=yours, color=ORANGE, width=0.72, label="others")
    peak = max(d.total for d in data.days)
    few = len(data.days) <= 10
    for x, day in zip(xs, data.days):
        if few and day.total:
            axes.text(x, day.total + peak * 0.03, number(day.total), ha="center", va="bottom", fontsize=SMALL_SIZE)
    axes.set_ylim(0, peak * 1.22)
    step = 1 if few else -(-len(data.days) // 6)  # six labels at most
    axes.set_xticks(list(xs)[::step],
                    [f"{d.day:%a} {d.day.day}" if few else f"{d.day.day} {d.day:%b}" for d in data.days][::step])
    axes.tick_params(axis="x", length=0, labelsize=SMALL_SIZE)
    axes.set_yticks([])
    axes.spines["left"].set_visible(False)
    axes.legend(loc="upper right", bbox_to_anchor=(1.0, 1.2), ncol=2, frameon=False, fontsize=SMALL_SIZE,
                handlelength=1.0, handletextpad=0.4, columnspacing=1.0)


def _bars(axes, title: str, items: tuple[NameCount, ...], colour: str, *, empty: str) -> None:
    """A small table: each name on the left, its bar and count beside it, the largest on top."""
    axes.set_title(title)
    shown = items[:TOP]
    if not shown:
        empty_note(axes, empty)
        return
    axes.set_axis_off()
    axes.set_xlim(0, 1)
    axes.set_ylim(TOP - 0.4, -0.6)  # rows from the top, the same height whether there are 2 names or 5
    peak = max(item.count for item in shown)
    for row, item in enumerate(shown):
        axes.text(0, row, shorten(item.name, NAME_CHARS), va="center", fontsize=TEXT_SIZE)
        width = BAR_SPAN * item.count / peak
        axes.barh(row, width, left=BAR_LEFT, color=colour, height=0.62)
        axes.text(BAR_LEFT + width + 0.015, row, number(item.count), va="center", fontsize=SMALL_SIZE)


def _tiles(axes, data: WeekData) -> None:
    """The two counts as large numbers, one per line."""
    axes.set_axis_off()
    added = sum(s.count for s in data.sources)
    kinds = ", ".join(f"{s.count} {s.name}" for s in data.sources[:3]) + (" …" if len(data.sources) > 3 else "")
    answered = data.questions_answered
    rows = ((number(added), "source added" if added == 1 else "sources added", kinds),
            (number(answered), "question answered" if answered == 1 else "questions answered",
             f"{number(data.questions_open)} still open"))
    for y, (big, label, small) in zip((0.8, 0.15), rows):
        axes.text(0, y, big, fontsize=24, fontweight="bold", va="center", transform=axes.transAxes)
        axes.text(0.13, y, label, fontsize=HEADING_SIZE, va="center", transform=axes.transAxes)
        if small:
            axes.text(0.6, y, shorten(small, 28), fontsize=SMALL_SIZE, color=GREY, va="center",
                      transform=axes.transAxes)
