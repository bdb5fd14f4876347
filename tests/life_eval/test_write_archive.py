"""bench/life_eval's five writers write their committed archives again, byte for byte: the
archives are what the life evaluation's questions were checked against, and the writers share
their export formats (bench/life_eval/exports.py), so a change to one format shows here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

LIFE_EVAL = Path(__file__).resolve().parents[2] / "bench" / "life_eval"


def _writer(folder: Path):
    spec = importlib.util.spec_from_file_location(f"life_eval_{folder.name}_writer", folder / "write_archive.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("life", ["", "second", "third", "fourth", "fifth"])
def test_a_writer_writes_its_committed_archive_again(life: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # the writer puts bench/life_eval on it
    folder = LIFE_EVAL / life
    _writer(folder).write(tmp_path / "archive")
    committed, written = _files(folder / "archive"), _files(tmp_path / "archive")
    assert sorted(written) == sorted(committed)
    assert [name for name in committed if written[name] != committed[name]] == []
