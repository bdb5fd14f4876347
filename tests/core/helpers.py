"""Building blocks for core tests: a Memory over a real store in a temp dir."""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path
from zoneinfo import ZoneInfo

from core.importers import ImportContext
from core.memory.facade import Memory
from storage.db import open_database


@asynccontextmanager
async def memory_at(data_dir: Path, embedder, *, owner: str = "Ana", key=None, **options):
    """`options`: more of Memory's (multilingual=..., multilingual_setting=...)."""
    async with open_database(data_dir / "biographer.sqlite3", key=key) as conn:
        yield Memory(conn, embedder=embedder, raw_dir=data_dir / "raw",
                     context=ImportContext(timezone=ZoneInfo("Europe/Lisbon"),
                                           owner_aliases=frozenset({owner.lower()})), **options)


def whatsapp_export(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


MAYA_CHAT = [
    "05/03/2024, 21:00 - Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them. Tap to learn more.",
    "05/03/2024, 21:07 - Ana: Did you book the ferry to Tavira?",
    "05/03/2024, 21:08 - Maya: Yes! Saturday at nine. Bring the blue umbrella",
    "05/03/2024, 21:09 - Ana: I will. The marathon training starts Monday",
    "14/03/2024, 08:15 - Maya: How was the first long run?",
    "14/03/2024, 08:20 - Ana: Brutal. Knee hurts again, booking the physio",
    "and the dentist too",
]
