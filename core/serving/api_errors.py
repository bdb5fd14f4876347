"""Errors of the memory server's operations, each one HTTP status at the edge (bot/server/)."""

from __future__ import annotations

from core.errors import UserFacingError


class NotAuthenticated(UserFacingError):
    """No token, a malformed one, an unknown one or a revoked one (HTTP 401)."""


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
