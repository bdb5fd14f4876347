"""Indexing behind the server's saves: a save answers at once ("saved"); its vectors follow here,
one run at a time, until nothing waits ("searchable")."""

from __future__ import annotations

import asyncio
import logging

from core.errors import BiographerError
from core.service.serving import ServingFacet

log = logging.getLogger(__name__)


class BackgroundIndexer:
    def __init__(self, service: ServingFacet) -> None:
        self.service = service
        self._task: asyncio.Task | None = None
        self._again = False

    def kick(self) -> None:
        """Index what waits, now or right after the run in progress."""
        if self._task is not None and not self._task.done():
            self._again = True
            return
        self._task = asyncio.create_task(self._run(), name="biographer-index-saves")

    async def _run(self) -> None:
        while True:
            self._again = False
            try:
                await self.service.memory.index_pending()
            except BiographerError as error:  # e.g. the model is missing: saves stay keyword-searchable
                log.warning("indexing saved records failed: %s", error)
                return
            if not self._again:
                return

    async def idle(self) -> None:
        """Wait until no indexing run is in progress (tests, shutdown)."""
        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
