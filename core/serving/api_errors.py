"""Errors of the memory server's operations, each one HTTP status at the edge (bot/server/)."""

from __future__ import annotations

from core.errors import UserFacingError


class NotAuthenticated(UserFacingError):
    """No token, a malformed one, an unknown one, an expired or a revoked one (HTTP 401).
    `token_sent`: False when no credentials came at all (RFC 6750 §3.1 then names no error code)."""

    def __init__(self, message: str, *, hint: str = "", token_sent: bool = True) -> None:
        super().__init__(message, hint=hint)
        self.token_sent = token_sent


class NotPermitted(UserFacingError):
    """A known client asking for what it was not allowed (HTTP 403)."""


class NotFound(UserFacingError):
    """A locator or record that names nothing in the store (HTTP 404)."""


class Conflict(UserFacingError):
    """What the caller expected is not what the store holds (HTTP 409): a source changed or went
    since the caller saw it, or a save expected another version. `details` says what is there now."""

    def __init__(self, message: str, *, hint: str = "", details: dict | None = None) -> None:
        super().__init__(message, hint=hint)
        self.details = details or {}


def no_document(document_id: int) -> NotFound:
    """The one answer for a document a client cannot have: never saved, or outside its sections.
    The two must read alike, or the difference tells a restricted client what the owner holds."""
    return NotFound(f"no document {document_id} in the store", hint="search or list for a fresh locator")


def no_record(record_id: int) -> NotFound:
    """As no_document, for a saved record: never saved, forgotten, or outside the client's sections."""
    return NotFound(f"no saved record {record_id} of yours",
                    hint="list your section for its record id and current locator (or save it as a new record)")
