"""The terminal's progress bars: an embedding pass says how long is left."""

import io
import re

from bot.progress import TerminalProgress


def test_a_stage_with_a_total_shows_the_time_left(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    progress = TerminalProgress(enabled=True)
    progress("indexing", 0, 1000)
    progress("indexing", 400, 1000)
    progress.close()
    shown = err.getvalue()
    assert re.search(r"indexing:\s+40%.*400/1000 \[\d\d:\d\d so far, about (\d\d:\d\d|\?) left\]", shown), shown


def test_a_stage_without_a_total_shows_no_time_left(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    progress = TerminalProgress(enabled=True)
    progress("saving", 3, None)
    progress.close()
    assert "saving" in err.getvalue() and "left" not in err.getvalue()
