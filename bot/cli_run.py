"""`biographer run`: the bots and the scheduler (see bot/runtime.py)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.config import Settings


async def cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    from bot.runtime import run_until_signalled

    return await run_until_signalled(settings)


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    p = sub.add_parser("run", parents=[parent], help="run the Telegram/Discord bots and the scheduler",
                       description="Run every configured bot (Telegram, Discord) and the scheduler (daily "
                                   "question, weekly report, nightly analysis and backup) until Ctrl-C or "
                                   "SIGTERM. With no bot configured, the scheduler runs alone.",
                       epilog="example:\n  biographer run", formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(handler=cmd_run)
