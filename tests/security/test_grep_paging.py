"""grep pages in SQL: showing five matches of a common word reads a few hundred passages, not
every one that holds it; the total is exact up to a cap of passages and an estimate (marked so)
beyond; the order and the pages are those of the exact walk."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import aiosqlite
import pytest

from tests.core.helpers import memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder

MESSAGES = 2000


def chat_lines() -> list[str]:
    """One message every two hours (each its own passage); 'coffee' in every one, twice in
    every tenth."""
    start = datetime(2023, 1, 1, 8, 0)
    lines = []
    for i in range(MESSAGES):
        moment = start + timedelta(hours=2 * i)
        extra = " and more coffee" if i % 10 == 0 else ""
        lines.append(f"{moment:%d/%m/%Y, %H:%M} - Maya: coffee number {i}{extra}")
    return lines


@pytest.fixture
def rows_read(monkeypatch) -> list[int]:
    """How many rows every query hands to Python."""
    counted: list[int] = []

    def counting(method):
        async def wrapper(*args, **kwargs):
            result = await method(*args, **kwargs)
            counted.append(len(result) if isinstance(result, list) else int(result is not None))
            return result
        return wrapper

    for name in ("fetchall", "fetchmany", "fetchone"):
        monkeypatch.setattr(aiosqlite.Cursor, name, counting(getattr(aiosqlite.Cursor, name)))
    monkeypatch.setattr(aiosqlite.Connection, "execute_fetchall",
                        counting(aiosqlite.Connection.execute_fetchall))
    return counted


async def test_a_page_of_a_common_word_does_not_read_every_match(tmp_path: Path, rows_read):
    chat = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", chat_lines())
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([chat], index=False)
        memory.sources.exact_total_cap = 500  # 2000 passages hold the word: more than the cap
        rows_read.clear()
        first = await memory.grep("coffee", page_size=5)
        read_for_first = sum(rows_read)
        third = await memory.grep("coffee", page=3, page_size=5)
        oldest = await memory.grep("coffee", page_size=5, newest_first=False)
        memory.sources.exact_total_cap = 10_000
        exact = await memory.grep("coffee", page_size=5)
    truth = MESSAGES + MESSAGES // 10
    assert read_for_first < 1000, read_for_first  # a 400-passage sample (ids, texts); today 2 x 2000
    assert first.total_is_estimate and abs(first.total - truth) / truth < 0.2 and first.has_more
    assert [m.line.split(" number ")[1] for m in first.matches] == ["1999", "1998", "1997", "1996", "1995"]
    assert [m.line.split(" number ")[1] for m in third.matches] == ["1990 and more coffee", "1989", "1988", "1987", "1986"]
    assert [m.line.split(" number ")[1] for m in oldest.matches[:2]] == ["0 and more coffee"] * 2
    assert [str(m.locator) for m in oldest.matches[:2]] != [str(oldest.matches[0].locator)] * 2
    assert (exact.total, exact.total_is_estimate) == (truth, False)


def test_an_estimated_total_says_so():
    from datetime import timezone

    from bot.cli_memory import render_grep
    from core.types import GrepPage

    estimated = GrepPage(matches=[], page=1, page_size=5, total=61_600, has_more=True, total_is_estimate=True)
    counted = GrepPage(matches=[], page=2, page_size=5, total=7, has_more=False)
    assert render_grep(estimated, timezone.utc, "biographer grep coffee --page 2") == (
        "about 61,600 matches; page 1 of about 12,320 (next: biographer grep coffee --page 2)")
    assert render_grep(counted, timezone.utc, "") == "7 matches; page 2 of 2"
