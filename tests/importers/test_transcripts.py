"""Meeting transcripts (.vtt, .srt): speakers from voice tags or `Name:` prefixes, consecutive
cues of one speaker merged, the meeting's time from the file name or the file's date."""

from __future__ import annotations

import os
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from core.errors import ImportFailed
from core.importers import default_importers, pick_importer
from core.importers.base import ImportContext
from core.importers.transcript import TranscriptImporter
from tests.importers.conftest import parse_all

TEAMS = Path(__file__).parent / "data" / "meeting" / "teams_timeframe.vtt"
ZOOM = """WEBVTT

1
00:00:03.120 --> 00:00:06.480
Mara Lind: So the ferry leaves at nine.

2
00:00:06.480 --> 00:00:09.900
Mara Lind: Bring the blue umbrella.

3
00:00:10.000 --> 00:00:12.000
Teo Ramos: Note: it will rain.
"""
SRT = """1
00:00:01,000 --> 00:00:02,500
Ana: hi there

2
00:00:03,000 --> 00:00:04,000
Ana: shall we start?

3
00:00:05,000 --> 00:00:07,000
the recording has started
"""


def test_teams_voice_tags_and_date_in_the_name(tmp_path: Path, context: ImportContext) -> None:
    path = shutil.copy(TEAMS, tmp_path / "2024-05-14 14.30 Team sync.vtt")
    assert isinstance(pick_importer(Path(path), default_importers()), TranscriptImporter)
    [(document, messages)] = parse_all(Path(path), context)
    assert document.name == "Meeting: 2024-05-14 14.30 Team sync" and document.kind == "meeting"
    assert document.note == "meeting start from the file name"
    yuri, adrian = messages
    assert (yuri.sender, yuri.text) == ("Yuri Bakulin", "There you go.")
    assert (adrian.sender, adrian.text) == ("Adrian Petrescu", "Why hello there, Yuri.")
    assert adrian.time == datetime(2024, 5, 14, 14, 30, tzinfo=context.timezone) + timedelta(seconds=0.21)


def test_zoom_names_merged_turns_and_zoom_file_name(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "GMT20240124-202901_Recording.transcript.vtt"
    path.write_text(ZOOM, encoding="utf-8")
    [(document, messages)] = parse_all(path, context)
    assert document.note == "meeting start from the file name (Zoom, UTC)"
    mara, teo = messages
    assert mara.sender == "Mara Lind" and mara.is_owner
    assert mara.text == "So the ferry leaves at nine. Bring the blue umbrella."
    assert mara.time == datetime(2024, 1, 24, 20, 29, 4, 120000, tzinfo=timezone.utc)
    assert (teo.sender, teo.text, teo.is_owner) == ("Teo Ramos", "Note: it will rain.", False)


def test_srt_without_a_date_is_timed_from_the_files_date(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "standup.srt"
    path.write_text(SRT, encoding="utf-8")
    ended = datetime(2024, 3, 5, 10, 0, 7, tzinfo=timezone.utc).timestamp()
    os.utime(path, (ended, ended))
    [(document, messages)] = parse_all(path, context)
    assert "file's modification time" in document.note
    ana, unknown = messages
    assert (ana.sender, ana.text) == ("Ana", "hi there shall we start?")
    assert (unknown.sender, unknown.text) == ("Unknown speaker", "the recording has started")
    assert ana.time == datetime(2024, 3, 5, 10, 0, 3, tzinfo=timezone.utc)  # 10:00:07 less 5 s, plus 1 s


def test_a_broken_transcript_is_refused_by_name(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "meeting.vtt"
    path.write_text("WEBVTT\n\nnot a time --> either\nhello\n", encoding="utf-8")
    with pytest.raises(ImportFailed, match="meeting.vtt: is not a readable VTT transcript"):
        parse_all(path, context)
