"""`biographer backup [--list]` and `biographer restore BACKUP`: the store and its kept files, copied
aside and put back (see storage/backup.py for what a backup holds)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from bot.cli_args import cli_service
from core.words import counted

if TYPE_CHECKING:
    from core.config import Settings


async def cmd_backup(args: argparse.Namespace, settings: Settings) -> int:
    """Back the store and its raw copies up into DATA_DIR/backups, or list the backups."""
    from core.privacy.backups import backup_names

    if args.verify is not None:
        return await _verify(args.verify or None, settings)
    if args.list:
        print("\n".join(str(p) for p in backup_names(settings.backup_dir)) or "no backups yet")
        return 0
    async with cli_service(settings, model=False) as service:
        path = await service.backup(settings.backup_dir, keep=settings.backup_keep)
    print(f"Saved {path} (the newest {counted(settings.backup_keep, 'backup')} {'is' if settings.backup_keep == 1 else 'are'} kept)")
    return 0


async def _verify(name: str | None, settings: Settings) -> int:
    """One line per backup: sound, or what differs; exit 1 when any differs."""
    from core.privacy.backups import verify_backups

    from bot.store_key import owner_keys

    results = await verify_backups(name, backup_dir=settings.backup_dir, key_for=owner_keys(settings))
    if not results:
        print("no backups yet")
    for result in results:
        if result.problems:
            print(f"DIFFERS  {result.backup.path.name}: " + "; ".join(result.problems))
        else:
            note = ("" if result.has_manifest else
                    " (the store as it was before a restore, copied as it was: no manifest; structure and index checked)"
                    if result.backup.kept_aside else
                    " (an older version's backup, no manifest: structure and index checked)")
            print(f"ok       {result.backup.path.name}{note}")
    return 1 if any(r.problems for r in results) else 0


async def cmd_restore(args: argparse.Namespace, settings: Settings) -> int:
    """Replace the store with a backup, after a confirmation; the store as it was is kept aside."""
    from core.privacy.backups import restore_backup
    from core.errors import UserFacingError

    if not args.yes:
        if not sys.stdin.isatty():
            raise UserFacingError("not restoring without a confirmation", hint="add --yes to confirm")
        answer = input(f"Replace the store in {settings.data_dir} with {args.backup}? "
                       "(The store as it is now is kept as a backup first.) [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("Kept.")
            return 0
    from bot.store_key import owner_keys

    restored = await restore_backup(args.backup, database=settings.database_path, raw_dir=settings.raw_dir,
                                    backup_dir=settings.backup_dir, key_for=owner_keys(settings))
    async with cli_service(settings, model=False) as service:  # brings an older backup up to date
        stats = await service.stats()
    print(f"Restored {restored.backup}: {counted(stats['documents'], 'source')}, {counted(stats['chunks'], 'passage')} in all.")
    if restored.kept_aside:
        print(f"The store as it was is kept in {restored.kept_aside} (restore that to go back).")
    if not restored.verified:
        taken = ("is the store as it was before a restore, copied as it was," if restored.from_kept_aside
                 else "was taken by an older version and")
        print(f"That backup {taken} has no manifest: its structure and keyword index were checked, its "
              "files could not be.")
    if restored.raw_missing:
        n = len(restored.raw_missing)
        print(f"{counted(n, 'kept copy', 'kept copies')} of imported files {'was' if n == 1 else 'were'} "
              "not in the backup (backups of older versions held the database only); import those "
              "files again if you need them.")
    return 0


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    p = sub.add_parser("backup", help="back the store and its kept files up into DATA_DIR/backups",
                       description="Back the store and its kept files up into DATA_DIR/backups (the bot also "
                                   "takes one nightly); the newest BIOGRAPHER_BACKUP_KEEP are kept.",
                       epilog="examples:\n  biographer backup\n  biographer backup --list\n  biographer backup --verify", parents=[parent],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--list", action="store_true", help="list the backups instead, oldest first")
    p.add_argument("--verify", nargs="?", const="", metavar="NAME",
                   help="check one backup (or all) against its manifest and its keyword index against its text")
    p.set_defaults(handler=cmd_backup)

    p = sub.add_parser("restore", help="replace the store with a backup (the current one is kept aside)",
                       description="Replace the store and its kept files with a backup's. Stop the bot first: "
                                   "the store as it is now is kept as a backup of its own.",
                       epilog="examples:\n  biographer backup --list\n  biographer restore biographer-20240501-040000 --yes", parents=[parent],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("backup", help="a backup's folder, or its name as `biographer backup --list` prints it")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(handler=cmd_restore)
