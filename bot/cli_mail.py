"""`biographer mail add | list | remove | sync`: mail accounts read over IMAP (core/feeds/mail.py)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bot.cli_args import add_json_option, cli_service, print_json, stderr
from core.words import counted

if TYPE_CHECKING:
    from core.config import Settings


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "mail", parents=[parent], help="mail accounts read over IMAP, kept current",
        description="Mail accounts read over IMAP: the INBOX and the Sent folder by default, each new message "
                    "saved as importing its .eml would save it (threads kept; what is in Sent is yours). "
                    "`biographer run` reads them every night (BIOGRAPHER_MAIL_SYNC_TIME); `mail sync` now. "
                    "The password is never stored: --password-env names the environment variable (or .env "
                    "entry) that holds it. TLS is always used, except to this machine.",
        epilog="examples:\n  biographer mail add work --host imap.fastmail.com --user me@example.com "
               "--password-env WORK_MAIL_PASSWORD\n  biographer mail sync work\n  biographer mail list\n"
               "  biographer mail remove work",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="mail_action", metavar="ACTION", required=True,
                                    help="add, list, remove or sync")
    add = actions.add_parser("add", parents=[parent], help="set up an account")
    add.add_argument("name", help="a short name for the account (work, home)")
    add.add_argument("--host", required=True, help="the IMAP server, e.g. imap.gmail.com")
    add.add_argument("--port", type=int, help="993 by default (IMAP over TLS); 143 on this machine")
    add.add_argument("--user", required=True, help="the account's login, usually its address")
    add.add_argument("--password-env", required=True, metavar="VAR",
                     help="the environment variable (or .env entry) holding the password or app password")
    add.add_argument("--folders", nargs="+", default=[], metavar="FOLDER",
                     help="the folders to read (default: INBOX and the Sent folder)")
    add_json_option(add, "the account")
    listing = actions.add_parser("list", parents=[parent], help="the accounts, and how each last sync went")
    add_json_option(listing, "the accounts")
    remove = actions.add_parser("remove", parents=[parent], help="stop reading an account (what it brought stays)")
    remove.add_argument("name")
    sync = actions.add_parser("sync", parents=[parent], help="read new mail now")
    sync.add_argument("name", nargs="?", help="one account (default: all)")
    add_json_option(sync, "what each sync added")
    parser.set_defaults(handler=cmd_mail)


def account_json(feed) -> dict:
    return {"name": feed.name, **feed.config, "added_at": feed.added_at, "last_run_at": feed.last_run_at,
            "last_added": feed.last_added, "last_error": feed.last_error}


def last_run_text(feed) -> str:
    if feed.last_run_at is None:
        return "not read yet"
    outcome = f"failed: {feed.last_error}" if feed.last_error else f"{feed.last_added} new"
    return f"last read {feed.last_run_at} ({outcome})"


async def cmd_mail(args: argparse.Namespace, settings: Settings) -> int:
    """Set up, list, remove or sync mail accounts."""
    from core.feeds.mail import new_account

    async with cli_service(settings, model=False) as service:
        feeds = service.feeds
        if args.mail_action == "add":
            account = new_account(host=args.host, port=args.port, user=args.user, password_env=args.password_env,
                                  folders=args.folders)
            feed = await feeds.add_mail(args.name, account)
            if args.json:
                print_json(account_json(feed))
            else:
                where = ", ".join(account.folders) or "INBOX and Sent"
                print(f"mail {feed.name}: {account.user} at {account.host}:{account.port} ({where}); "
                      f"`biographer mail sync {feed.name}` reads it now")
            return 0
        if args.mail_action == "list":
            accounts = await feeds.mail_accounts()
            if args.json:
                print_json([account_json(f) for f in accounts])
                return 0
            for feed in accounts:
                print(f"{feed.name}: {feed.config['user']} at {feed.config['host']}:{feed.config['port']} · "
                      f"{last_run_text(feed)}")
            if not accounts:
                print("no mail account: `biographer mail add NAME --host HOST --user USER --password-env VAR`")
            return 0
        if args.mail_action == "remove":
            feed = await feeds.remove_mail(args.name)
            print(f"mail {feed.name} removed: it is not read any more; what it brought stays "
                  "(`biographer sources` lists it)")
            return 0
        runs = await feeds.sync_mail(args.name, progress=_progress)
    if args.json:
        print_json([{"name": r.feed.name, "messages_added": r.messages_added, "error": r.error} for r in runs])
    else:
        for run in runs:
            print(f"mail {run.feed.name}: " + (f"failed: {run.error}" if run.error else
                                                f"{counted(run.messages_added, 'new e-mail')} in {counted(len(run.chats), 'thread')}"))
            for line in run.file_errors:
                print(f"  not saved: {line}")
        if not runs:
            print("no mail account: `biographer mail add NAME --host HOST --user USER --password-env VAR`")
    return 2 if any(r.error for r in runs) else 0


def _progress(stage: str, done: int, total: int | None) -> None:
    if total and done == total:
        stderr(f"{stage}: {done} read")
