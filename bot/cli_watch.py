"""`biographer watch add | list | remove`: folders and databases read while `biographer run` runs
(core/feeds/watch.py)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli_args import add_json_option, cli_service, count, print_json
from bot.cli_mail import last_run_text

if TYPE_CHECKING:
    from core.config import Settings


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "watch", parents=[parent], help="folders and databases kept current while `biographer run` runs",
        description="Paths read while `biographer run` runs: a folder where exports land is read when a file "
                    "changes (within a minute, once the file has stopped growing); a database read in place "
                    "(chat.db, ChatStorage.sqlite, a signal-export folder) is read again on its schedule "
                    "(BIOGRAPHER_WATCH_DATABASE_EVERY, hourly by default; --every for another). Each read adds "
                    "only what is new; you get one line per pass that added something. On a Mac, "
                    "`biographer watch add ~/Library/Messages/chat.db --every 30m` keeps your iMessages current.",
        epilog="examples:\n  biographer watch add examples/journal\n  biographer watch list\n"
               "  biographer watch remove 1",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="watch_action", metavar="ACTION", required=True,
                                    help="add, list or remove")
    add = actions.add_parser("add", parents=[parent], help="watch a folder or a database")
    add.add_argument("path", type=Path)
    add.add_argument("--every", metavar="DURATION",
                     help="read it again this often (30m, 1h, 1d) instead of when a file changes")
    add_json_option(add, "the watched path")
    listing = actions.add_parser("list", parents=[parent], help="the watched paths, numbered, and their last read")
    add_json_option(listing, "the list")
    remove = actions.add_parser("remove", parents=[parent], help="stop watching (what it brought stays)")
    remove.add_argument("number", type=count(1, 10_000), help="its number in `biographer watch list`")
    parser.set_defaults(handler=cmd_watch)


def watch_json(number: int, feed) -> dict:
    return {"number": number, "path": feed.name, "database": feed.config.get("database", False),
            "every": feed.config.get("every"), "added_at": feed.added_at, "last_run_at": feed.last_run_at,
            "last_added": feed.last_added, "last_error": feed.last_error}


def when_text(feed) -> str:
    return f"every {feed.config['every']}" if feed.config.get("every") else "on change"


async def cmd_watch(args: argparse.Namespace, settings: Settings) -> int:
    """Watch a path, list the watched paths, or stop watching one."""
    async with cli_service(settings, model=False) as service:
        feeds = service.feeds
        if args.watch_action == "add":
            feed = await feeds.add_watch(args.path, every=args.every)
            number = len(await feeds.watched())
            if args.json:
                print_json(watch_json(number, feed))
            else:
                print(f"watching {feed.name} ({when_text(feed)}) as #{number}: read while `biographer run` runs")
            return 0
        if args.watch_action == "list":
            watched = await feeds.watched()
            if args.json:
                print_json([watch_json(n, f) for n, f in enumerate(watched, 1)])
                return 0
            for number, feed in enumerate(watched, 1):
                print(f"#{number} {feed.name} · {when_text(feed)} · {last_run_text(feed)}")
            if not watched:
                print("nothing watched: `biographer watch add PATH`")
            return 0
        feed = await feeds.remove_watch(args.number)
    print(f"stopped watching {feed.name}; what it brought stays (`biographer sources` lists it)")
    return 0
