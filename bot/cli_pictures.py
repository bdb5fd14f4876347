"""`biographer picture week|timeline|people`: the chat's pictures as PNG files (and `biographer
timeline --png FILE`, which shares `write_picture`)."""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli_args import add_json_option, cli_service, date_text, print_json

if TYPE_CHECKING:
    from core.config import Settings
    from core.pictures import Picture

KINDS = ("week", "timeline", "people")  # core.pictures.KINDS, not imported: --help stays light


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "picture", help="a picture of your data as a PNG: the week, the timeline, who you talk to",
        description="Draw a picture from your stored data (no model is called) and print the PNG's path. "
                    "week: messages per day and per person, who came up, sources added, questions answered "
                    "(the 7 days ending --until, at most 31). timeline: your dated events, coloured by kind. "
                    "people: messages over time from the people who write most.",
        epilog="examples:\n  biographer picture week\n  biographer picture people --since 2020 --out people.png\n"
               "  biographer picture timeline --json",
        parents=[parent], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=KINDS, help="which picture")
    parser.add_argument("--out", type=Path, metavar="FILE",
                        help="where to write the PNG (default: a file named after the picture, here)")
    parser.add_argument("--since", type=date_text, metavar="DATE",
                        help="from this date on: 2024, 2024-03, 2024-03-05, last week, 30 days ago "
                             "(default: the week's first day; all of the timeline and people)")
    parser.add_argument("--until", type=date_text, metavar="DATE",
                        help="up to the end of this date, same forms (default: today; the last message for people)")
    add_json_option(parser, "the path, the caption and the short description")
    parser.set_defaults(handler=cmd_picture)


def write_picture(picture: Picture, out: Path | None) -> Path:
    """The PNG written to `out` (or a file named after the picture here); its path."""
    from core.files import write_private

    path = out if out is not None else Path(picture.name)
    if path.is_dir():
        path = path / picture.name
    write_private(path, picture.png)
    return path.resolve()


def _bound(value: str | None, *, zone, end: bool) -> datetime | None:
    from core.dates import parse_bound

    return parse_bound(value, zone=zone, end=end) if value else None


async def cmd_picture(args: argparse.Namespace, settings: Settings) -> int:
    """Draw one picture, write it, print where."""
    async with cli_service(settings, model=False) as service:
        zone = service.timezone
        picture = await service.pictures.make(args.kind, since=_bound(args.since, zone=zone, end=False),
                                        until=_bound(args.until, zone=zone, end=True))
    path = write_picture(picture, args.out)
    if args.json:
        print_json({"path": str(path), "caption": picture.caption, "alt": picture.alt, "empty": picture.empty})
    else:
        print(path)
    return 0
