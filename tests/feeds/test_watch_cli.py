"""`biographer watch` as the owner meets it: add, list, remove, and where a source came from."""

from __future__ import annotations

import json
from pathlib import Path

from bot.cli import main
from tests.importers.test_imessage import make_chat_db


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_add_list_remove(tmp_path: Path, capsys):
    exports = tmp_path / "exports"
    exports.mkdir()
    database = make_chat_db(tmp_path / "chat.db")
    code, out, _ = run(capsys, "watch", "add", str(exports))
    assert (code, out.strip()) == (0, f"watching {exports} (on change) as #1: read while `biographer run` runs")
    code, out, _ = run(capsys, "watch", "add", str(database), "--json")
    assert json.loads(out)["every"] == "1h" and json.loads(out)["database"] is True
    code, out, err = run(capsys, "watch", "add", str(exports), "--every", "soon")
    assert code == 2 and err.startswith("error: 'soon' is not a duration")
    code, out, _ = run(capsys, "watch", "list")
    assert out.splitlines() == [f"#1 {exports} · on change · not read yet", f"#2 {database} · every 1h · not read yet"]
    code, out, _ = run(capsys, "doctor", "--json")
    assert [(f["kind"], f["name"]) for f in json.loads(out)["feeds"]] == [("watch", str(exports)),
                                                                          ("watch", str(database))]
    code, out, _ = run(capsys, "watch", "remove", "1")
    assert code == 0 and str(exports) in out
    assert run(capsys, "watch", "remove", "5")[0] == 2
    assert len(json.loads(run(capsys, "watch", "list", "--json")[1])) == 1
