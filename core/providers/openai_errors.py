"""One translation of the `openai` client's errors into what a person can act on, shared by the
chat, embedding, transcription and vision providers. The raw error goes to the log only."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import openai

from core.errors import BiographerError, ModelUnavailable

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Endpoint:
    """How to name an endpoint to its owner: what it is and which settings configure it."""

    what: str  # "the model", "the embedding model", ...
    url: str
    url_setting: str
    key_setting: str
    model: str
    model_setting: str


@contextmanager
def endpoint_errors(endpoint: Endpoint, *, bad_request: Callable[[openai.BadRequestError], BiographerError]
                    | None = None) -> Iterator[None]:
    e = endpoint
    try:
        yield
    except openai.AuthenticationError as error:
        # not the provider's text: it can quote part of the key
        log.info("%s refused the key (HTTP %s)", e.what, error.status_code)
        raise ModelUnavailable(f"{e.what} endpoint refused the API key", hint=f"check {e.key_setting}") from None
    except openai.APITimeoutError as error:
        log.info("%s timed out: %s", e.what, error)
        raise ModelUnavailable(f"{e.what} at {e.url} did not answer in time",
                               hint="try again, or raise BIOGRAPHER_LLM_TIMEOUT_SECONDS") from None
    except openai.APIConnectionError as error:
        log.info("cannot reach %s: %s", e.what, error)
        raise ModelUnavailable(f"cannot reach {e.what} at {e.url}",
                               hint=f"check {e.url_setting} and that the server is running") from None
    except openai.RateLimitError as error:
        log.info("%s rate limit: %s", e.what, error)
        raise ModelUnavailable(f"{e.what} endpoint is rate limiting us, even after retries",
                               hint="wait a few minutes, or check the account's limits and credit") from None
    except openai.NotFoundError as error:
        log.info("%s not found: %s", e.what, error)
        raise ModelUnavailable(f"the endpoint does not serve the model {e.model!r}",
                               hint=f"check {e.model_setting}") from None
    except openai.BadRequestError as error:
        log.info("%s rejected the request: %s", e.what, error)
        if bad_request is not None:
            raise bad_request(error) from None
        raise ModelUnavailable(f"{e.what} {e.model!r} rejected the request",
                               hint=f"check {e.model_setting} names a model that can do this") from None
    except openai.APIStatusError as error:
        log.info("%s error %s: %s", e.what, error.status_code, error)
        raise ModelUnavailable(f"{e.what} endpoint failed (HTTP {error.status_code})",
                               hint="try again later; the provider's status page may say more") from None
