"""Errors at the HTTP edge: each typed error of the core is one status and a one-line JSON body
`{"error": ..., "hint": ...}`; raw exceptions stay in the log."""

from __future__ import annotations

import re

from starlette.responses import JSONResponse

from core.serving.api_errors import Conflict, NotAuthenticated, NotFound, NotPermitted
from core.errors import EmbeddingModelMismatch, ModelUnavailable, StoreBusy, UserFacingError


class TooManyRequests(UserFacingError):
    """A client over its rate limit (HTTP 429)."""

    def __init__(self, client: str, retry_after: float) -> None:
        super().__init__(f"client {client!r} sent too many requests",
                         hint=f"wait {retry_after:.0f} s (BIOGRAPHER_API_RATE_PER_MINUTE sets the limit)")
        self.retry_after = retry_after


class TooLarge(UserFacingError):
    """A request body over the size limit (HTTP 413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the request body is over {limit} bytes",
                         hint="send less at once (BIOGRAPHER_API_MAX_BODY_BYTES sets the limit)")


_STATUS: tuple[tuple[type[UserFacingError], int], ...] = (
    (NotAuthenticated, 401), (NotPermitted, 403), (NotFound, 404), (Conflict, 409), (TooLarge, 413),
    (TooManyRequests, 429), (StoreBusy, 503), (ModelUnavailable, 503), (EmbeddingModelMismatch, 503),
    (UserFacingError, 400),
)


def status_of(error: UserFacingError) -> int:
    return next(status for kind, status in _STATUS if isinstance(error, kind))


def error_body(error: UserFacingError) -> dict:
    body: dict = {"error": error.message, "hint": error.hint}
    if isinstance(error, Conflict) and error.details:
        body["details"] = error.details
    return body


#: what RFC 6750 §3 allows inside a quoted error_description (no quote, no backslash, no control)
_NOT_IN_QUOTED = re.compile(r'[^\x20\x21\x23-\x5b\x5d-\x7e]')


def bearer_challenge(error: NotAuthenticated, *, resource_metadata: str | None = None) -> str:
    """The 401's `WWW-Authenticate` (RFC 6750 §3): what went wrong and what to do, in words a client
    can show, and where an OAuth client finds how to get a token (RFC 9728 §5.1)."""
    described = _NOT_IN_QUOTED.sub("'", f"{error.message}: {error.hint}" if error.hint else error.message)
    parts = ['realm="biographer"']
    if resource_metadata:
        parts.append(f'resource_metadata="{resource_metadata}"')
    if error.token_sent:  # no error code when no credentials came at all (RFC 6750 §3.1)
        parts.append('error="invalid_token"')
    parts.append(f'error_description="{described}"')
    return "Bearer " + ", ".join(parts)


def error_response(error: UserFacingError, *, resource_metadata: str | None = None) -> JSONResponse:
    """`resource_metadata`: the protected-resource metadata a 401 points OAuth clients to."""
    headers = {}
    if isinstance(error, NotAuthenticated):
        headers["WWW-Authenticate"] = bearer_challenge(error, resource_metadata=resource_metadata)
    if isinstance(error, TooManyRequests):
        headers["Retry-After"] = str(max(1, round(error.retry_after)))
    return JSONResponse(error_body(error), status_code=status_of(error), headers=headers)
