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


NAMES = ["Dr. Jane Roe", "Sam Lee (SL)", "Sam (she/her)", "Host (Zoom)", "Speaker 2",
         "José Ñúñez", "अनीता शर्मा", "王小明", "Ольга Петрова"]


def _cues(lines: list[str]) -> str:
    return "WEBVTT\n\n" + "".join(
        f"{n}\n00:00:{n:02d}.000 --> 00:00:{n:02d}.900\n{line}\n\n" for n, line in enumerate(lines, 1))


@pytest.mark.parametrize("name", NAMES)
def test_a_speaker_name_with_titles_brackets_digits_or_any_script_is_kept(
        tmp_path: Path, context: ImportContext, name: str) -> None:
    """Zoom writes `Name: text` on every cue, Teams `<v Name>`: either way the name is the
    speaker and leaves the text."""
    prefixed = tmp_path / "zoom.vtt"
    prefixed.write_text(_cues([f"{name}: Shall we start?", "Teo Ramos: Yes.",
                               f"{name}: Note: the deck is shared."]), encoding="utf-8")
    voiced = tmp_path / "teams.vtt"
    voiced.write_text(_cues([f"<v {name}>Shall we start?</v>", "<v Teo Ramos>Yes.</v>",
                             f"<v {name}>Note: the deck is shared.</v>"]), encoding="utf-8")
    for path in (prefixed, voiced):
        [(_, messages)] = parse_all(path, context)
        assert [(m.sender, m.text) for m in messages] == [
            (name, "Shall we start?"), ("Teo Ramos", "Yes."), (name, "Note: the deck is shared.")]


def test_note_lines_in_captions_without_names_name_nobody(tmp_path: Path,
                                                           context: ImportContext) -> None:
    path = tmp_path / "lecture.vtt"
    path.write_text(_cues(["Welcome back to the course.", "Note: the exam moved to May.",
                           "Today we read chapter four.", "Note: bring the workbook.",
                           "Let us begin with the map."]), encoding="utf-8")
    [(_, messages)] = parse_all(path, context)
    assert {m.sender for m in messages} == {"Unknown speaker"}
    assert "Note: the exam moved to May." in messages[0].text


def test_a_one_off_prefix_among_unprefixed_cues_stays_text(tmp_path: Path,
                                                           context: ImportContext) -> None:
    """Most cues named, one continuation cue unprefixed and one that starts "Update:": the names
    that recur are speakers, the one-off "Update" is words, not a person."""
    path = tmp_path / "otter.vtt"
    path.write_text(_cues(["Ana Lima: The venue is booked.", "and the caterer confirmed.",
                           "Teo Ramos: Great.", "Ana Lima: One more thing.",
                           "Update: the date moved to Friday.", "Teo Ramos: Noted."]),
                    encoding="utf-8")
    [(_, messages)] = parse_all(path, context)
    assert [m.sender for m in messages] == ["Ana Lima", "Unknown speaker", "Teo Ramos",
                                            "Ana Lima", "Unknown speaker", "Teo Ramos"]
    assert messages[4].text == "Update: the date moved to Friday."


def test_names_on_the_first_cue_of_each_turn_only_are_speakers(tmp_path: Path,
                                                               context: ImportContext) -> None:
    """Otter and Meet name a turn's first cue and leave its continuation cues bare: fewer than
    half the cues carry a name, but two names recur, so they are speakers."""
    path = tmp_path / "otter.vtt"
    path.write_text(_cues(["Dr. Jane Roe: Welcome, everyone.", "Today we review the budget.",
                           "It is tight this year.", "Sam (she/her): Thanks, Jane.",
                           "I have two questions.", "Both on travel.", "Dr. Jane Roe: Go ahead.",
                           "We can take them now.", "Sam (she/her): First, the trains."]),
                    encoding="utf-8")
    [(_, messages)] = parse_all(path, context)
    assert [(m.sender, m.text.split(".")[0]) for m in messages] == [
        ("Dr. Jane Roe", "Welcome, everyone"), ("Unknown speaker", "Today we review the budget"),
        ("Sam (she/her)", "Thanks, Jane"), ("Unknown speaker", "I have two questions"),
        ("Dr. Jane Roe", "Go ahead"), ("Unknown speaker", "We can take them now"),
        ("Sam (she/her)", "First, the trains")]
