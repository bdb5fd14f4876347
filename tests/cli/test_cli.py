"""The `biographer` command as a newcomer meets it: where the data is, help, bad input, JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import build_parser, main
from tests.core.helpers import MAYA_CHAT, whatsapp_export


@pytest.fixture
def chat(tmp_path: Path) -> Path:
    return whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", MAYA_CHAT)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_default_store_is_the_users_own_wherever_the_command_runs(tmp_path, monkeypatch, capsys, chat):
    monkeypatch.delenv("BIOGRAPHER_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    assert run(capsys, "ingest", "--no-index", str(chat))[0] == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, out, _ = run(capsys, "grep", "ferry")
    assert code == 0 and "1 match;" in out
    assert (tmp_path / "xdg-data" / "biographer" / "biographer.sqlite3").exists()
    code, out, _ = run(capsys, "doctor")
    assert f"data folder: {tmp_path / 'xdg-data' / 'biographer'}" in out


def test_env_file_in_the_user_config_folder_is_read(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    config = tmp_path / "xdg-config" / "biographer"
    config.mkdir(parents=True)
    (config / ".env").write_text("BIOGRAPHER_LLM_MODEL=from-config-folder\nBIOGRAPHER_LLM_API_KEY=sk-secret-abcdefgh\n")
    code, out, _ = run(capsys, "doctor", "--json")
    report = json.loads(out)
    assert report["settings"]["BIOGRAPHER_LLM_MODEL"] == "from-config-folder"
    assert report["settings"]["BIOGRAPHER_LLM_API_KEY"] == "*** (set)"
    assert "sk-secret-abcdefgh" not in out
    assert report["env_files"][str(config / ".env")] is True


def test_data_dir_works_after_the_subcommand_too(tmp_path, capsys, chat):
    store = tmp_path / "mine"
    assert run(capsys, "ingest", "--no-index", str(chat), "--data-dir", str(store))[0] == 0
    assert (store / "biographer.sqlite3").exists()
    code, out, _ = run(capsys, "stats", "--data-dir", str(store), "--json")
    assert json.loads(out)["messages"] == 5  # the encryption notice is not anyone's message


def test_version_and_help_for_every_command(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith("biographer ")
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    undocumented = []
    for name, sub in commands.items():
        if "example" not in (sub.epilog or ""):
            undocumented.append(f"{name}: no example")
        for action in sub._actions:
            if action.help in (None, "") and action.dest not in ("help",) and action.option_strings != []:
                undocumented.append(f"{name} {action.dest}: no help")
            if action.help in (None, "") and not action.option_strings and action.dest not in ("people_action",):
                undocumented.append(f"{name} {action.dest}: no help")
    assert undocumented == []


def test_a_bad_setting_is_one_line_naming_it(monkeypatch, capsys):
    monkeypatch.setenv("BIOGRAPHER_QUESTIONS_PER_DAY", "many")
    code, _, err = run(capsys, "stats")
    assert code == 2
    assert err.startswith("error: BIOGRAPHER_QUESTIONS_PER_DAY is not valid") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 2  # the error and its hint


def test_bad_numbers_are_refused_with_one_line(capsys):
    for argv in (["grep", "x", "--page-size", "0"], ["search", "x", "--limit", "-3"], ["read", "doc1:0-5", "--window", "-1"]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        assert "out of range" in capsys.readouterr().err


def test_grep_pages_say_where_they_end_and_keep_the_other_flags(capsys, chat):
    assert run(capsys, "ingest", "--no-index", str(chat))[0] == 0
    code, out, _ = run(capsys, "grep", "the", "--page-size", "1", "--person", "Maya")
    assert code == 0 and "(next: biographer grep the --page-size 1 --person Maya --page 2)" in out
    code, _, err = run(capsys, "grep", "ferry", "--page", "3")
    assert code == 2 and "there is no page 3: 1 match makes 1 page" in err


def test_grep_json_carries_sender_and_time(capsys, chat):
    run(capsys, "ingest", "--no-index", str(chat))
    code, out, _ = run(capsys, "grep", "umbrella", "--json")
    match = json.loads(out)["matches"][0]
    assert match["sender"] == "Maya" and match["time"].startswith("2024-03-05T21:08")


def test_read_a_whole_document_and_json(capsys, chat):
    run(capsys, "ingest", "--no-index", str(chat))
    code, out, _ = run(capsys, "read", "doc1", "--json")
    source = json.loads(out)
    assert code == 0 and source["text"].count("\n") >= 5 and "dentist" in source["text"]
    assert source["locator"] == f"doc1:0-{source['document_length']}"


def test_json_everywhere(capsys, chat):
    run(capsys, "ingest", "--no-index", str(chat))
    for argv, check in (
        (["sources", "--json"], lambda v: v[0]["name"] == "WhatsApp with Maya" and v[0]["passages"] >= 1),
        (["people", "--json"], lambda v: {p["name"] for p in v} >= {"Maya"}),
        (["timeline", "--json"], lambda v: v == []),
        (["questions", "--json"], lambda v: v == []),
        (["bio", "--json"], lambda v: "## Timeline" in v["bio"]),
        (["stats", "--json"], lambda v: v["documents"] == 1),
    ):
        code, out, _ = run(capsys, *argv)
        assert code == 0 and check(json.loads(out)), argv


def test_filters_people_by_first_name_dates_as_people_write_them_and_known_kinds(capsys, chat, tmp_path):
    run(capsys, "ingest", "--no-index", str(chat))
    code, out, _ = run(capsys, "grep", "knee", "--since", "2024-03", "--until", "2024-03", "--json")
    assert json.loads(out)["total"] == 1
    code, out, _ = run(capsys, "grep", "knee", "--since", "2024-04", "--json")
    assert json.loads(out)["total"] == 0
    code, out, _ = run(capsys, "search", "physio", "--person", "Ana", "--mode", "keyword", "--json")
    assert "physio" in json.loads(out)[0]["text"]
    # grep --person counts only that person's own lines, not the others' in the same conversation
    code, out, _ = run(capsys, "grep", "knee", "--person", "Maya", "--json")
    assert json.loads(out)["total"] == 0  # Ana wrote "Knee hurts again"
    code, out, _ = run(capsys, "grep", "run", "--person", "Maya", "--json")
    assert [m["sender"] for m in json.loads(out)["matches"]] == ["Maya"]
    code, out, _ = run(capsys, "grep", "k?nee", "--regex", "--person", "Ana", "--json")
    assert json.loads(out)["total"] == 1
    code, _, err = run(capsys, "grep", "ferry", "--kind", "offer_letter")
    assert code == 2 and "no sources of kind 'offer_letter'" in err and "whatsapp" in err
    with pytest.raises(SystemExit):
        main(["grep", "ferry", "--since", "the day after"])
    assert "not a date" in capsys.readouterr().err


def test_a_forgotten_sources_number_is_never_given_again(capsys, chat, tmp_path):
    run(capsys, "ingest", "--no-index", str(chat))
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nA quiet day.\n")
    run(capsys, "ingest", "--no-index", str(note))
    assert run(capsys, "forget", "2", "--yes")[0] == 0
    other = tmp_path / "other.md"
    other.write_text("# Other\n\nA loud day.\n")
    run(capsys, "ingest", "--no-index", str(other))
    code, out, _ = run(capsys, "sources", "--json")
    assert [s["id"] for s in json.loads(out)] == [1, 3]


def test_sources_tell_two_exports_of_one_chat_apart(capsys, chat, tmp_path):
    later = whatsapp_export(tmp_path / "WhatsApp Chat with Maya (1).txt", [
        "02/04/2024, 09:00 - Maya: Physio says rest until May",
        "03/04/2024, 18:30 - Ana: Then Porto in June instead"])
    assert run(capsys, "ingest", "--no-index", str(chat), str(later))[0] == 0
    code, out, _ = run(capsys, "sources")
    # counted by hand from the two exports: 5 and 2 messages (the encryption notice is no one's)
    listed = json.loads(run(capsys, "sources", "--json")[1])
    assert [(s["file_name"], s["messages"], s["time_start"][:10]) for s in listed] == [
        ("WhatsApp Chat with Maya.txt", 5, "2024-03-05"), ("WhatsApp Chat with Maya (1).txt", 2, "2024-04-02")]
    passages = [f"{s['passages']} passage" + ("s" if s["passages"] != 1 else "") for s in listed]
    assert code == 0 and out.splitlines() == [
        f"#1 WhatsApp with Maya (whatsapp) · WhatsApp Chat with Maya.txt · 5–14 Mar 2024 · 5 messages, {passages[0]}",
        f"#2 WhatsApp with Maya (whatsapp) · WhatsApp Chat with Maya (1).txt · 2–3 Apr 2024 · 2 messages, "
        f"{passages[1]}"]


def test_export_gives_json_lines_and_a_linked_vault(capsys, chat, tmp_path):
    run(capsys, "ingest", "--no-index", str(chat))
    target = tmp_path / "export"
    code, out, _ = run(capsys, "export", str(target))
    assert code == 0 and "1 source\n" in out
    messages = [json.loads(line) for line in (target / "data" / "messages.jsonl").read_text().splitlines()]
    assert len(messages) == 5 and messages[0]["sender"] == "Ana"
    note = (target / "vault" / "Sources" / "0001 WhatsApp with Maya.md").read_text()
    assert "Bring the blue umbrella" in note and "[[People/Maya|Maya]]" in note
    maya = (target / "vault" / "People" / "Maya.md").read_text()
    assert "[[Sources/0001 WhatsApp with Maya|WhatsApp with Maya]]" in maya and "last contact 2024-03-14" in maya
    assert (target / "bio.md").exists() and (target / "data" / "bio_history.jsonl").exists()
    assert (target / "bio.md").stat().st_mode & 0o777 == 0o600


def test_the_vault_s_notes_have_properties_sortable_names_and_an_index_per_kind(capsys, chat, tmp_path):
    import yaml  # an independent reader of the front matter, as Obsidian's is

    run(capsys, "ingest", "--no-index", str(chat))
    journal = tmp_path / "2024-03-10.md"
    journal.write_text("# Sunday\n\nWalked to the lighthouse: \"windy\" [really].\n")
    run(capsys, "ingest", "--no-index", str(journal))
    target = tmp_path / "export"
    assert run(capsys, "export", str(target))[0] == 0
    sources = sorted(p.name for p in (target / "vault" / "Sources").iterdir())
    assert sources == ["0001 WhatsApp with Maya.md", "0002 2024-03-10.md"]  # no doubled extension
    text = (target / "vault" / "Sources" / "0001 WhatsApp with Maya.md").read_text()
    assert text.startswith("---\n")
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["kind"] == "whatsapp" and front["source"] == 1 and front["locator"] == "doc1"
    assert "[[People/Maya|Maya]]" in front["people"]
    assert front["start"].startswith("2024-03") and front["end"] >= front["start"]
    index = (target / "vault" / "Index" / "Whatsapp sources.md").read_text()
    assert "[[Sources/0001 WhatsApp with Maya|WhatsApp with Maya]]" in index


def test_a_closed_pipe_is_not_a_traceback(tmp_path, chat):
    env = {"BIOGRAPHER_DATA_DIR": str(tmp_path / "data"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    subprocess.run([sys.executable, "-m", "bot.cli", "ingest", "--no-index", str(chat)], env=env, check=True,
                   capture_output=True, cwd=Path(__file__).resolve().parents[2])
    reader = subprocess.run(f"{sys.executable} -m bot.cli grep a --page-size 500 | head -c 10",
                            shell=True, env=env, capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parents[2])
    assert "Traceback" not in reader.stderr and "BrokenPipe" not in reader.stderr


def test_a_locator_past_the_end_of_its_source_is_an_error_not_an_empty_passage(capsys, chat):
    run(capsys, "ingest", "--no-index", str(chat))
    code, out, err = run(capsys, "read", "doc1:9000-9999")
    assert code == 2 and out == ""
    assert "past its end" in err and "read doc1" in err
    code, out, _ = run(capsys, "read", "doc1:0-20")
    assert code == 0 and "doc1:0-20" in out


def test_a_person_the_store_does_not_know_is_named_with_who_is_there(capsys, chat):
    run(capsys, "ingest", "--no-index", str(chat))
    for command in (["search", "umbrella", "--mode", "keyword"], ["grep", "umbrella"]):
        code, out, err = run(capsys, *command, "--person", "Zorro")
        assert code == 2 and "no one called 'Zorro'" in err and "Maya" in err, command
        code, out, _ = run(capsys, *command, "--person", "maya")  # any case, as everywhere
        assert code == 0 and "umbrella" in out, command


def test_a_command_parses_and_helps_alike_with_only_the_parsers_it_needs():
    """build_parser(command) stops after the module registering it: the same help, the same parse."""
    from bot.cli import command_named

    full = build_parser()._subparsers._group_actions[0].choices
    assert len(build_parser("grep")._subparsers._group_actions[0].choices) < len(full)
    for name, sub in full.items():
        made = build_parser(name)._subparsers._group_actions[0].choices
        assert made[name].format_help() == sub.format_help(), name
    assert command_named(["-v", "--data-dir", "grep", "stats", "x"]) == "stats"
    assert command_named(["--data-dir=d", "grep", "knee"]) == "grep"
    assert command_named(["-h", "grep"]) is None and command_named(["--data", "d", "grep"]) is None
    assert command_named([]) is None and command_named(["--data-dir"]) is None


def test_help_before_a_command_still_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        main(["-h", "grep"])
    listed = capsys.readouterr().out
    assert all(name in listed for name in build_parser()._subparsers._group_actions[0].choices)


@pytest.mark.model
def test_a_store_from_before_the_multilingual_space_is_told_how_to_fill_it(tmp_path, monkeypatch, capsys):
    """A store saved with the space off (as every store was before it) holds chunks waiting for
    a vector once auto turns it on, and only an import or reindex fills them: stats and doctor say which."""
    chat = whatsapp_export(tmp_path / "WhatsApp Chat with Mãe.txt", [
        "12/03/2024, 09:15 - Mãe: Bom dia filha, já tomaste o pequeno-almoço? Não te esqueças do casaco.",
        "12/03/2024, 09:20 - Inês: Bom dia mãe! Sim, já comi. Hoje tenho a entrevista para o trabalho em Berlim.",
        "12/03/2024, 09:22 - Mãe: Vai, filha. Berlim é uma oportunidade que não podes perder, estamos todos contigo.",
        "12/03/2024, 18:40 - Mãe: Tudo ótimo, beijinhos",  # too short to tell alone: read in context
    ])
    english = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", MAYA_CHAT)
    monkeypatch.setenv("BIOGRAPHER_MULTILINGUAL_VECTORS", "off")
    assert run(capsys, "ingest", str(chat), str(english))[0] == 0
    monkeypatch.setenv("BIOGRAPHER_MULTILINGUAL_VECTORS", "auto")
    code, out, _ = run(capsys, "stats")
    assert code == 0 and "waiting for one (`biographer reindex --pending` embeds them)" in out
    assert "too short to tell a language, not yet read in context (`biographer reindex --pending` reads" in out
    code, out, _ = run(capsys, "doctor")
    assert code == 0 and "waiting: `biographer reindex --pending` embeds them" in out
    assert "not yet read in context: `biographer reindex --pending` reads them" in out
    assert run(capsys, "reindex", "--pending")[0] == 0
    code, out, _ = run(capsys, "stats")
    assert code == 0 and "waiting for one" not in out and "not yet read in context" not in out


def test_doctor_says_when_the_model_cache_cannot_be_written(tmp_path, monkeypatch, capsys):
    """The cache's commands stay quiet about (core/providers/onnx_rewrite.py writable_cache)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    code, out, _ = run(capsys, "doctor")
    assert code == 0 and f"model cache: {tmp_path / 'cache' / 'biographer' / 'models'} (writable)" in out
    (tmp_path / "blocked").write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "blocked"))
    code, out, _ = run(capsys, "doctor")
    assert code == 0 and "is NOT WRITABLE: every start optimises the embedding model again" in out
    assert "XDG_CACHE_HOME" in out
