"""`biographer ledger`: the promises you made, what others owe you, what you were recommended (and
the facts noted about people), each with its sources; add items by hand, mark them done or dropped,
and read new conversations into the ledger."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from bot.cli_args import add_json_option, cli_service, count, print_json

if TYPE_CHECKING:
    from core.config import Settings

LISTS = {"commitments": "commitment", "owed": "owed", "recommendations": "recommendation", "facts": "fact"}
ADDABLE = ("commitment", "owed", "recommendation")
STATUS_HELP = ("only items in this status: open (to do), in_progress, done, dropped, or all; repeatable or "
               "comma-separated (default: open and in_progress; all for facts)")
EPILOG = """examples:
  biographer ledger                                 everything still open
  biographer ledger commitments --person Maya       what you promised Maya
  biographer ledger add commitment "Bring Maya some orange cake" --person Maya --due friday
  biographer ledger add recommendation "Dr. Sousa, for the knee" --person Maya --category person
  biographer ledger recommendations --status all --json
  biographer ledger done 1 ; biographer ledger drop 2
  biographer ledger extract                         read new conversations (needs a model)"""


def _list_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    # on the subcommands, SUPPRESS keeps them from overwriting what was given before the subcommand
    default = (lambda value: value) if top else (lambda value: argparse.SUPPRESS)
    parser.add_argument("--status", action="append", default=default(None), metavar="STATUS", help=STATUS_HELP)
    parser.add_argument("--person", default=default(None),
                        help="only items with this person (any of their names, a first name or a nickname)")
    parser.add_argument("--category", default=default(None),
                        help="a recommendation's category (book, show, film, podcast, music, place, product, "
                             "article, person, other) or a fact's type (relationship, life_event, request)")
    parser.add_argument("--json", action="store_true", default=default(False), help="print the items as JSON")


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    parser = sub.add_parser("ledger", help="promises, what you are owed, recommendations, each with its sources",
                            description="Your ledger: promises you made (commitments), what others owe you, what "
                                        "you were recommended, and facts about people, each with the sources it "
                                        "comes from.",
                            epilog=EPILOG, parents=[parent], formatter_class=argparse.RawDescriptionHelpFormatter)
    _list_options(parser, top=True)
    parser.set_defaults(handler=cmd_list, kind=None)
    actions = parser.add_subparsers(dest="ledger_action", metavar="ACTION",
                                    help="a list, or what to do (default: everything still open)")
    for name, kind in LISTS.items():
        listed = actions.add_parser(name, parents=[parent], help=f"list {name}")
        _list_options(listed, top=False)
        listed.set_defaults(kind=kind)

    add = actions.add_parser("add", parents=[parent], help="add an item by hand (prints its number)",
                             epilog='example:\n  biographer ledger add owed "the 20 euros for the ferry" --person Maya '
                                    '--due "in 2 weeks"', formatter_class=argparse.RawDescriptionHelpFormatter)
    add.add_argument("kind", choices=ADDABLE, help="commitment (you promised), owed (promised to you), recommendation")
    add.add_argument("text", nargs="+", help="what: 'Send Ana the deck', or the recommended thing's title")
    add.add_argument("--person", help="who it is promised to / owed by / recommended by (needed but for "
                                      "recommendations)")
    add.add_argument("--due", help="when it is due: YYYY-MM-DD, today, tomorrow, friday, in 3 days (default: none)")
    add.add_argument("--category", help="a recommendation's category: book, show, film, podcast, music, place, "
                                        "product, article, person, other (default: other)")
    add.add_argument("--new-person", action="store_true",
                     help="the person is in none of your sources yet: record them as someone new")
    add_json_option(add, '{"id": ...}')
    add.set_defaults(handler=cmd_add)

    for verb, status in (("done", "done"), ("drop", "dropped")):
        p = actions.add_parser(verb, parents=[parent], help=f"mark an item {status}",
                               epilog=f"example:\n  biographer ledger {verb} 1",
                               formatter_class=argparse.RawDescriptionHelpFormatter)
        p.add_argument("id", type=count(1, 2**62), help="the item's number, as `biographer ledger` shows it")
        add_json_option(p, "the item")
        p.set_defaults(handler=cmd_status, status=status)

    extract = actions.add_parser("extract", parents=[parent],
                                 help="read conversations not read yet into the ledger (needs a model)",
                                 epilog="example:\n  biographer ledger extract --windows 20",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    extract.add_argument("--windows", type=count(1, 10**9),
                         help="stop after this many model calls (default: until everything is read)")
    add_json_option(extract, "what was read")
    extract.set_defaults(handler=cmd_extract)


def _statuses(args: argparse.Namespace) -> tuple[str, ...]:
    from core.ledger.book import OPEN, check_status

    given = [s.strip() for value in args.status or () for s in value.split(",") if s.strip()]
    if "all" in given:
        return ()
    if not given:
        return () if args.kind == "fact" else OPEN
    return tuple(dict.fromkeys(check_status(s) for s in given))


async def cmd_list(args: argparse.Namespace, settings: Settings) -> int:
    """The ledger's items, by kind, with their sources."""
    from core.ledger.book import LedgerQuery
    from core.ledger.text import HEADINGS, item_json, items_text

    kinds = (args.kind,) if args.kind else ("commitment", "owed", "recommendation")
    async with cli_service(settings, model=False) as service:
        items = await service.ledger.items(LedgerQuery(kinds=kinds, statuses=_statuses(args), person=args.person,
                                                       category=args.category))
        zone = service.timezone
    if args.json:
        print_json([item_json(i) for i in items])
        return 0
    print("\n\n".join(items_text([i for i in items if i.kind == kind], zone, heading=HEADINGS[kind])
                      for kind in kinds))
    return 0


async def cmd_add(args: argparse.Namespace, settings: Settings) -> int:
    """Add an item by hand; prints its number (an item already kept gets this as one more source)."""
    from core.ledger.text import headline

    async with cli_service(settings, model=False) as service:
        due = service.due_date(args.due) if args.due else None
        item, new = await service.ledger.add(args.kind, " ".join(args.text), person=args.person, due=due,
                                                  category=args.category, new_person=args.new_person)
    if args.json:
        print_json({"id": item.id, "new": new})
    else:
        print(item.id)
        print(("added: " if new else "already in the ledger, your words added as a source: ") + headline(item),
              file=sys.stderr)
    return 0


async def cmd_status(args: argparse.Namespace, settings: Settings) -> int:
    """Mark an item done or dropped."""
    from core.ledger.text import headline, item_json

    async with cli_service(settings, model=False) as service:
        item = await service.ledger.set_status(args.id, args.status)
    print_json(item_json(item)) if args.json else print(headline(item))
    return 0


async def cmd_extract(args: argparse.Namespace, settings: Settings) -> int:
    """Read conversations not read yet into the ledger: the model proposes, code checks every source."""
    from bot.progress import TerminalProgress

    progress = TerminalProgress()
    async with cli_service(settings) as service:
        try:
            result = await service.extract_ledger(max_windows=args.windows, progress=progress)
        finally:
            progress.close()
    if args.json:
        print_json({"conversations": result.conversations, "windows": result.windows, "added": result.added,
                    "merged": result.merged, "updated": result.updated, "rejected": dict(result.rejected),
                    "unreadable_windows": result.failed_windows, "stopped": result.stopped})
    else:
        print(result.summary())
    return 0
