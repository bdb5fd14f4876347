"""Where the store's passphrase comes from: BIOGRAPHER_STORE_KEY, else the OS keyring (service
"biographer", user: the data folder's full path) where one exists, else a prompt, only in a
terminal. The passphrase is never logged nor printed."""

from __future__ import annotations

import getpass
import logging
import sys
from typing import TYPE_CHECKING

from core.errors import UserFacingError
from core.privacy.encryption import KeyMissing, Keys

if TYPE_CHECKING:
    from core.config import Settings

log = logging.getLogger(__name__)
KEYRING_SERVICE = "biographer"


def owner_keys(settings: Settings) -> Keys:
    def passphrase(confirm: bool) -> str | None:
        if settings.store_key is not None:
            return settings.store_key.get_secret_value()
        found = from_keyring(settings)
        if found:
            return found
        return _ask(confirm) if sys.stdin.isatty() else None

    return Keys(passphrase, store_folder=settings.data_dir)


def new_owner_keys(settings: Settings) -> Keys:
    """The passphrase a change of passphrase moves the store to: BIOGRAPHER_NEW_STORE_KEY, else
    asked (twice) in a terminal."""
    def passphrase(confirm: bool) -> str | None:
        if settings.new_store_key is not None:
            return settings.new_store_key.get_secret_value()
        return _ask(confirm, prompt="New store passphrase: ") if sys.stdin.isatty() else None

    return Keys(passphrase, missing=KeyMissing(
        "no new passphrase was given", hint="set BIOGRAPHER_NEW_STORE_KEY, or run the command in a terminal to type it"))


def keep_in_keyring(settings: Settings, passphrase: str) -> bool:
    """Replace the passphrase kept in the OS keyring for this data folder; False when it could not."""
    import keyring
    from keyring.errors import KeyringError

    try:
        keyring.set_password(KEYRING_SERVICE, str(settings.data_dir.resolve()), passphrase)
    except KeyringError as error:
        log.warning("could not keep the new passphrase in the OS keyring: %s", type(error).__name__)
        return False
    return True


def from_keyring(settings: Settings) -> str | None:
    """The passphrase kept in the OS keyring for this data folder; None where no keyring is."""
    import keyring
    from keyring.errors import KeyringError

    try:
        return keyring.get_password(KEYRING_SERVICE, str(settings.data_dir.resolve()))
    except KeyringError as error:  # no keyring on this machine (a server, a container)
        log.debug("no OS keyring: %s", type(error).__name__)
        return None


def _ask(confirm: bool, *, prompt: str = "Store passphrase: ") -> str:
    value = getpass.getpass(prompt)
    if confirm and getpass.getpass("The same passphrase again: ") != value:
        raise UserFacingError("the two passphrases differ", hint="run the command again and type the same twice")
    return value
