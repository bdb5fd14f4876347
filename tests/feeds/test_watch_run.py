"""While `biographer run` runs: a file dropped into a watched folder is read on a file-system
event (watchfiles) and the owner gets one line on Telegram, through the real adapter."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.compose import build_feeds
from bot.scheduler import running_scheduler
from core.service.parts import Parts
from tests.core.helpers import MAYA_CHAT, whatsapp_export
from tests.frontends.conftest import running_bot, runner_for, telegram_api, telegram_settings  # noqa: F401 (a fixture)

pytestmark = pytest.mark.asyncio


async def test_a_dropped_export_is_read_on_its_file_event_and_the_owner_told_once(tmp_path: Path, telegram_api):
    inbox = tmp_path / "Dropbox" / "exports"
    inbox.mkdir(parents=True)
    settings = telegram_settings(tmp_path / "data", telegram_api.url, watch_settle_seconds=0.5)

    def with_feeds(memory, **options):
        return Parts(memory=memory, feeds=lambda memory: build_feeds(settings, memory), **options)

    async with running_bot(settings, service_factory=with_feeds) as (frontend, facets):
        await facets.admin.feeds.add_watch(inbox)
        runner = runner_for(settings, frontend, facets)
        # one tick at the start, the next an hour away: only the file's event can read it in time
        async with running_scheduler(runner, every_seconds=3600):
            await asyncio.sleep(1.5)  # the first tick is done and watchfiles is watching
            whatsapp_export(inbox / "WhatsApp Chat with Maya.txt", MAYA_CHAT)
            await telegram_api.wait_for(lambda: any("From the folders you watch" in t for t in telegram_api.texts()),
                                        timeout=20)
        assert [t for t in telegram_api.texts() if "watch" in t] == [
            "From the folders you watch: 5 new messages in 1 chat."]
