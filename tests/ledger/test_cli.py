"""`biographer ledger` and `biographer people show` as a person uses them (no model needed)."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from tests.ledger.conftest import whatsapp


@pytest.fixture(autouse=True)
def lena(monkeypatch):
    monkeypatch.setenv("BIOGRAPHER_OWNER_ALIASES", "Lena")
    monkeypatch.setenv("BIOGRAPHER_TIMEZONE", "Europe/Lisbon")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_add_list_done_drop(capsys, tmp_path):
    assert run(capsys, "ingest", "--no-index", str(whatsapp(tmp_path, "Ana", [
        "06/05/2024, 09:00 - Ana: hello", "06/05/2024, 09:01 - Lena: hi Ana"])))[0] == 0
    code, out, err = run(capsys, "ledger", "add", "commitment", "Send Ana the deck", "--person", "ana", "--due",
                         "2024-05-10")
    assert (code, out) == (0, "1\n") and err.startswith("added: #1 Send Ana the deck · to Ana · due Fri 10 May 2024")
    code, out, _ = run(capsys, "ledger", "add", "owed", "the tent", "--person", "Ana", "--json")
    assert json.loads(out) == {"id": 2, "new": True}
    code, out, _ = run(capsys, "ledger", "add", "recommendation", "Slow Horses", "--person", "Cono", "--category",
                       "show", "--new-person", "--json")
    assert json.loads(out)["id"] == 3
    code, out, err = run(capsys, "ledger", "add", "recommendation", "slow horses", "--json")
    assert json.loads(out) == {"id": 3, "new": False}  # already kept: one more source

    code, out, _ = run(capsys, "ledger")
    assert out.startswith("What you promised (1):\n#1 Send Ana the deck")
    assert "Owed to you (1):\n#2 the tent · from Ana · open" in out
    assert "Recommended to you (1):\n#3 Slow Horses (show) · recommended by Cono · to do" in out

    assert run(capsys, "ledger", "done", "1")[1] == "#1 Send Ana the deck · to Ana · due Fri 10 May 2024 · done\n"
    assert json.loads(run(capsys, "ledger", "drop", "2", "--json")[1])["status"] == "dropped"
    code, out, _ = run(capsys, "ledger", "--json")
    assert [i["id"] for i in json.loads(out)] == [3]  # open ones only, by default
    code, out, _ = run(capsys, "ledger", "commitments", "--status", "all", "--json")
    [deck] = json.loads(out)
    assert [(s["role"], s["via"]) for s in deck["sources"]] == [("stated", "cli"), ("done", "cli")]
    code, out, _ = run(capsys, "ledger", "owed", "--status", "dropped,done")
    assert "#2 the tent · from Ana · dropped" in out


def test_bad_input_is_one_line_that_says_what_to_do(capsys):
    cases = [
        (("ledger", "add", "commitment", "Call Zed", "--person", "Zed"), "no person is known as 'Zed'", "--new-person"),
        (("ledger", "add", "owed", "the money"), "something owed needs the person", "--person"),
        (("ledger", "add", "commitment", "x", "--person", "Lena"), "'Lena' is you", ""),
        (("ledger", "add", "recommendation", "x", "--due", "someday"), "not a due date", "YYYY-MM-DD"),
        (("ledger", "add", "recommendation", "x", "--category", "vibes"), "not a category", "book"),
        (("ledger", "done", "42"), "there is no ledger item #42", "/todo"),
        (("ledger", "--status", "finished-ish"), "not a status", "in_progress"),
        (("people", "show", "Nobody"), "no person is known as 'Nobody'", "biographer people"),
    ]
    for argv, message, hint in cases:
        code, out, err = run(capsys, *argv)
        assert code == 2 and message in err and hint in err and "Traceback" not in err, (argv, err)


def test_extract_needs_a_model(capsys):
    code, _, err = run(capsys, "ledger", "extract")
    assert code == 2 and "needs a language model" in err and "BIOGRAPHER_LLM_API_KEY" in err


def test_people_show_as_json_and_the_export_keeps_the_ledger(capsys, tmp_path):
    assert run(capsys, "ingest", "--no-index", str(whatsapp(tmp_path, "Ana", ["06/05/2024, 09:00 - Ana: hello"])))[0] == 0
    run(capsys, "ledger", "add", "owed", "the tent", "--person", "Ana")
    code, out, _ = run(capsys, "people", "show", "Ana", "--json")
    page = json.loads(out)
    assert page["name"] == "Ana" and [i["text"] for i in page["they_owe"]] == ["the tent"]
    assert page["last_contact"]["text"] == "hello" and page["interactions"][0]["messages"] == 1
    assert run(capsys, "export", str(tmp_path / "out"))[0] == 0
    [kept] = [json.loads(line) for line in (tmp_path / "out" / "data" / "ledger.jsonl").read_text().splitlines()]
    assert kept["text"] == "the tent" and kept["sources"][0]["via"] == "cli"
