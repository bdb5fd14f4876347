"""One agent run at a time for the owner, shared by every front end and the scheduler."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager


class AgentGate:
    def __init__(self) -> None:
        self._lock = asyncio.Lock()

    @property
    def busy(self) -> bool:
        return self._lock.locked()

    @asynccontextmanager
    async def turn(self, *, on_wait: Callable[[], Awaitable[object]] | None = None) -> AsyncIterator[None]:
        """Wait for the agent; `on_wait` runs once first if someone else is using it (a "queued" note)."""
        if self._lock.locked() and on_wait is not None:
            await on_wait()
        async with self._lock:
            yield
