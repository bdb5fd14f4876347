"""Waiting in the fake platform servers until the bot has done something."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any


async def wait_until(changed: asyncio.Condition, condition: Callable[[], Any], *, timeout: float,
                     so_far: Callable[[], str]) -> Any:
    """`condition()` once it is truthy, checked whenever `changed` is notified (the bot called
    the fake API) and every 0.2 s; an AssertionError saying what was seen so far after `timeout`."""
    deadline = time.monotonic() + timeout
    async with changed:
        while not (result := condition()):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"timed out; {so_far()}")
            try:
                await asyncio.wait_for(changed.wait(), min(remaining, 0.2))
            except TimeoutError:
                pass
    return result
