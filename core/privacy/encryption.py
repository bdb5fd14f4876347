"""Encryption at rest as the owner sees it: which key opens the store (`Keys`, `store_key`),
turning a store in the clear into an encrypted one and back (`encrypt_store`, `decrypt_store`),
and encrypting it again under a new passphrase (`change_passphrase`).

What is encrypted, and how, is storage/encryption.py's; the conversion of each file,
storage/reencrypt.py's. A conversion first takes a backup, then marks the key file `encrypting`
(or `decrypting`): until it is marked done, every other command refuses and says to run it
again, which picks up where the killed run stopped. The store's database is replaced last but
one, in one rename, so a kill leaves the old database whole.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

from core.errors import UserFacingError
from storage import encryption, reencrypt
from storage.encryption import (CHANGING, DECRYPTING, ENCRYPTED, ENCRYPTING, NEXT_KEY_FILE, KeyFile, Sealer, StoreKey,
                                unseal_file)
from storage.permissions import private_dir
from storage.uploads import UploadStaging

# the backups are read by a conversion only: every command asks store_key, and must not load them
if TYPE_CHECKING:
    from storage import backup as backup_store

# Sealer and unseal_file are storage's, named here for the front ends (the page's uploads wait sealed)
__all__ = ["Converted", "KeyMissing", "Keys", "PassphraseSource", "Sealer", "StoreFiles", "change_passphrase",
           "decrypt_store", "encrypt_store", "is_encrypted", "store_key", "unseal_file"]

#: the passphrase, asked for `confirm`ed (typed twice) when a new key is made; None: none to be had
PassphraseSource = Callable[[bool], str | None]
NO_KEY_HINT = ("set BIOGRAPHER_STORE_KEY, keep the passphrase in the OS keyring (service \"biographer\", "
               "user: the data folder's full path), or run the command in a terminal to type it")


class KeyMissing(UserFacingError):
    """The store is encrypted and no passphrase could be had."""


class Keys:
    """The owner's passphrase, fetched at most once, and the keys it opens, per key file (the data
    folder's, or a backup's copied elsewhere). Called with a folder, it is a `KeyFor`."""

    def __init__(self, source: PassphraseSource, *, store_folder: Path | None = None,
                 missing: KeyMissing | None = None) -> None:
        self._source = source
        self._store_folder = store_folder  # the data folder, whose key file names retired passphrases
        self._missing = missing or KeyMissing("the store is encrypted and no key was given", hint=NO_KEY_HINT)
        self._passphrase: str | None = None
        self._keys: dict[bytes, StoreKey] = {}

    def passphrase(self, *, confirm: bool = False) -> str:
        if self._passphrase is None:
            value = self._source(confirm)
            if not value:
                raise self._missing
            self._passphrase = value
        return self._passphrase

    def __call__(self, folder: Path) -> StoreKey | None:
        key_file = encryption.read_key_file(folder)
        if key_file is None:
            return None
        try:
            return self.unlock(key_file)
        except encryption.WrongStoreKey:
            store = encryption.read_key_file(self._store_folder) if self._store_folder else None
            replaced = store.retired_at(key_file.salt) if store and folder != self._store_folder else None
            if replaced is None:
                raise
            raise encryption.WrongStoreKey(
                f"{folder.name} is encrypted with the passphrase the store used until {replaced[:10]}",
                hint="it opens only with that earlier passphrase (backups in the data folder were "
                     "encrypted again with the new one when it changed)") from None

    def unlock(self, key_file: KeyFile) -> StoreKey:
        if key_file.salt not in self._keys:
            self._keys[key_file.salt] = encryption.unlock(key_file, self.passphrase())
        return self._keys[key_file.salt]


def is_encrypted(data_dir: Path) -> bool:
    return encryption.read_key_file(data_dir) is not None


def store_key(data_dir: Path, keys: Keys, *, encrypt_new: bool) -> StoreKey | None:
    """The key of the store in `data_dir` (None: it is in the clear). A new store with `encrypt_new`
    gets a key now. Refuses while an encryption or a decryption is unfinished."""
    key_file = encryption.read_key_file(data_dir)
    if key_file is None:
        if not encrypt_new:
            return None
        from storage.backup import DATABASE

        if (data_dir / DATABASE).exists():
            return None
        key_file, key = encryption.new_key_file(keys.passphrase(confirm=True), state=ENCRYPTED)
        encryption.write_key_file(private_dir(data_dir), key_file)
        return key
    if key_file.state != ENCRYPTED:
        raise _unfinished(key_file.state, hint_tail="; until then the store is left as it is")
    return keys.unlock(key_file)


_COMMAND_OF_STATE = {ENCRYPTING: "encrypt", DECRYPTING: "decrypt", CHANGING: "encrypt --change"}


def _unfinished(state: str, *, hint_tail: str = "") -> UserFacingError:
    command = _COMMAND_OF_STATE[state]
    return UserFacingError(f"`biographer {command}` was interrupted and has not finished",
                           hint=f"run `biographer {command}` again to finish it{hint_tail}")


@dataclass(frozen=True)
class Converted:
    backup: Path | None  # taken first (None: a killed run's was taken already)
    files: int  # kept copies and inbox entries rewritten
    backups: int  # backups rewritten


@dataclass(frozen=True)
class StoreFiles:
    data_dir: Path
    database: Path
    raw_dir: Path
    backup_dir: Path
    inbox_dir: Path
    upload_dir: Path  # what the page's imports left waiting (none runs: the store is held alone)


async def encrypt_store(files: StoreFiles, keys: Keys, *, take_backup: Callable[[], Awaitable[Path]]) -> Converted:
    """Encrypt the store in place, after a backup (itself encrypted at the end). Resumes a killed run."""
    key_file = encryption.read_key_file(files.data_dir)
    backup = None
    if key_file is None:
        if not files.database.exists():
            raise UserFacingError("there is no store to encrypt yet",
                                  hint="set BIOGRAPHER_ENCRYPT=true before the first import: a new store "
                                       "is then encrypted from the start")
        await asyncio.to_thread(reencrypt.refuse_if_in_use, files.database, key=None)
        backup = await take_backup()
        key_file, key = encryption.new_key_file(keys.passphrase(confirm=True), state=ENCRYPTING)
        encryption.write_key_file(files.data_dir, key_file)
    elif key_file.state == ENCRYPTED:
        raise UserFacingError("the store is encrypted already",
                              hint="`biographer doctor` shows it; `biographer encrypt --change` changes its passphrase")
    elif key_file.state != ENCRYPTING:
        raise _unfinished(key_file.state, hint_tail=" first")
    else:
        key = keys.unlock(key_file)
    done = await asyncio.to_thread(_convert, files, from_key=None, to_key=key,
                                   key_file=key_file.with_state(ENCRYPTED))
    encryption.write_key_file(files.data_dir, key_file.with_state(ENCRYPTED))
    return Converted(backup=backup, files=done[0], backups=done[1])


async def decrypt_store(files: StoreFiles, keys: Keys, *, take_backup: Callable[[], Awaitable[Path]]) -> Converted:
    """Write the store back in the clear, after a backup (itself decrypted at the end)."""
    key_file = encryption.read_key_file(files.data_dir)
    backup = None
    if key_file is None:
        raise UserFacingError("the store is not encrypted", hint="`biographer encrypt` encrypts it")
    if key_file.state in (ENCRYPTING, CHANGING):
        raise _unfinished(key_file.state, hint_tail=" first")
    key = keys.unlock(key_file)
    if key_file.state == ENCRYPTED:
        await asyncio.to_thread(reencrypt.refuse_if_in_use, files.database, key=key)
        backup = await take_backup()
        encryption.write_key_file(files.data_dir, key_file.with_state(DECRYPTING))
    done = await asyncio.to_thread(_convert, files, from_key=key, to_key=None, key_file=None)
    (files.data_dir / encryption.KEY_FILE).unlink()
    return Converted(backup=backup, files=done[0], backups=done[1])


async def change_passphrase(files: StoreFiles, keys: Keys, new_keys: Keys, *,
                            take_backup: Callable[[], Awaitable[Path]], now: str) -> Converted:
    """Encrypt the store, its kept copies, inbox and backups again under a new passphrase, after a
    backup. The new key file waits beside the old one (`encryption.next.json`) and the old one is
    marked `changing` until everything opens with the new key; then one rename puts the new key
    file in place, naming the old passphrase as retired (a backup copied away before is told
    apart by it). Killed at any point, every file opens with one of the two keys, and running the
    command again (with both passphrases) finishes the job."""
    key_file = encryption.read_key_file(files.data_dir)
    if key_file is None:
        raise UserFacingError("the store is not encrypted, so it has no passphrase to change",
                              hint="`biographer encrypt` encrypts it")
    if key_file.state not in (ENCRYPTED, CHANGING):
        raise _unfinished(key_file.state, hint_tail=" first")
    old_key = keys.unlock(key_file)
    backup = None
    if key_file.state == ENCRYPTED:
        new_passphrase = new_keys.passphrase(confirm=True)
        if new_passphrase == keys.passphrase():
            raise UserFacingError("the new passphrase is the one the store has",
                                  hint="give a different one (BIOGRAPHER_NEW_STORE_KEY, or type it when asked)")
        await asyncio.to_thread(reencrypt.refuse_if_in_use, files.database, key=old_key)
        backup = await take_backup()
        next_file, new_key = encryption.new_key_file(new_passphrase, state=ENCRYPTED)
        encryption.write_key_file(files.data_dir, next_file, NEXT_KEY_FILE)  # the new key file first,
        encryption.write_key_file(files.data_dir, key_file.with_state(CHANGING))  # then the mark
    else:
        next_file = encryption.read_key_file(files.data_dir, NEXT_KEY_FILE)
        if next_file is None:
            raise UserFacingError(f"{NEXT_KEY_FILE} is missing, so the change of passphrase cannot be finished",
                                  hint="restore the store from the backup taken when the change began")
        try:
            new_key = new_keys.unlock(next_file)
        except encryption.WrongStoreKey:
            raise encryption.WrongStoreKey("that is not the new passphrase this change of passphrase began with",
                                           hint="give the same new passphrase again (BIOGRAPHER_NEW_STORE_KEY, "
                                                "or type it when asked)") from None
    final = next_file.replacing(key_file, at=now)
    done = await asyncio.to_thread(_convert, files, from_key=old_key, to_key=new_key, key_file=final)
    encryption.write_key_file(files.data_dir, final)  # from here only the new passphrase opens the store
    (files.data_dir / NEXT_KEY_FILE).unlink(missing_ok=True)
    return Converted(backup=backup, files=done[0], backups=done[1])


def _convert(files: StoreFiles, *, from_key: StoreKey | None, to_key: StoreKey | None,
             key_file: KeyFile | None) -> tuple[int, int]:
    """Every backup, then the kept copies and the inbox, then the store's database (one rename).
    Uploads a killed import left are removed rather than converted: they are copies of files the
    owner still has, and an import of them never finished."""
    from storage import backup as backup_store

    UploadStaging(files.upload_dir).sweep()
    backups = 0
    for backup in backup_store.list_backups(files.backup_dir):
        backups += _convert_backup(backup, files, from_key=from_key, to_key=to_key, key_file=key_file)
    rewritten = reencrypt.convert_files(files.raw_dir, from_key=from_key, to_key=to_key)
    rewritten += reencrypt.convert_files(files.inbox_dir, from_key=from_key, to_key=to_key, pattern="*.json")
    reencrypt.convert_database(files.database, from_key=from_key, to_key=to_key)
    return rewritten, backups


def _convert_backup(backup: backup_store.Backup, files: StoreFiles, *, from_key: StoreKey | None,
                    to_key: StoreKey | None, key_file: KeyFile | None) -> int:
    from storage import backup as backup_store

    sound = backup_store.matches_manifest(backup)
    converted = reencrypt.convert_database(backup.database, from_key=from_key, to_key=to_key)
    if backup.raw_dir is not None and backup.raw_dir.is_dir():
        reencrypt.convert_shared(backup.raw_dir, files.raw_dir, from_key=from_key, to_key=to_key)
    if backup.path.is_dir():
        if key_file is not None:
            encryption.write_key_file(backup.path, key_file)
        else:
            (backup.path / encryption.KEY_FILE).unlink(missing_ok=True)
        if sound or not converted:  # a backup that did not match before stays one that says so
            backup_store.refresh_manifest(backup, key=to_key)
    return int(converted)
