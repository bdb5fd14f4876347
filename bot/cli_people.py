"""`biographer people`: who appears in the sources, under which names; merge two names into one
person; list senders that matched none of the owner's aliases."""

from __future__ import annotations

import argparse
import json

from core.config import Settings
from core.importers.base import ImportContext
from core.owners import follow_owner_aliases
from storage import people as people_store
from storage.db import open_database


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("people", help="people in your sources; merge their names")
    parser.add_argument("--json", action="store_true")
    actions = parser.add_subparsers(dest="people_action", metavar="ACTION")
    merge = actions.add_parser("merge", help="make B another name of A (e.g. people merge 'Teo Ramos' Teo)")
    merge.add_argument("keep")
    merge.add_argument("other")
    unmatched = actions.add_parser("unmatched", help="senders never matched to you: add yours to "
                                   "BIOGRAPHER_OWNER_ALIASES")
    unmatched.add_argument("--limit", type=int, default=50)
    unmatched.add_argument("--json", action="store_true")
    actions.add_parser("owners", help="mark your stored messages again from BIOGRAPHER_OWNER_ALIASES "
                       "(done by itself when the aliases change)")
    parser.set_defaults(handler=cmd_people)


async def cmd_people(args: argparse.Namespace, settings: Settings) -> int:
    """List people, merge two of them, or list unmatched senders."""
    async with open_database(settings.database_path) as conn:
        context = ImportContext(owner_aliases=frozenset(a.lower() for a in settings.owner_aliases))
        changed = await follow_owner_aliases(conn, context, force=args.people_action == "owners")
        if args.people_action == "owners":
            print(f"{changed} messages changed owner; your aliases: "
                  f"{', '.join(settings.owner_aliases) or '(none set)'}")
            return 0
        await people_store.sync_from_messages(conn)
        if args.people_action == "merge":
            person = await people_store.merge(conn, args.keep, args.other)
            print(f"{person.name}: {', '.join(person.aliases)} ({person.messages} messages)")
            return 0
        if args.people_action == "unmatched":
            senders = await people_store.unmatched_senders(conn, limit=args.limit)
            if args.json:
                print(json.dumps([vars(s) for s in senders], ensure_ascii=False))
                return 0
            for s in senders:
                print(f"{s.messages:>7}  {s.sender}  ({s.platform})")
            if senders:
                print("\nIf one of these is you, add it to BIOGRAPHER_OWNER_ALIASES: your messages are "
                      "marked as yours the next time biographer starts (no import needed).")
            return 0
        people = await people_store.list_people(conn)
    if args.json:
        print(json.dumps([{"name": p.name, "aliases": list(p.aliases), "messages": p.messages}
                          for p in people], ensure_ascii=False))
        return 0
    for p in people:
        others = [a for a in p.aliases if a != p.name]
        print(f"{p.messages:>7}  {p.name}" + (f"  (also: {', '.join(others)})" if others else ""))
    return 0
