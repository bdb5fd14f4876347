"""A regular expression cannot freeze the bot: grep --regex matches with RE2 (linear time), off
the event loop, within a deadline; what RE2 does not support gets one line saying so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import UserFacingError
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder

EVIL = "(a+)+$"
VICTIM = "a" * 40 + "!"  # backtracking engines take 2**40 steps to give up on this line


def test_a_catastrophic_pattern_answers_at_once(tmp_path: Path):
    (tmp_path / "note.txt").write_text(f"{VICTIM}\naaaa\n", encoding="utf-8")
    biographer = str(Path(sys.executable).with_name("biographer"))
    data = str(tmp_path / "data")
    subprocess.run([biographer, "--data-dir", data, "ingest", "--no-index", str(tmp_path / "note.txt")],
                   check=True, capture_output=True, timeout=120)
    done = subprocess.run([biographer, "--data-dir", data, "grep", "--regex", EVIL, "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert '"total": 1' in done.stdout  # only the line that ends in a's


async def test_unsupported_and_invalid_patterns_get_one_line(tmp_path: Path):
    (tmp_path / "note.txt").write_text("the ferry to Tavira", encoding="utf-8")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "note.txt"], index=False)
        with pytest.raises(UserFacingError, match="look-around") as unsupported:
            await memory.grep(r"(?<=the )ferry", regex=True)
        with pytest.raises(UserFacingError, match="bad regular expression"):
            await memory.grep("(ferry", regex=True)
        found = await memory.grep(r"t\w+ra", regex=True)
    assert "\n" not in unsupported.value.message
    assert [m.line for m in found.matches] == ["the ferry to Tavira"]


async def test_a_scan_past_its_deadline_stops_with_a_hint(tmp_path: Path):
    (tmp_path / "note.txt").write_text("the ferry to Tavira", encoding="utf-8")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "note.txt"], index=False)
        memory.sources.grep_deadline_seconds = 0
        with pytest.raises(UserFacingError, match="longer than") as stopped:
            await memory.grep("f.rry", regex=True)
    assert "--since" in stopped.value.hint
