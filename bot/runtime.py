"""The long-running process (`biographer run`): the configured bots and the scheduler in one event
loop, over one set of facets, stopped cleanly by SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import signal
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Protocol

from bot import compose
from bot.commands import Commands
from bot.logs import STATUS
from bot.outbound import Outbound, OwnerChats
from bot.scheduler import build_runner, running_scheduler
from core.config import Settings
from core.errors import UserFacingError

log = logging.getLogger(__name__)


class Frontend(OwnerChats, Protocol):
    """A chat front end: says whether the settings configure it, and runs itself."""

    name: str

    @staticmethod
    def configured(settings: Settings) -> bool: ...

    def running(self) -> AbstractAsyncContextManager[Frontend]: ...


def frontend_classes() -> list[type[Frontend]]:
    """Every chat front end. Imported here, not at the top: each pulls in its platform's library,
    which `biographer search` should not pay for."""
    from bot.discord_bot import DiscordFrontend
    from bot.telegram import TelegramFrontend

    return [TelegramFrontend, DiscordFrontend]


def open_runtime_facets(settings: Settings) -> AbstractAsyncContextManager[compose.Facets]:
    """The facets (memory core + biographer) over the configured store and model."""
    return compose.open_facets(settings)


async def serve(settings: Settings, stop: asyncio.Event) -> None:
    """Run until `stop` is set; then finish imports, shut the scheduler and bots down, close the store."""
    classes = [cls for cls in frontend_classes() if cls.configured(settings)]
    if not classes and not settings.scheduler_enabled and settings.api_port is None:
        raise UserFacingError("nothing to run: no bot is configured, the scheduler is off and no API port is set",
                              hint="set BIOGRAPHER_TELEGRAM_TOKEN and/or BIOGRAPHER_DISCORD_TOKEN (see .env.example)")
    async with open_runtime_facets(settings) as facets, AsyncExitStack() as stack:
        await facets.chat.forwards.replay_inbox()
        await facets.chat.memory.warm_up(vector_memory_mb=settings.search_vector_memory_mb)
        commands = Commands(facets.chat, forward_quiet=settings.telegram_forward_burst_seconds)
        notifiers = [await stack.enter_async_context(cls(settings, commands).running()) for cls in classes]
        if not notifiers:
            log.warning("no bot is configured (BIOGRAPHER_TELEGRAM_TOKEN, BIOGRAPHER_DISCORD_TOKEN): running "
                        "the scheduler only (nightly analysis and backups; questions and reports are not sent)")
        if settings.scheduler_enabled:
            runner = build_runner(settings, facets.schedule, commands.gate, Outbound(notifiers, facets.chat.prompts))
            await stack.enter_async_context(running_scheduler(runner))
        if settings.api_port is not None:  # the memory server for the owner's other agents (bot/server/)
            from bot.server.run import serving

            url = await stack.enter_async_context(serving(facets.serving, settings, port=settings.api_port,
                                                                    gate=commands.gate))
            STATUS.info("memory server and your page on %s", url)
        STATUS.info("biographer is running (%s); stop with Ctrl-C or SIGTERM",
                    ", ".join([n.name for n in notifiers] + (["scheduler"] if settings.scheduler_enabled else [])))
        await stop.wait()
        STATUS.info("stopping: finishing imports in progress")


async def run_until_signalled(settings: Settings) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await serve(settings, stop)
    return 0
