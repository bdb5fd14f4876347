"""Only the owner can read the store: the data directory is 0700, every file in it 0600 (the
store and its WAL, raw copies, backups, exports), and looser modes left by an older version are
tightened at start with one note in the log."""

from __future__ import annotations

import asyncio
import logging
import os
import stat
from datetime import datetime
from pathlib import Path

import pytest

from bot.cli import main
from bot.compose import open_memory
from core.config import Settings
from core.memory.sources import export_sources
from storage.backup import backup_database
from tests.fakes.embedder import HashEmbedder


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def everything_under(root: Path) -> list[Path]:
    return [root, *sorted(root.rglob("*"))]


def loose(paths: list[Path]) -> list[str]:
    """Paths that someone other than the owner could read, with their mode."""
    return [f"{p} {oct(mode(p))}" for p in paths if mode(p) & 0o077]


@pytest.fixture
def usual_umask():
    """The usual default, which makes new files readable by everyone."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_a_new_store_its_raw_copies_backups_and_exports_are_owner_only(tmp_path: Path, usual_umask):
    (tmp_path / "note.txt").write_text("A private note.", encoding="utf-8")
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "ingest", str(tmp_path / "note.txt")]) == 0
    settings = Settings(data_dir=data)

    async def backup_and_export() -> list[str]:
        async with open_memory(settings) as memory:
            await backup_database(memory.conn, data / "backups", raw_dir=data / "raw",
                                  stamp=datetime(2024, 5, 1), keep=3)
            await export_sources(memory.conn, data / "export.json")
            wal = settings.database_path.with_name(settings.database_path.name + "-wal")
            assert wal.exists()
            return loose(everything_under(data))  # the WAL and -shm files exist only while open

    loose_while_open = asyncio.run(backup_and_export())
    files = everything_under(data)
    assert mode(data) == 0o700
    assert any(p.parent.name == "raw" for p in files) and any(p.parent.name == "backups" for p in files)
    assert loose_while_open == [] and loose(files) == []


def test_looser_modes_left_from_before_are_tightened_with_one_note(tmp_path: Path, caplog, usual_umask):
    (tmp_path / "note.txt").write_text("A private note.", encoding="utf-8")
    data = tmp_path / "data"
    settings = Settings(data_dir=data)

    async def ingest_and_backup() -> None:
        async with open_memory(settings, embedder=HashEmbedder()) as memory:
            await memory.ingest([tmp_path / "note.txt"])
            await backup_database(memory.conn, data / "backups", raw_dir=data / "raw",
                                  stamp=datetime(2024, 5, 1), keep=3)

    async def start() -> None:
        async with open_memory(settings, embedder=HashEmbedder()):
            pass

    asyncio.run(ingest_and_backup())
    for path in everything_under(data):
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert loose(everything_under(data))

    with caplog.at_level(logging.WARNING):
        asyncio.run(start())
    assert loose(everything_under(data)) == []
    notes = [r.getMessage() for r in caplog.records if "permission" in r.getMessage()]
    assert len(notes) == 1 and str(data) in notes[0]

    caplog.clear()
    asyncio.run(start())
    assert not [r for r in caplog.records if "permission" in r.getMessage()]


def test_a_file_that_cannot_be_made_private_is_named_and_the_store_still_opens(tmp_path: Path, capsys,
                                                                               monkeypatch, usual_umask):
    (tmp_path / "note.txt").write_text("A private note.", encoding="utf-8")
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "ingest", str(tmp_path / "note.txt")]) == 0
    [raw] = (data / "raw").iterdir()
    raw.chmod(0o644)
    real_chmod = Path.chmod

    def refusing(self, mode, **kwargs):
        if self == raw:
            raise PermissionError(1, "Operation not permitted")
        return real_chmod(self, mode, **kwargs)

    monkeypatch.setattr(Path, "chmod", refusing)
    capsys.readouterr()
    assert main(["--data-dir", str(data), "stats"]) == 0
    assert [line for line in capsys.readouterr().err.splitlines() if "could not make" in line] == [
        f"WARNING storage.permissions: could not make everything in {data} private (files and folders: 1), "
        f"e.g. {raw}: check who owns them"]
