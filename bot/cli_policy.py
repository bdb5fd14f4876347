"""`biographer policy`: what of each source, or each kind of source, may leave the machine for a
remote model (allow, descriptors_only, deny; see core/privacy/disclosure.py)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bot.cli_args import add_json_option, cli_service, print_json
from core.words import counted

if TYPE_CHECKING:
    from core.config import Settings

POLICIES = ("allow", "descriptors_only", "deny")
MEANING = {
    "allow": "its text may be embedded and read by a remote model",
    "descriptors_only": "only its kind, people and date leave; its text stays here",
    "deny": "nothing of it leaves: keyword search and grep find it, read shows it, here only",
}


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "policy", parents=[parent], help="what of each source may leave the machine",
        description="What of each source (by its number, as `biographer sources` shows it) or each kind of "
                    "source may be sent to a remote model: allow (the default), descriptors_only (only its "
                    "kind, people and date) or deny (nothing). A model on this machine is always allowed "
                    "everything; text sent to a remote embedding endpoint has links, e-mail addresses, "
                    "phone numbers and file paths taken out.",
        epilog="examples:\n  biographer policy set 3 deny\n  biographer policy set whatsapp descriptors_only\n"
               "  biographer policy clear 3\n  biographer policy list",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="policy_action", metavar="ACTION", required=True,
                                    help="set, clear or list")
    set_ = actions.add_parser("set", parents=[parent], help="set the policy of a source or a kind")
    set_.add_argument("target", metavar="SOURCE|KIND", help="a source's number (4, #4, doc4) or a kind (email, whatsapp)")
    set_.add_argument("policy", choices=POLICIES, help="allow, descriptors_only or deny")
    add_json_option(set_, "the change")
    clear = actions.add_parser("clear", parents=[parent],
                               help="a source back to its kind's policy, a kind back to allow")
    clear.add_argument("target", metavar="SOURCE|KIND", help="a source's number or a kind")
    add_json_option(clear, "the change")
    listing = actions.add_parser("list", parents=[parent], help="the policies set, kinds then sources")
    add_json_option(listing, "the list")
    parser.set_defaults(handler=cmd_policy)


def change_text(change) -> str:
    what = f"source #{change.target}" if change.scope == "source" else f"kind {change.target!r}"
    return (f"{what}: {change.policy} ({MEANING[change.policy]}); "
            f"{counted(len(change.documents), 'source')} under it")


async def cmd_policy(args: argparse.Namespace, settings: Settings) -> int:
    """Set, clear or list disclosure policies."""
    async with cli_service(settings, model=False) as service:
        if args.policy_action == "list":
            rows = await service.disclosure.list()
            if args.json:
                print_json([{"scope": r.scope, "target": r.target, "policy": r.policy, "set_at": r.set_at,
                             "name": r.name} for r in rows])
                return 0
            for row in rows:
                target = f"#{row.target} {row.name}" if row.scope == "source" else f"kind {row.target}"
                print(f"{target}: {row.policy}")
            if not rows:
                print("no policies set: every source is allowed (which matters only for a remote model)")
            return 0
        change = await (service.set_policy(args.target, args.policy) if args.policy_action == "set"
                        else service.clear_policy(args.target))
    if args.json:
        print_json({"scope": change.scope, "target": change.target, "policy": change.policy,
                    "sources": change.documents})
    else:
        print(change_text(change))
    return 0
