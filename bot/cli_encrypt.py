"""`biographer encrypt` and `biographer decrypt`: the store, its kept copies, its inbox and its
backups turned into encrypted ones in place, and back; `encrypt --change` moves them all to a new
passphrase (core/privacy/encryption.py)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli_args import add_command, cli_service
from core.words import counted

if TYPE_CHECKING:
    from core.config import Settings
    from core.privacy.encryption import StoreFiles


def store_files(settings: Settings) -> StoreFiles:
    from core.privacy.encryption import StoreFiles

    return StoreFiles(data_dir=settings.data_dir, database=settings.database_path, raw_dir=settings.raw_dir,
                      backup_dir=settings.backup_dir, inbox_dir=settings.data_dir / "inbox",
                      upload_dir=settings.upload_dir)


def _backup_first(settings: Settings):  # noqa: ANN202 - the coroutine function the conversion awaits
    async def take() -> Path:
        async with cli_service(settings, model=False) as service:
            return await service.backup(settings.backup_dir, keep=settings.backup_keep)
    return take


async def cmd_encrypt(args: argparse.Namespace, settings: Settings) -> int:
    """Encrypt the store in place (a backup first; run it again if it was interrupted)."""
    if args.change:
        return await _change(settings)
    from bot.store_key import owner_keys
    from core.privacy.encryption import encrypt_store

    done = await encrypt_store(store_files(settings), owner_keys(settings), take_backup=_backup_first(settings))
    print(f"Encrypted the store in {settings.data_dir} (its database, kept copies and inbox) and "
          f"{counted(done.backups, 'backup')}"
          + (f", the one taken first ({done.backup.name}) included." if done.backup else "."))
    print("Keep the passphrase safe: without it nothing can read the store, and it cannot be recovered.")
    return 0


async def _change(settings: Settings) -> int:
    """Encrypt the store again under a new passphrase (a backup first; run it again if it was interrupted)."""
    from datetime import datetime, timezone

    from bot.store_key import from_keyring, keep_in_keyring, new_owner_keys, owner_keys
    from core.privacy.encryption import change_passphrase

    keys, new_keys = owner_keys(settings), new_owner_keys(settings)
    from_the_keyring = settings.store_key is None and from_keyring(settings) is not None
    done = await change_passphrase(store_files(settings), keys, new_keys, take_backup=_backup_first(settings),
                                   now=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    print(f"Changed the passphrase of the store in {settings.data_dir}: its database, kept copies and inbox and "
          f"{done.backups} {'backup' if done.backups == 1 else 'backups'} are encrypted with the new one, "
          "and the old one opens none of them.")
    if from_the_keyring:
        print("The OS keyring now holds the new passphrase." if keep_in_keyring(settings, new_keys.passphrase())
              else "The OS keyring still holds the OLD passphrase and could not be updated: put the new one there "
                   f"yourself (keyring set biographer {settings.data_dir.resolve()}).")
    elif settings.store_key is not None:
        print("Now set BIOGRAPHER_STORE_KEY to the new passphrase (and remove BIOGRAPHER_NEW_STORE_KEY).")
    print("A backup copied elsewhere before today still needs the old passphrase.")
    return 0


async def cmd_decrypt(args: argparse.Namespace, settings: Settings) -> int:
    """Write the store back in the clear (a backup first; run it again if it was interrupted)."""
    from bot.store_key import owner_keys
    from core.privacy.encryption import decrypt_store

    done = await decrypt_store(store_files(settings), owner_keys(settings), take_backup=_backup_first(settings))
    print(f"Decrypted the store in {settings.data_dir} (its database, kept copies and inbox) and "
          f"{counted(done.backups, 'backup')}: they are in the clear again.")
    return 0


def encryption_status(settings: Settings) -> str:
    """What doctor says of encryption; never the key, only where it comes from."""
    from bot.store_key import from_keyring
    from core.privacy.encryption import is_encrypted

    if is_encrypted(settings.data_dir):
        where = ("BIOGRAPHER_STORE_KEY" if settings.store_key is not None
                 else "the OS keyring" if from_keyring(settings) else "asked in a terminal")
        return (f"encrypted (database: SQLCipher 4; kept copies, inbox, backups: AES-256-GCM; "
                f"key from a scrypt-stretched passphrase: {where})")
    if settings.encrypt:
        return ("NOT encrypted: BIOGRAPHER_ENCRYPT is set but the store was made before; run `biographer encrypt`"
                if settings.database_path.exists() else "a new store will be encrypted (BIOGRAPHER_ENCRYPT=true)")
    return "not encrypted (`biographer encrypt` encrypts it in place)"


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    encrypt = add_command(sub, parent, "encrypt",
                          "encrypt the store, its kept files and its backups in place, after a backup",
                          "BIOGRAPHER_STORE_KEY='a long passphrase' biographer encrypt", cmd_encrypt)
    encrypt.add_argument("--change", action="store_true",
                         help="change the passphrase of an encrypted store: everything is encrypted again with the "
                              "new one (BIOGRAPHER_NEW_STORE_KEY, else asked twice), after a backup; the old one "
                              "opens nothing afterwards")
    add_command(sub, parent, "decrypt", "write an encrypted store, its kept files and backups back in the clear",
                "biographer decrypt", cmd_decrypt)
