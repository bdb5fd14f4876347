"""People: filled from imported senders, merged from the CLI, unmatched senders listed."""

from __future__ import annotations

import json
from pathlib import Path

from bot.cli import main
from tests.core.helpers import memory_at
from tests.importers.test_whatsapp import ANDROID_GROUP


async def _ingest(tmp_path: Path, embedder) -> Path:
    data = tmp_path / "data"
    chat = tmp_path / "WhatsApp Chat with Lisbon trip.txt"
    chat.write_text(ANDROID_GROUP)
    async with memory_at(data, embedder, owner="Nobody") as memory:
        report = await memory.ingest([chat], index=False)
    assert report.errors == []
    return data


async def test_people_list_merge_and_unmatched(tmp_path: Path, embedder, capsys) -> None:
    data = await _ingest(tmp_path, embedder)
    args = ["--data-dir", str(data)]

    import asyncio

    def await_main(argv: list[str]) -> int:
        # main() runs its own event loop; run it in a thread so this test's loop stays free
        return asyncio.get_running_loop().run_in_executor(None, main, argv)  # type: ignore[return-value]

    code = await await_main([*args, "people", "--json"])
    assert code == 0
    people = json.loads(capsys.readouterr().out)
    names = {p["name"]: p["messages"] for p in people}
    assert names == {"Teo Ramos": 3, "Mara Lind": 1, "+44 7700 900124": 1}
    code = await await_main([*args, "people", "merge", "Teo Ramos", "+44 7700 900124"])
    assert code == 0
    assert "Teo Ramos: +44 7700 900124, Teo Ramos (4 messages)" in capsys.readouterr().out
    code = await await_main([*args, "people", "unmatched", "--json"])
    unmatched = json.loads(capsys.readouterr().out)
    assert {u["sender"] for u in unmatched} == {"Teo Ramos", "Mara Lind", "+44 7700 900124"}
    # a nickname no source uses becomes one more name of the person
    code = await await_main([*args, "people", "merge", "Teo Ramos", "Teodoro"])
    assert code == 0
    assert "Teo Ramos: +44 7700 900124, Teo Ramos, Teodoro (4 messages)" in capsys.readouterr().out
    code = await await_main([*args, "people", "merge", "Nobody Known", "Teo"])
    assert code == 2
    assert "no person is known as 'Nobody Known'" in capsys.readouterr().err


def test_owner_flags_follow_aliases_added_later(tmp_path: Path, monkeypatch, capsys) -> None:
    """A real WhatsApp export and a Messages database are imported before the owner set any
    alias. Adding one later marks the owner's stored messages at the next start (no re-import);
    removing it unmarks them, but never the messages the source itself says are the owner's."""
    import shutil
    import sqlite3

    from tests.importers.test_batch import chat_db

    data = Path(__file__).parent / "data" / "whatsapp"
    exports = tmp_path / "exports"
    exports.mkdir()
    shutil.copy(data / "de_ios.txt", exports / "WhatsApp Chat - Elon Musk.txt")
    chat_db(exports / "chat.db")

    def owners() -> dict[str, int]:
        with sqlite3.connect(tmp_path / "data" / "biographer.sqlite3") as conn:
            return dict(conn.execute("SELECT sender, max(is_owner) FROM messages "
                                     "WHERE kind != 'system' GROUP BY sender"))

    assert main(["ingest", str(exports), "--no-index"]) == 0
    assert owners() == {"Dmitry S": 0, "Me": 1, "+15555550123": 0, "ana@example.com": 0}
    assert main(["people", "unmatched"]) == 0
    assert "Dmitry S" in capsys.readouterr().out

    monkeypatch.setenv("BIOGRAPHER_OWNER_ALIASES", "Dmitry S")
    assert main(["stats"]) == 0  # any start follows the new aliases
    assert owners() == {"Dmitry S": 1, "Me": 1, "+15555550123": 0, "ana@example.com": 0}
    capsys.readouterr()
    assert main(["people", "unmatched", "--json"]) == 0
    assert "Dmitry S" not in capsys.readouterr().out
    assert main(["ingest", str(exports), "--no-index"]) == 0  # nothing to re-import
    assert "skipped 3 already imported" in capsys.readouterr().out

    monkeypatch.delenv("BIOGRAPHER_OWNER_ALIASES")
    assert main(["people", "owners"]) == 0  # the start already followed; this says where it stands
    assert capsys.readouterr().out.startswith("0 messages changed owner; your aliases: (none set)")
    assert owners() == {"Dmitry S": 0, "Me": 1, "+15555550123": 0, "ana@example.com": 0}


REAL = Path(__file__).parent / "data"
CONFORMANCE = Path(__file__).parents[1] / "conformance" / "files"


def test_people_holds_people_not_bots_calendars_or_the_owner(tmp_path: Path, monkeypatch, capsys) -> None:
    """Real exports (tests/importers/data/README.md): a Slack archive whose integration posts have
    no user (94 of its messages), calendars whose events have no organizer, a Teams transcript,
    a WhatsApp group where the owner writes as 'Dmitry S', and an e-mail with no From header."""
    monkeypatch.setenv("BIOGRAPHER_OWNER_ALIASES", "Dmitry S")
    paths = [REAL / "slack" / "slack-export-viewer-testarchive.zip", REAL / "calendar",
             REAL / "meeting" / "teams_timeframe.vtt", REAL / "whatsapp" / "en_android_group.txt",
             CONFORMANCE / "eml" / "mailgun-flanker" / "attached-pdf.eml"]
    assert main(["ingest", "--no-index", *map(str, paths)]) == 0
    capsys.readouterr()
    assert main(["people", "--json"]) == 0
    names = [p["name"] for p in json.loads(capsys.readouterr().out)]
    # the Slack users who wrote, and the meeting's two speakers, counted by hand from the files
    assert {"Hamza Faran", "Hermione Granger", "Harry Potter", "Adrian Petrescu", "Yuri Bakulin"} <= set(names)
    assert not {"unknown", "unknown sender", "Holidays", "issue_1081_event_with_rrule", "Dmitry S"} & set(names)
