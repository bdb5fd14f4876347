"""`biographer backup` and `biographer restore BACKUP`: a backup holds the store and its raw
copies; a killed backup leaves nothing behind; restore keeps the store it replaces and refuses to
pull a store from under a running process."""

from __future__ import annotations

import json
from pathlib import Path

import sqlean

from bot.cli import main


def cli(*argv: str) -> int:
    return main([*argv])


def ingest_note(tmp_path: Path, text: str, name: str = "note.txt") -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    assert cli("ingest", "--no-index", str(tmp_path / name)) == 0


def keyword_hits(query: str, capsys) -> list[dict]:
    capsys.readouterr()
    assert cli("search", query, "--mode", "keyword", "--json") == 0
    return json.loads(capsys.readouterr().out)


def backups_of(data: Path) -> list[Path]:
    return sorted(p for p in (data / "backups").iterdir() if p.name.startswith("biographer-"))


def backup_then_a_later_note(tmp_path: Path) -> Path:
    """A store with a note in its one backup and a later note that is not; returns the backup."""
    ingest_note(tmp_path, "The quokka met us at the ferry.")
    assert cli("backup") == 0
    [backup] = backups_of(tmp_path / "data")
    ingest_note(tmp_path, "A later note about the harbour.", name="later.txt")
    return backup


def test_a_backup_holds_the_store_and_the_raw_copies_and_clears_killed_ones(tmp_path: Path, capsys):
    data = tmp_path / "data"
    ingest_note(tmp_path, "The quokka photo is only in raw.")
    (data / "backups").mkdir()
    (data / "backups" / "biographer-20240101-040000.part").mkdir()  # a backup killed half-way
    (data / "backups" / "biographer-20240101-040000.part" / "biographer.sqlite3").write_bytes(b"half")
    (data / "backups" / "biographer-20231231-040000.part").write_bytes(b"half")  # an older version's

    assert cli("backup") == 0

    [backup] = backups_of(data)
    assert backup.is_dir() and not backup.name.endswith(".part")
    assert str(backup) in capsys.readouterr().out
    assert [p.name for p in (data / "backups").iterdir() if p.name.endswith(".part")] == []
    assert [p.name for p in (backup / "raw").iterdir()] == [p.name for p in (data / "raw").iterdir()]
    copy = sqlean.connect(str(backup / "biographer.sqlite3"))
    assert copy.execute("SELECT name FROM documents").fetchall() == [("note.txt",)]
    copy.close()


def test_restore_round_trip_after_the_store_is_damaged(tmp_path: Path, capsys):
    data = tmp_path / "data"
    backup = backup_then_a_later_note(tmp_path)
    damaged = b"not a database any more" * 100
    (data / "biographer.sqlite3").write_bytes(damaged)
    for raw in (data / "raw").iterdir():
        raw.unlink()

    assert cli("restore", str(backup)) == 2  # no terminal to confirm on
    assert "--yes" in capsys.readouterr().err
    assert cli("restore", str(backup), "--yes") == 0
    out = capsys.readouterr().out
    assert "Restored" in out

    assert [h["document"] for h in keyword_hits("quokka", capsys)] == ["note.txt"]
    assert keyword_hits("harbour", capsys) == []  # later than the backup: not in it
    assert len(list((data / "raw").iterdir())) == 1
    [kept] = [p for p in backups_of(data) if p != backup]
    assert "before-restore" in kept.name and str(kept) in out
    assert (kept / "biographer.sqlite3").read_bytes() == damaged


def test_the_store_kept_aside_by_a_restore_is_named_so_not_called_an_older_versions(tmp_path: Path, capsys):
    data = tmp_path / "data"
    backup = backup_then_a_later_note(tmp_path)
    assert cli("restore", str(backup), "--yes") == 0
    [kept] = [p for p in backups_of(data) if p != backup]
    assert not (kept / "manifest.json").exists()  # copied byte for byte: it could be damaged

    capsys.readouterr()
    assert cli("backup", "--verify", kept.name) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"ok       {kept.name}") and "before a restore" in out and "older version" not in out

    assert cli("restore", str(kept), "--yes") == 0  # going back
    out = capsys.readouterr().out
    assert "is the store as it was before a restore" in out and "older version" not in out
    assert [h["document"] for h in keyword_hits("harbour", capsys)] == ["later.txt"]


def test_restore_by_name_into_an_empty_data_dir(tmp_path: Path, capsys):
    ingest_note(tmp_path, "The quokka met us at the ferry.")
    assert cli("backup") == 0
    [backup] = backups_of(tmp_path / "data")
    other = tmp_path / "elsewhere"
    assert cli("--data-dir", str(other), "restore", str(backup), "--yes") == 0
    capsys.readouterr()
    assert cli("--data-dir", str(other), "search", "quokka", "--mode", "keyword", "--json") == 0
    assert [h["document"] for h in json.loads(capsys.readouterr().out)] == ["note.txt"]
    assert (other / "raw").is_dir() and len(list((other / "raw").iterdir())) == 1
    # a name from DATA_DIR/backups works as well as a path
    assert cli("restore", backup.name, "--yes") == 0


def test_restore_refuses_while_another_process_has_the_store_open(tmp_path: Path, capsys):
    data = tmp_path / "data"
    backup = backup_then_a_later_note(tmp_path)
    running = sqlean.connect(str(data / "biographer.sqlite3"))
    running.execute("SELECT COUNT(*) FROM documents").fetchone()  # like a bot between two requests
    try:
        capsys.readouterr()
        assert cli("restore", str(backup), "--yes") == 2
        err = capsys.readouterr().err
        assert "in use" in err and "stop" in err
    finally:
        running.close()
    assert [h["document"] for h in keyword_hits("harbour", capsys)] == ["later.txt"]  # untouched


def test_restore_refuses_what_is_not_a_backup(tmp_path: Path, capsys):
    ingest_note(tmp_path, "The quokka met us at the ferry.")
    (tmp_path / "junk.sqlite3").write_bytes(b"junk" * 1000)
    for target in (tmp_path / "junk.sqlite3", tmp_path / "missing"):
        capsys.readouterr()
        assert cli("restore", str(target), "--yes") == 2
        assert capsys.readouterr().err.startswith("error: ")
    assert [h["document"] for h in keyword_hits("quokka", capsys)] == ["note.txt"]


def test_a_single_file_backup_of_an_older_version_restores(tmp_path: Path, capsys):
    data = tmp_path / "data"
    ingest_note(tmp_path, "The quokka met us at the ferry.")
    (data / "backups").mkdir()
    live = sqlean.connect(str(data / "biographer.sqlite3"))
    old = sqlean.connect(str(data / "backups" / "biographer-20240101-040000.sqlite3"))
    live.backup(old)
    old.close()
    live.close()
    ingest_note(tmp_path, "A later note about the harbour.", name="later.txt")
    capsys.readouterr()

    assert cli("restore", "biographer-20240101-040000.sqlite3", "--yes") == 0

    assert "1 kept copy of imported files was not in the backup" in capsys.readouterr().out
    assert [h["document"] for h in keyword_hits("quokka", capsys)] == ["note.txt"]
    assert keyword_hits("harbour", capsys) == []


# ---------------------------------------------------------------- backups that prove themselves

def _manifest(backup: Path) -> dict:
    return json.loads((backup / "manifest.json").read_text(encoding="utf-8"))


def _flip(database: Path, word: bytes) -> None:
    """Change the second letter of `word` wherever it stands in the file (SQLite keeps no page
    checksums, so its own checks see nothing)."""
    data = bytearray(database.read_bytes())
    at = data.find(word)
    assert at >= 0
    while at >= 0:
        data[at + 1] ^= 0x01  # 'quokka' becomes 'qtokka'
        at = data.find(word, at + 1)
    database.write_bytes(bytes(data))


def test_a_backup_writes_a_manifest_that_verify_checks(tmp_path: Path, capsys):
    import hashlib

    backup = backup_then_a_later_note(tmp_path)
    manifest = _manifest(backup)
    copy = sqlean.connect(str(backup / "biographer.sqlite3"))
    expected = {"sources": copy.execute("SELECT COUNT(*) FROM documents").fetchone()[0],
                "messages": copy.execute("SELECT COUNT(*) FROM messages").fetchone()[0],
                "passages": copy.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]}
    version = copy.execute("SELECT MAX(number) FROM _migrations").fetchone()[0]
    copy.close()
    assert manifest["counts"] == expected and expected["sources"] == 1 and expected["passages"] >= 1
    assert manifest["schema_version"] == version
    assert manifest["database"]["sha256"] == hashlib.sha256((backup / "biographer.sqlite3").read_bytes()).hexdigest()
    [raw] = (backup / "raw").iterdir()
    assert manifest["raw"] == {raw.name: hashlib.sha256(raw.read_bytes()).hexdigest()}

    capsys.readouterr()
    assert cli("backup", "--verify") == 0
    assert capsys.readouterr().out.startswith(f"ok       {backup.name}")
    assert cli("backup", "--verify", backup.name) == 0


def test_restore_refuses_a_backup_with_one_byte_of_a_passage_flipped(tmp_path: Path, capsys):
    data = tmp_path / "data"
    backup = backup_then_a_later_note(tmp_path)
    _flip(backup / "biographer.sqlite3", b"quokka met us")

    capsys.readouterr()
    assert cli("backup", "--verify") == 1
    assert "biographer.sqlite3 differs from its manifest" in capsys.readouterr().out
    assert cli("restore", str(backup), "--yes") == 2
    err = capsys.readouterr().err
    assert "does not match" in err and "biographer.sqlite3 differs" in err
    assert [h["document"] for h in keyword_hits("harbour", capsys)] == ["later.txt"]  # untouched
    assert [p for p in backups_of(data) if "before-restore" in p.name] == []


def test_restore_refuses_a_flipped_passage_even_with_its_manifest_rewritten_to_match(tmp_path: Path, capsys):
    import hashlib

    backup = backup_then_a_later_note(tmp_path)
    database = backup / "biographer.sqlite3"
    _flip(database, b"quokka met us")
    manifest = _manifest(backup)
    manifest["database"]["sha256"] = hashlib.sha256(database.read_bytes()).hexdigest()
    (backup / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    copy = sqlean.connect(str(database))
    [(passage,)] = copy.execute("SELECT id FROM chunks WHERE text LIKE '%qtokka%'").fetchall()
    copy.close()

    capsys.readouterr()
    assert cli("restore", str(backup), "--yes") == 2
    err = capsys.readouterr().err
    assert f"the keyword index disagrees with the text of the passages with ids {passage}" in err
    assert [h["document"] for h in keyword_hits("harbour", capsys)] == ["later.txt"]


def test_restore_names_counts_that_differ_from_the_manifest(tmp_path: Path, capsys):
    backup = backup_then_a_later_note(tmp_path)
    manifest = _manifest(backup)
    manifest["counts"]["sources"] += 1
    (backup / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (backup / "raw" / "stray.bin").write_bytes(b"x")

    capsys.readouterr()
    assert cli("restore", str(backup), "--yes") == 2
    err = capsys.readouterr().err
    assert "sources: 1, the manifest says 2" in err and "raw/stray.bin is not in the manifest" in err


def test_forget_rewrites_the_manifests_of_the_backups_it_changes(tmp_path: Path, capsys):
    backup = backup_then_a_later_note(tmp_path)
    before = _manifest(backup)
    capsys.readouterr()
    assert cli("sources", "--json") == 0
    [note] = [s for s in json.loads(capsys.readouterr().out) if s["name"] == "note.txt"]
    assert cli("forget", str(note["id"]), "--yes") == 0

    after = _manifest(backup)
    assert after["counts"]["sources"] == before["counts"]["sources"] - 1 and after["raw"] == {}
    capsys.readouterr()
    assert cli("backup", "--verify") == 0
