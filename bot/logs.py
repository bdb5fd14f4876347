"""Logging for every entry point, with secrets masked in everything written, tracebacks included.

Libraries log more than we do: httpx logs each Bot API URL, which holds the bot token
(`.../bot123456:AA.../getMe`), and an error can quote a key. So masking happens in the formatter,
on the final text, for every logger that reaches the handler: the settings' secrets by value,
plus token shapes (Telegram, Discord, `sk-` keys, bearer headers) whatever their source.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

MASK = "***"
_TOKEN_SHAPES = re.compile(
    r"(?<![0-9])\d{5,12}:[A-Za-z0-9_-]{30,}"  # a Telegram bot token (also inside ".../bot123:AA.../")
    r"|\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}"  # a Discord bot token
    r"|\bsk-[A-Za-z0-9_-]{16,}"  # OpenAI / OpenRouter style keys
    r"|(?<=Bearer )[A-Za-z0-9._~+/=-]{8,}",  # an Authorization header's credentials
)
FORMAT = "%(levelname)s %(name)s: %(message)s"
#: What a long-running command says it is doing (listening, running, stopping): INFO, shown without -v.
STATUS = logging.getLogger("biographer")


class MaskingFormatter(logging.Formatter):
    def __init__(self, fmt: str = FORMAT, *, secrets: Iterable[str] = ()) -> None:
        super().__init__(fmt)
        # longest first, so a secret that contains another is masked whole
        self.secrets = sorted({s for s in secrets if s and len(s) >= 6}, key=len, reverse=True)

    def mask(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return _TOKEN_SHAPES.sub(MASK, text)

    def format(self, record: logging.LogRecord) -> str:
        return self.mask(super().format(record))


def configure_logging(*, verbose: bool, secrets: Iterable[str] = ()) -> None:
    """One stderr handler for the whole process, masking `secrets`; DEBUG with `verbose`."""
    handler = logging.StreamHandler()
    handler.setFormatter(MaskingFormatter(secrets=secrets))
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, handlers=[handler], force=True)
    STATUS.setLevel(logging.DEBUG if verbose else logging.INFO)
    # aiosqlite logs every call with its arguments at DEBUG: each SQL parameter, so the text of
    # every import (what forget later erases) would land in the log. It says nothing else we need.
    logging.getLogger("aiosqlite").setLevel(logging.WARNING)
    if not verbose:
        logging.getLogger("httpx").setLevel(logging.WARNING)  # one INFO line per request otherwise
