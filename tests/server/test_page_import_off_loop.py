"""The page's first import in a freshly started server loads what it runs on (the importers, the
ingest, numpy's parts, the embedding model) in worker threads, never on the event loop, where it
would stall every other request of the server (the page's own progress polls among them) for as
long as the loading takes: seconds on a busy machine. Watched, not timed: a fresh `biographer
serve` notes which modules its loop's thread loads while the import runs (first_import_probe.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.core.helpers import MAYA_CHAT, whatsapp_export
from tests.server.test_cli import cli_json, free_port

PROBE = Path(__file__).with_name("first_import_probe.py")


def test_the_first_page_import_loads_no_module_on_the_event_loop(tmp_path: Path, capsys) -> None:
    token = cli_json(capsys, "clients", "add", "me", "--web", "--json")["token"]
    chat = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", MAYA_CHAT)
    journal = tmp_path / "2024-04-02 journal.md"
    journal.write_text("# Physio\n\nThe physio said the knee needs rest until May.\n", encoding="utf-8")
    report = tmp_path / "loads.json"
    done = subprocess.run([sys.executable, str(PROBE), str(report), str(free_port()), token, str(chat), str(journal)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(report.read_text(encoding="utf-8"))
    assert seen["state"] == "done", seen["summary"]
    # what a first import loads (a server starts without them): loaded now, so the import was a first one
    assert {"core.importers.registry", "core.memory.ingest", "onnxruntime"} <= set(seen["elsewhere"]) | set(
        seen["on_loop"]), "the server loaded these before the import: this test no longer sees a first import"
    assert seen["on_loop"] == []
