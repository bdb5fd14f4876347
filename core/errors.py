"""Typed errors. A UserFacingError says what went wrong and how to fix it, in one line each."""

from __future__ import annotations


class BiographerError(Exception):
    """Base of every error this package raises on purpose."""


class UserFacingError(BiographerError):
    """An error a person can act on: `message` says what happened, `hint` what to do."""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class ImportFailed(UserFacingError):
    """One source could not be imported; the rest of a batch goes on."""

    def __init__(self, source: str, reason: str, *, hint: str = "") -> None:
        super().__init__(f"{source}: {reason}", hint=hint)
        self.source = source
        self.reason = reason


class UnsupportedFormat(ImportFailed):
    """No importer recognises the file."""


class EmbeddingModelMismatch(UserFacingError):
    """The store was indexed with another embedding model than the configured one."""


class LocatorError(UserFacingError):
    """A locator that does not parse or points at nothing."""


class ModelUnavailable(UserFacingError):
    """A model (local files or a remote endpoint) cannot be used as configured."""


class StoreBusy(UserFacingError):
    """Another process held the store's write lock past the deadline; nothing was written."""

    def __init__(self, waited: float) -> None:
        super().__init__(f"the store stayed busy for {waited:.0f} s: another process (an import from the command "
                         "line?) is writing to it",
                         hint="try again when it has finished, or raise BIOGRAPHER_STORE_BUSY_SECONDS")
        self.waited = waited
