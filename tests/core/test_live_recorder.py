"""The live recorder on its own: an edit that arrives while its window is being saved."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

from core.chat.live import LiveMessageIn, LiveRecorder
from tests.core.helpers import memory_at

OWNER_ID = "1001"


def incoming(message_id: str, text: str, minute: int) -> LiveMessageIn:
    return LiveMessageIn(connection_id="c1", chat_id="42", chat_name="Maya Costa", message_id=message_id,
                         sender="Maya Costa", sender_id="42", text=text,
                         time=datetime(2024, 5, 5, 18, minute, tzinfo=timezone.utc))


async def saved_texts(memory) -> list[str]:
    async with memory.conn.execute("SELECT text FROM messages ORDER BY time") as cur:
        return [row[0] for row in await cur.fetchall()]


async def test_an_edit_during_the_windows_save_reaches_the_saved_text(tmp_path, embedder):
    async with memory_at(tmp_path, embedder) as memory:
        recorder = LiveRecorder(memory, owner_ids=frozenset({OWNER_ID}), quiet_seconds=3600)
        await recorder.connection(connection_id="c1", user_id=OWNER_ID, enabled=True, rights={})
        await recorder.message(incoming("7", "See you at nine", 0))
        # hold the save half-way: its messages are stored, the window not yet marked saved
        saving, release = asyncio.Event(), asyncio.Event()
        save = memory.save

        async def held_save(documents, *args, **kwargs):
            report = await save(documents, *args, **kwargs)
            saving.set()
            await release.wait()
            return report

        memory.save = held_save
        closing = asyncio.create_task(recorder.close_window("42"))
        await saving.wait()
        memory.save = save
        editing = asyncio.create_task(recorder.edited(incoming("7", "See you at ten", 0)))
        await asyncio.sleep(0.05)  # the edit has arrived and waits for the save
        release.set()
        await closing
        assert await editing
        assert await saved_texts(memory) == ["See you at ten"]
