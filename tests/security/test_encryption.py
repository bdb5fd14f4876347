"""Encryption at rest through the command line: `encrypt` turns a store (its database, kept copies,
inbox and backups) into one where no planted word is in any byte under the data folder; every
command works on it with the key and refuses in one line without it, changing nothing; a killed
`encrypt` leaves the old store whole and finishes when run again; `decrypt` undoes it all."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import keyring
import pytest
import sqlean
from keyring.backend import KeyringBackend

from bot.cli import main
from core.chat.inbox import Inbox
from storage import encryption, reencrypt
from storage.db import connect
from tests.core.helpers import whatsapp_export

PASSPHRASE = "a long and unusual passphrase"
NOTE = "Our secret word is Quokkaplanted; we meet at Zanzibarhouse on Friday."
CHAT = ["05/03/2024, 21:07 - Xylophonist Planted: the code is Vexillumword",
        "05/03/2024, 21:08 - Ana: got it"]
LATER = "Afterwards the Marzipanocelot sang."
INBOX = "a forward about Tamarindofox waiting in the inbox"
# fragments of the planted words and of their stems, as the keyword index keeps them
FRAGMENTS = [b"quokkapla", b"zanzibarh", b"vexillumw", b"xylophoni", b"marzipanoc", b"tamarindof"]


def cli(*argv: str) -> int:
    return main([*argv])


def every_file(folder: Path) -> list[Path]:
    return [Path(root) / name for root, _, names in os.walk(folder) for name in names]


def planted_in(folder: Path) -> list[str]:
    found = []
    for path in every_file(folder):
        data = path.read_bytes().lower()
        found += [f"{path.relative_to(folder)}: {f.decode()}" for f in FRAGMENTS if f in data]
    return found


def keyword_hits(query: str, capsys) -> list[str]:
    capsys.readouterr()
    assert cli("search", query, "--mode", "keyword", "--json") == 0
    return [h["document"] for h in json.loads(capsys.readouterr().out)]


def sources(capsys) -> list[dict]:
    capsys.readouterr()
    assert cli("sources", "--json") == 0
    return json.loads(capsys.readouterr().out)


def a_store_in_the_clear(tmp_path: Path) -> Path:
    """A store with a note, a chat, an inbox entry and a backup, all in the clear."""
    data = tmp_path / "data"
    (tmp_path / "note.txt").write_text(NOTE, encoding="utf-8")
    chat = whatsapp_export(tmp_path / "WhatsApp Chat with Xylophonist.txt", CHAT)
    assert cli("ingest", "--no-index", str(tmp_path / "note.txt"), str(chat)) == 0
    assert cli("backup") == 0
    Inbox(data / "inbox").put("forwards", {"text": INBOX})
    assert planted_in(data)  # the words are there to be found before
    return data


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIOGRAPHER_STORE_KEY", PASSPHRASE)


def test_encrypt_leaves_no_planted_word_in_any_file_under_the_data_folder(tmp_path: Path, capsys, key):
    from tests.server.test_page_uploads import left_by_a_killed_process

    data = a_store_in_the_clear(tmp_path)
    left_by_a_killed_process(data / "uploads", "chat.txt", NOTE.encode())  # a page import killed before encrypt

    assert cli("encrypt") == 0
    (tmp_path / "later.txt").write_text(LATER, encoding="utf-8")
    assert cli("ingest", "--no-index", str(tmp_path / "later.txt")) == 0
    assert cli("backup") == 0
    assert keyword_hits("Zanzibarhouse", capsys) == ["note.txt"]
    assert keyword_hits("Marzipanocelot", capsys) == ["later.txt"]

    assert planted_in(data) == []
    assert not (data / "biographer.sqlite3").read_bytes().startswith(b"SQLite format 3")
    for raw in (data / "raw").iterdir():
        assert encryption.is_sealed(raw)
    assert len(list((data / "backups").glob("biographer-*"))) == 3  # before, the one encrypt took, after
    # the inbox entry waits sealed and is still read
    [entry] = list((data / "inbox").glob("*.json"))
    store_key = encryption.unlock(encryption.read_key_file(data), PASSPHRASE)
    assert list(Inbox(data / "inbox", key=store_key.files).pending())[0][2] == {"text": INBOX}
    capsys.readouterr()
    assert cli("backup", "--verify") == 0
    assert "DIFFERS" not in capsys.readouterr().out


def test_without_the_key_or_with_a_wrong_one_every_command_says_so_and_changes_nothing(
        tmp_path: Path, capsys, monkeypatch):
    monkeypatch.setenv("BIOGRAPHER_STORE_KEY", PASSPHRASE)
    data = a_store_in_the_clear(tmp_path)
    assert cli("encrypt") == 0
    [backup] = [p for p in (data / "backups").iterdir() if p.name.startswith("biographer-")][:1]
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in every_file(data)}
    (tmp_path / "later.txt").write_text(LATER, encoding="utf-8")

    for passphrase in (None, "not the passphrase"):
        if passphrase is None:
            monkeypatch.delenv("BIOGRAPHER_STORE_KEY")
        else:
            monkeypatch.setenv("BIOGRAPHER_STORE_KEY", passphrase)
        for argv in (["search", "Zanzibarhouse"], ["ingest", str(tmp_path / "later.txt")], ["backup"],
                     ["sources"], ["forget", "1", "--yes"], ["restore", str(backup), "--yes"], ["doctor"],
                     ["decrypt"], ["backup", "--verify"]):
            capsys.readouterr()
            assert cli(*argv) == 2, argv
            err = capsys.readouterr().err
            assert err.startswith("error: ") and len(err.strip().splitlines()) == 2, (argv, err)  # line + hint
            assert ("no key was given" if passphrase is None else "does not open this store") in err
            assert PASSPHRASE not in err
    after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in every_file(data)}
    assert after == before


def test_a_new_store_is_encrypted_from_the_start_and_doctor_says_so(tmp_path: Path, capsys, monkeypatch, key):
    monkeypatch.setenv("BIOGRAPHER_ENCRYPT", "true")
    data = tmp_path / "data"
    (tmp_path / "note.txt").write_text(NOTE, encoding="utf-8")
    assert cli("ingest", "--no-index", str(tmp_path / "note.txt")) == 0

    assert encryption.read_key_file(data).state == "encrypted"
    assert planted_in(data) == []
    assert keyword_hits("Quokkaplanted", capsys) == ["note.txt"]
    # semantic and hybrid search read the store through connections of their own, keyed too
    assert cli("reindex", "--pending") == 0
    for mode in ("semantic", "hybrid"):
        capsys.readouterr()
        assert cli("search", "where do we meet on Friday", "--mode", mode, "--json") == 0
        assert [h["document"] for h in json.loads(capsys.readouterr().out)] == ["note.txt"]
    assert planted_in(data) == []
    capsys.readouterr()
    assert cli("doctor") == 0
    out = capsys.readouterr().out
    assert "encryption:  encrypted" in out and "BIOGRAPHER_STORE_KEY" in out and PASSPHRASE not in out


def test_doctor_says_when_the_store_is_in_the_clear(tmp_path: Path, capsys):
    (tmp_path / "note.txt").write_text(NOTE, encoding="utf-8")
    assert cli("ingest", "--no-index", str(tmp_path / "note.txt")) == 0
    capsys.readouterr()
    assert cli("doctor") == 0
    assert "encryption:  not encrypted" in capsys.readouterr().out


def test_restore_and_forget_work_on_an_encrypted_store_and_its_backups(tmp_path: Path, capsys, key):
    data = a_store_in_the_clear(tmp_path)
    assert cli("encrypt") == 0
    (tmp_path / "later.txt").write_text(LATER, encoding="utf-8")
    assert cli("ingest", "--no-index", str(tmp_path / "later.txt")) == 0
    backup = sorted(p for p in (data / "backups").iterdir() if p.name.startswith("biographer-"))[0]

    assert cli("restore", str(backup), "--yes") == 0
    assert keyword_hits("Marzipanocelot", capsys) == []  # later than the backup
    assert keyword_hits("Zanzibarhouse", capsys) == ["note.txt"]

    [note] = [s for s in sources(capsys) if s["name"] == "note.txt"]
    assert cli("forget", str(note["id"]), "--yes") == 0
    assert keyword_hits("Zanzibarhouse", capsys) == []
    for held in sorted(p for p in (data / "backups").iterdir() if p.name.startswith("biographer-")):
        copy = connect(held / "biographer.sqlite3",
                                 key=encryption.unlock(encryption.read_key_file(held), PASSPHRASE))
        assert copy.execute("SELECT COUNT(*) FROM documents WHERE name = 'note.txt'").fetchone()[0] == 0
        copy.close()
    capsys.readouterr()
    assert cli("backup", "--verify") == 0
    # a backup restored into a new data folder brings its key file: the passphrase opens it there
    other = tmp_path / "elsewhere"
    assert cli("--data-dir", str(other), "restore", str(backup), "--yes") == 0
    assert (other / "encryption.json").is_file() and planted_in(other) == []


def test_restore_refuses_an_encrypted_backup_with_a_flipped_byte(tmp_path: Path, capsys, key):
    data = a_store_in_the_clear(tmp_path)
    assert cli("encrypt") == 0
    backup = sorted(p for p in (data / "backups").iterdir() if p.name.startswith("biographer-"))[-1]
    database = backup / "biographer.sqlite3"
    raw = bytearray(database.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    database.write_bytes(bytes(raw))

    capsys.readouterr()
    assert cli("restore", str(backup), "--yes") == 2
    assert "biographer.sqlite3 differs from its manifest" in capsys.readouterr().err


def test_a_killed_encrypt_leaves_the_store_whole_and_finishes_when_run_again(tmp_path: Path, capsys, monkeypatch, key):
    data = a_store_in_the_clear(tmp_path)
    real = reencrypt.convert_file
    calls = []

    def killed_after_one(path, **keys):  # the process dies after sealing the first file
        if calls:
            raise KeyboardInterrupt
        calls.append(path)
        return real(path, **keys)

    monkeypatch.setattr(reencrypt, "convert_file", killed_after_one)
    capsys.readouterr()
    assert cli("encrypt") != 0
    assert "interrupted" in capsys.readouterr().err
    monkeypatch.setattr(reencrypt, "convert_file", real)

    # the database is untouched and in the clear; every command but encrypt says to finish it
    plain = sqlean.connect(str(data / "biographer.sqlite3"))
    assert plain.execute("SELECT COUNT(*) FROM documents").fetchone()[0] == 2
    plain.close()
    capsys.readouterr()
    assert cli("search", "Zanzibarhouse") == 2
    assert "run `biographer encrypt` again" in capsys.readouterr().err

    assert cli("encrypt") == 0
    assert keyword_hits("Zanzibarhouse", capsys) == ["note.txt"]
    assert planted_in(data) == []
    capsys.readouterr()
    assert cli("backup", "--verify") == 0


def test_decrypt_puts_everything_back_in_the_clear(tmp_path: Path, capsys, key):
    data = a_store_in_the_clear(tmp_path)
    originals = {p.name: p.read_bytes() for p in (data / "raw").iterdir()}
    assert cli("encrypt") == 0
    assert cli("decrypt") == 0

    assert not (data / "encryption.json").exists()
    assert (data / "biographer.sqlite3").read_bytes().startswith(b"SQLite format 3")
    assert {p.name: p.read_bytes() for p in (data / "raw").iterdir()} == originals
    assert not list((data / "backups").glob("*/encryption.json"))
    assert keyword_hits("Vexillumword", capsys) == ["WhatsApp with Xylophonist"]
    capsys.readouterr()
    assert cli("backup", "--verify") == 0
    assert cli("doctor") == 0
    assert "not encrypted" in capsys.readouterr().out


class MemoryKeyring(KeyringBackend):
    """A real keyring backend, holding its passwords in a dict (installed for one test at a time)."""
    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.passwords.pop((service, username), None)


@contextmanager
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


def test_the_passphrase_can_come_from_the_os_keyring(tmp_path: Path, capsys, monkeypatch):
    with memory_keyring():
        keyring.set_password("biographer", str((tmp_path / "data").resolve()), PASSPHRASE)
        a_store_in_the_clear(tmp_path)
        assert cli("encrypt") == 0
        assert keyword_hits("Quokkaplanted", capsys) == ["note.txt"]
        capsys.readouterr()
        assert cli("doctor") == 0
        assert "the OS keyring" in capsys.readouterr().out


def test_sealed_files_refuse_a_wrong_key_a_cut_and_a_changed_byte(tmp_path: Path):
    key = os.urandom(32)
    for size in (0, 1, encryption.CHUNK, encryption.CHUNK + 1, 3 * encryption.CHUNK):
        data = os.urandom(size)
        sealed = encryption.seal_bytes(data, key)
        assert encryption.unseal_bytes(sealed, key, name="x") == data
        assert size < 16 or data[:16] not in sealed
        at = len(sealed) // 2
        for damaged in (sealed[:-1], sealed[:-17] if size > encryption.CHUNK else sealed[:-1],
                        sealed[:at] + bytes([sealed[at] ^ 1]) + sealed[at + 1:]):
            with pytest.raises(encryption.WrongStoreKey):
                encryption.unseal_bytes(damaged, key, name="x")
        with pytest.raises(encryption.WrongStoreKey):
            encryption.unseal_bytes(sealed, os.urandom(32), name="x")
    # a file cut at a chunk's end, which would otherwise read as whole
    two = encryption.seal_bytes(os.urandom(2 * encryption.CHUNK), key)
    with pytest.raises(encryption.WrongStoreKey):
        encryption.unseal_bytes(two[:16 + encryption.CHUNK + 16], key, name="x")


async def test_the_memory_server_serves_an_encrypted_store_and_what_it_saves_is_sealed(settings, tmp_path: Path):
    from tests.server.conftest import running_server

    key_file, store_key = encryption.new_key_file(PASSPHRASE, state="encrypted")
    settings.data_dir.mkdir(parents=True)
    encryption.write_key_file(settings.data_dir, key_file)
    async with running_server(settings, tmp_path, key=store_key) as server:
        async with server.http(await server.token()) as http:
            found = (await http.post("/v1/search", json={"query": "knee physio", "limit": 5})).json()
            assert found["outcome"] == "matched"
            saved = await http.post("/v1/save", json={"text": "Ana liked the Tamarindofox concert",
                                                      "kind": "preference", "section": "notes"},
                                    headers={"Idempotency-Key": "tamarind-1"})
            assert saved.status_code == 200, saved.text
            read = (await http.post("/v1/read", json={"locator": saved.json()["locator"]})).json()
            assert "Tamarindofox" in read["text"]
    assert planted_in(settings.data_dir) == []
    assert not (settings.data_dir / "biographer.sqlite3").read_bytes().startswith(b"SQLite format 3")


async def test_the_page_keeps_an_encrypted_stores_uploads_sealed_while_they_wait(settings, tmp_path: Path):
    from tests.server.conftest import running_server
    from tests.server.test_page import _finished, csrf_of, logged_in

    uploads = settings.data_dir / "uploads"
    key_file, store_key = encryption.new_key_file(PASSPHRASE, state="encrypted")
    settings.data_dir.mkdir(parents=True)
    encryption.write_key_file(settings.data_dir, key_file)
    async with running_server(settings, tmp_path, seeded=False, key=store_key) as server:
        async with logged_in(server) as http:
            csrf = {"X-CSRF-Token": csrf_of((await http.get("/imports")).text)}
            job = (await http.post("/imports", headers=csrf)).json()
            up = await http.post(f"/imports/{job['id']}/files", params={"name": "2024-05-01 notes.md"},
                                 content=f"# Notes\n\n{LATER}\n".encode() * 3000, headers=csrf)  # several chunks
            assert up.status_code == 200
            [waiting] = [p for p in every_file(uploads) if p.suffix != ".lock"]
            assert encryption.is_sealed(waiting) and planted_in(uploads) == []
            assert (await http.post(f"/imports/{job['id']}/start", headers=csrf)).status_code == 200
            status = await _finished(http, job["id"])
            assert status["state"] == "done" and "1 new source" in status["summary"], status
            found = (await http.get("/search", params={"q": "Marzipanocelot", "mode": "keyword"})).text
            assert "Marzipanocelot" in found
    assert not any(uploads.iterdir())
    assert planted_in(settings.data_dir) == []


def test_encrypt_refuses_while_another_process_has_the_store_open_and_changes_nothing(tmp_path: Path, capsys, key):
    data = a_store_in_the_clear(tmp_path)
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in every_file(data)}
    # another process, like a bot between two requests (locks taken in this process, through
    # another SQLite library, would not be seen: POSIX locks are per process)
    running = subprocess.Popen(
        [sys.executable, "-c", "import sqlean, sys; c = sqlean.connect(sys.argv[1]);"
         " c.execute('SELECT COUNT(*) FROM documents').fetchone(); print('ready', flush=True); sys.stdin.read()",
         str(data / "biographer.sqlite3")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert running.stdout.readline().strip() == "ready"
        capsys.readouterr()
        assert cli("encrypt") == 2
        err = capsys.readouterr().err
        assert "in use by another process" in err and "stop" in err
    finally:
        running.communicate("")
    assert not (data / "encryption.json").exists()
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in every_file(data) if p.exists()} == before
