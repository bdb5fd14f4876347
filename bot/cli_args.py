"""What several `biographer` subcommands share: argument types that reject bad values with one
line, the search filters, JSON printing, and opening the CLI's facet for a command.

Kept light on purpose: `biographer --help` imports this and nothing of the core.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datetime import tzinfo

    from core.config import Settings
    from core.memory.facade import Memory
    from bot.compose import Facets
    from core.service.admin import AdminFacet
    from core.types import SearchFilters

MAX_COUNT = 10_000  # a page, a limit: more than anyone reads, small enough to never overflow


def add_command(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser, name: str, help: str,
                example: str, handler) -> argparse.ArgumentParser:
    """A subcommand in the house form: its help as a sentence, an example under it, the shared
    options (`parent`), and the function that runs it."""
    p = sub.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".",
                       epilog=f"example:\n  {example}", parents=[parent],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(handler=handler)
    return p


def count(minimum: int = 1, maximum: int = MAX_COUNT):
    """An argparse type for a whole number in [minimum, maximum]."""
    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
        if not minimum <= number <= maximum:
            raise argparse.ArgumentTypeError(f"{value} is out of range: use {minimum} to {maximum}")
        return number

    parse.__name__ = "number"  # argparse names the type in its error message
    return parse


def date_text(value: str) -> str:
    """A date filter, checked now and read in the owner's time zone later (see core/dates.py)."""
    from datetime import timezone

    from core.dates import parse_bound
    from core.errors import UserFacingError

    try:
        parse_bound(value, zone=timezone.utc, end=False)
    except UserFacingError as error:
        raise argparse.ArgumentTypeError(f"{error.message} ({error.hint})") from None
    return value


def add_filter_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("filters")
    group.add_argument("--kind", action="append", default=[], metavar="KIND",
                       help="only sources of this kind, e.g. whatsapp, telegram, email, pdf, markdown, journal "
                            "(repeatable; `biographer stats` lists the kinds in your store)")
    group.add_argument("--person", help="only passages where this person speaks (any of their names, "
                                        "a first name or a nickname)")
    group.add_argument("--since", type=date_text, metavar="DATE",
                       help="from this date on: 2024, 2024-03, 2024-03-05, yesterday, last week, 3 days ago")
    group.add_argument("--until", type=date_text, metavar="DATE", help="up to the end of this date (same forms)")


def add_json_option(parser: argparse.ArgumentParser, what: str = "the result") -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON")


def filters_from(args: argparse.Namespace, zone: tzinfo) -> SearchFilters:
    """The filter options, their dates read in the owner's `zone`."""
    from core.types import SearchFilters

    if not args.since and not args.until:  # core.dates is imported by a date filter only
        return SearchFilters(kinds=tuple(args.kind), person=args.person)
    from core.dates import parse_bound

    return SearchFilters(
        kinds=tuple(args.kind), person=args.person,
        since=parse_bound(args.since, zone=zone, end=False) if args.since else None,
        until=parse_bound(args.until, zone=zone, end=True) if args.until else None)


def print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=1, default=str))


@asynccontextmanager
async def cli_facets(settings: Settings, *, model: bool = True) -> AsyncIterator[Facets]:
    """Every facet, for a command that runs a front end of its own (`biographer serve`)."""
    from bot.compose import open_facets

    async with open_facets(settings, with_model=model) as facets:
        yield facets


@asynccontextmanager
async def cli_memory(settings: Settings) -> AsyncIterator[Memory]:
    """The memory core alone, for a command that only searches and reads it (search, grep, read):
    none of the service's parts, facets or chat model are made, or their modules imported."""
    from bot.compose import open_memory

    async with open_memory(settings) as memory:
        yield memory


@asynccontextmanager
async def cli_service(settings: Settings, *, model: bool = True) -> AsyncIterator[AdminFacet]:
    """The CLI's facet for one command. `model=False` for commands that never ask the model
    (search, grep, read...): the model client, and its library, are then not even loaded."""
    from bot.compose import open_admin

    async with open_admin(settings, with_model=model) as service:
        yield service


def stderr(text: str) -> None:
    print(text, file=sys.stderr)
