"""`biographer picture` and `biographer timeline --png` through the real CLI over a fixture store."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from bot.cli import main
from core.service.admin import AdminFacet
from core.service.parts import Parts
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder
from tests.pictures.store import fill


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    async def build() -> None:
        async with memory_at(tmp_path / "data", HashEmbedder(), owner="Ana") as memory:
            await fill(AdminFacet(Parts(memory=memory)))

    asyncio.run(build())
    monkeypatch.setenv("BIOGRAPHER_TIMEZONE", "Europe/Lisbon")
    return tmp_path


def test_picture_writes_a_png_and_prints_its_path(store, capsys):
    out = store / "pictures" / "week.png"
    assert main(["picture", "week", "--since", "2024-03-25", "--until", "2024-03-31", "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out.resolve())
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert oct(os.stat(out).st_mode & 0o777) == "0o600"  # it shows who the owner talks to: private


def test_picture_json_and_the_default_file_name(store, capsys):
    assert main(["picture", "people", "--since", "2023", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert Path(result["path"]) == store / "people-2024-04-01.png" and Path(result["path"]).exists()
    assert result["caption"].startswith("Who you talk to, 1 Jan 2023 – 1 Apr 2024")
    assert result["alt"] and result["empty"] is False


def test_picture_errors_are_one_line(store, capsys):
    assert main(["picture", "week", "--since", "2024-01-01", "--until", "2024-03-31"]) == 2
    assert capsys.readouterr().err.startswith("error: the week picture covers at most 31 days")
    with pytest.raises(SystemExit):
        main(["picture", "week", "--since", "someday"])
    assert "not a date: 'someday'" in capsys.readouterr().err


def test_timeline_png_writes_the_picture_and_lists_the_events(store, capsys):
    out = store / "timeline.png"
    assert main(["timeline", "--png", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == str(out.resolve()) and out.exists()
    assert "1. 2012 · Started at the university in Coimbra (work) — doc1:0-10" in printed
    assert main(["timeline", "--png", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)) == 10 and f"wrote {out.resolve()}" in captured.err
