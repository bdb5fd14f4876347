"""Numbers from outside (locators, limits, pages, windows) are checked with one clear line:
no OverflowError, no division by zero, no negative limit taken as "no limit"."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import LocatorError, UserFacingError
from core.types import Locator
from tests.core.helpers import MAYA_CHAT, memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder

HUGE = "99999999999999999999999"


def test_a_locator_with_numbers_past_the_stores_range_is_refused():
    for value in (f"doc1:{HUGE}-{HUGE}", f"doc{HUGE}:0-5", f"doc1:0-{HUGE}"):
        with pytest.raises(LocatorError, match="too large"):
            Locator.parse(value)
    assert Locator.parse("doc1:0-4611686018427387904") == Locator(1, 0, 2**62)


async def test_the_core_checks_numbers_the_agent_passes_through(tmp_path: Path):
    chat = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", MAYA_CHAT)
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([chat])
        with pytest.raises(LocatorError):
            await memory.read(f"doc1:{HUGE}-{HUGE}")
        for bad in ({"page_size": 0}, {"page_size": -3}, {"page": 0}, {"page": -1}, {"page": 10**30},
                    {"page_size": 10**30}):
            with pytest.raises(UserFacingError):
                await memory.grep("ferry", **bad)
        for limit in (0, -1, 10**30):
            with pytest.raises(UserFacingError):
                await memory.search("ferry", limit=limit, mode="keyword")
        with pytest.raises(UserFacingError):
            await memory.read("doc1:0-10", window=-5)
        assert (await memory.read("doc1:0-10", window=10**30)).text  # a huge window reads it all


@pytest.mark.parametrize("argv", [
    ["grep", "ferry", "--page-size", "0"],
    ["grep", "ferry", "--page-size", "-2"],
    ["grep", "ferry", "--page", "-1"],
    ["grep", "ferry", "--page", "0"],
    ["search", "ferry", "--limit", "-1"],
    ["search", "ferry", "--limit", "0"],
    ["read", "doc1:0-10", "--window", "-5"],
])
def test_the_cli_refuses_bad_numbers_with_one_line(argv, capsys):
    from bot.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    [message] = [line for line in err.splitlines() if "error:" in line]
    assert "argument" in message and ("out of range" in message or "whole number" in message)


def test_the_cli_read_of_an_oversized_locator_says_what_is_wrong(tmp_path: Path, capsys):
    from bot.cli import main

    (tmp_path / "note.txt").write_text("A short note.", encoding="utf-8")
    assert main(["ingest", str(tmp_path / "note.txt")]) == 0
    capsys.readouterr()
    assert main(["read", f"doc1:{HUGE}-{HUGE}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: locator") and "too large" in err and "Traceback" not in err
