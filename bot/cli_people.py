"""`biographer people`: who appears in the sources, under which names; merge two names into one
person (or add a nickname no source uses); list senders that matched none of the owner's aliases."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bot.cli_args import add_json_option, cli_service, count, print_json
from core.words import counted

if TYPE_CHECKING:
    from core.config import Settings


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    parser = sub.add_parser("people", help="people in your sources; merge their names",
                            description="People in your sources, with the names each goes by.",
                            epilog="examples:\n  biographer people\n  biographer people merge Maya 'Maya Costa'\n"
                                   "  biographer people unmatched\n  biographer people show Maya",
                            parents=[parent], formatter_class=argparse.RawDescriptionHelpFormatter)
    add_json_option(parser, "the list")
    actions = parser.add_subparsers(dest="people_action", metavar="ACTION")
    merge = actions.add_parser("merge", parents=[parent],
                               help="make OTHER another name of KEEP (a nickname no source uses works too)")
    merge.add_argument("keep", help="the name to keep, as `biographer people` shows it")
    merge.add_argument("other", help="the other name: a second spelling, a nickname, a number")
    add_json_option(merge, "the merged person")
    unmatched = actions.add_parser("unmatched", parents=[parent],
                                   help="senders never matched to you: add yours to BIOGRAPHER_OWNER_ALIASES")
    unmatched.add_argument("--limit", type=count(1, 10_000), default=50, help="how many to list (default: 50)")
    add_json_option(unmatched, "the list")
    actions.add_parser("owners", parents=[parent],
                       help="mark your stored messages again from BIOGRAPHER_OWNER_ALIASES "
                            "(done by itself at each start when the aliases changed)")
    show = actions.add_parser("show", parents=[parent],
                              help="one person's page: relationship, last contact, what is open both ways, "
                                   "recent interactions, facts, each with its source")
    show.add_argument("name", nargs="+", help="any of their names, a first name or a nickname")
    add_json_option(show, "the page")
    parser.set_defaults(handler=cmd_people)


def person_json(person) -> dict:
    return {"name": person.name, "aliases": list(person.aliases), "messages": person.messages}


async def cmd_people(args: argparse.Namespace, settings: Settings) -> int:
    """List people, merge two of them, or list unmatched senders."""
    async with cli_service(settings, model=False) as service:
        if args.people_action == "owners":
            changed = await service.follow_owner_aliases()
            print(f"{counted(changed, 'message')} changed owner; your aliases: "
                  f"{', '.join(settings.owner_aliases) or '(none set)'}")
            return 0
        if args.people_action == "show":
            return await _show(service, " ".join(args.name), as_json=args.json)
        if args.people_action == "merge":
            person = await service.merge_people(args.keep, args.other)
            if args.json:
                print_json(person_json(person))
            else:
                print(f"{person.name}: {', '.join(person.aliases)} ({counted(person.messages, 'message')})")
            return 0
        if args.people_action == "unmatched":
            senders = await service.unmatched_senders(limit=args.limit)
            if args.json:
                print_json([vars(s) for s in senders])
                return 0
            for s in senders:
                print(f"{s.messages:>7}  {s.sender}  ({s.platform})")
            if senders:
                print("\nIf one of these is you, add it to BIOGRAPHER_OWNER_ALIASES: your messages are marked as "
                      "yours at the next start of any command, with no re-import.")
            return 0
        people = await service.people()
    if args.json:
        print_json([person_json(p) for p in people])
        return 0
    for p in people:
        others = [a for a in p.aliases if a != p.name]
        print(f"{p.messages:>7}  {p.name}" + (f"  (also: {', '.join(others)})" if others else ""))
    return 0


async def _show(service, name: str, *, as_json: bool) -> int:
    from dataclasses import asdict

    from core.ledger.text import item_json, person_text

    page = await service.person_page(name)
    if not as_json:
        print(person_text(page, service.timezone))
        return 0
    data = asdict(page)
    for key in ("relationship", "promised_them", "they_owe", "recommended", "facts"):
        data[key] = [item_json(item) for item in getattr(page, key)]
    print_json(data)
    return 0
