"""Where the store's passphrase comes from: BIOGRAPHER_STORE_KEY, else the OS keyring (service
"biographer", user: the data folder's full path) where one exists, else a prompt, only in a
terminal. The passphrase is never logged nor printed."""

from __future__ import annotations

import getpass
import logging
import sys
from typing import TYPE_CHECKING

from core.errors import UserFacingError
from core.privacy.encryption import Keys

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

    return Keys(passphrase)


def from_keyring(settings: Settings) -> str | None:
    """The passphrase kept in the OS keyring for this data folder; None where no keyring is."""
    import keyring
    from keyring.errors import KeyringError

    try:
        return keyring.get_password(KEYRING_SERVICE, str(settings.data_dir.resolve()))
    except KeyringError as error:  # no keyring on this machine (a server, a container)
        log.debug("no OS keyring: %s", type(error).__name__)
        return None


def _ask(confirm: bool) -> str:
    value = getpass.getpass("Store passphrase: ")
    if confirm and getpass.getpass("The same passphrase again: ") != value:
        raise UserFacingError("the two passphrases differ", hint="run the command again and type the same twice")
    return value
