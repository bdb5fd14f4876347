"""`biographer ingest` on one folder mixing the new sources (ChatGPT, Slack, Signal, a WhatsApp
ChatStorage.sqlite, a meeting transcript, a calendar) with a corrupt Claude export in the middle:
every other file is imported, the corrupt one is named, and the calendar's events are found on
their own days."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from core.types import SearchFilters
from tests.core.helpers import memory_at
from tests.importers.test_ai_chats import _claude_export
from tests.importers.test_whatsapp_ios import make_chat_storage

DATA = Path(__file__).parent / "data"


def _mixed_folder(root: Path) -> Path:
    shutil.copytree(DATA / "chatgpt", root / "a_chatgpt", ignore=shutil.ignore_patterns("README.md"))
    shutil.copytree(DATA / "calendar", root / "b_calendar", ignore=shutil.ignore_patterns("README.md", "alarm*", "issue*"))
    broken = root / "c_claude" / "claude_export.json"
    broken.parent.mkdir()
    broken.write_text(json.dumps(_claude_export())[:300], encoding="utf-8")  # cut off mid-conversation
    (root / "d_meeting").mkdir()
    shutil.copy(DATA / "meeting" / "teams_timeframe.vtt", root / "d_meeting" / "2024-05-14 14.30 Team sync.vtt")
    shutil.copytree(DATA / "signal" / "Mara Lind", root / "e_signal" / "Mara Lind")
    shutil.copytree(DATA / "slack" / "export", root / "f_slack")
    (root / "g_whatsapp").mkdir()
    make_chat_storage(root / "g_whatsapp" / "ChatStorage.sqlite")
    return root


async def test_a_mixed_folder_with_one_corrupt_file(tmp_path: Path, embedder) -> None:
    folder = _mixed_folder(tmp_path / "exports")
    async with memory_at(tmp_path / "data", embedder, owner="Mara Lind") as memory:
        report = await memory.ingest([folder], index=False)
        kinds = (await memory.stats())["by_kind"]
        lisbon = ZoneInfo("Europe/Lisbon")
        christmas = await memory.search("Orthodox Christmas", mode="keyword", filters=SearchFilters(
            since=datetime(2022, 1, 7, tzinfo=lisbon), until=datetime(2022, 1, 8, tzinfo=lisbon)))
        outside = await memory.search("Orthodox Christmas", mode="keyword", filters=SearchFilters(
            since=datetime(2022, 3, 1, tzinfo=lisbon)))
    assert len(report.errors) == 1
    assert report.errors[0].startswith("claude_export.json: is not valid JSON or is cut short")
    assert {k: v["documents"] for k, v in kinds.items()} == {
        "chatgpt": 2, "calendar": 1, "meeting": 1, "signal": 1, "slack": 1, "whatsapp": 2}
    assert report.messages_added == 6 + 3 + 2 + 4 + 12 + 7
    assert [h.kind for h in christmas] == ["calendar"] and outside == []
