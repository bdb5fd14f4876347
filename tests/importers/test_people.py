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
