"""`biographer run`: the configured bots and the scheduler in one event loop, stopped cleanly by SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any

from bot import compose
from bot.common import FrontendDeps
from bot.scheduler import Broadcast, build_runner, running_scheduler
from core.config import Settings
from core.errors import UserFacingError

log = logging.getLogger(__name__)


def open_runtime_service(settings: Settings) -> AbstractAsyncContextManager[Any]:
    """The service (memory core + biographer) over the configured store and model."""
    return compose.open_service(settings)


async def serve(settings: Settings, stop: asyncio.Event) -> None:
    """Run until `stop` is set; then finish imports, shut the scheduler and bots down, close the store."""
    if not settings.telegram_token and not settings.discord_token:
        raise UserFacingError("no bot is configured",
                              hint="set BIOGRAPHER_TELEGRAM_TOKEN and/or BIOGRAPHER_DISCORD_TOKEN (see .env.example)")
    async with open_runtime_service(settings) as service, AsyncExitStack() as stack:
        deps = FrontendDeps.build(settings, service)
        notifiers = []
        if settings.telegram_token:
            from bot.telegram import TelegramFrontend

            notifiers.append(await stack.enter_async_context(TelegramFrontend(deps).running()))
        if settings.discord_token:
            from bot.discord_bot import DiscordFrontend

            notifiers.append(await stack.enter_async_context(DiscordFrontend(deps).running()))
        if settings.scheduler_enabled:
            await stack.enter_async_context(running_scheduler(build_runner(deps, Broadcast(notifiers))))
        log.warning("biographer is running (%s); stop with Ctrl-C or SIGTERM",
                    ", ".join(type(n).__name__ for n in notifiers))
        await stop.wait()
        log.warning("stopping: finishing imports in progress")


async def cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await serve(settings, stop)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("run", help="run the Telegram/Discord bots and the scheduler")
    parser.set_defaults(handler=cmd_run)
