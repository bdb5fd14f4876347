"""`biographer encrypt --change`: the store, its kept copies, inbox and backups are encrypted again
under a new passphrase, after a backup; the old passphrase opens nothing afterwards; killed at
any point (between any two files, or kill -9), every file opens with one of the two passphrases
and running it again finishes; a backup copied away before the change is told apart."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import keyring
import pytest

from core.chat.inbox import Inbox
from storage import encryption, reencrypt
from storage.db import connect
from tests.security.test_encryption import (INBOX, PASSPHRASE, a_store_in_the_clear, cli, every_file, keyword_hits,
                                            memory_keyring, planted_in)

NEW = "another passphrase, just as long"


@pytest.fixture(autouse=True)
def _quick_stretch(monkeypatch):
    """Key files made here record a cheaper scrypt (2^12): every command re-derives the key, and
    these tests run dozens of commands. The stretch's cost is not what they check."""
    monkeypatch.setattr(encryption, "SCRYPT_N", 2**12)


def encrypted_store(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("BIOGRAPHER_STORE_KEY", PASSPHRASE)
    data = a_store_in_the_clear(tmp_path)
    assert cli("encrypt") == 0
    return data


def opens_only_with(data: Path, passphrase: str) -> None:
    """Every database and sealed file under `data` opens with `passphrase`."""
    key_file = encryption.read_key_file(data)
    assert key_file.state == "encrypted"
    key = encryption.unlock(key_file, passphrase)
    for folder in [data, *(p for p in (data / "backups").iterdir() if p.is_dir())]:
        assert encryption.read_key_file(folder).salt == key_file.salt, folder
        connect(folder / "biographer.sqlite3", key=key).execute("SELECT COUNT(*) FROM documents").fetchone()
    sealed = [p for p in every_file(data) if p.suffix != ".lock" and p.stat().st_size and encryption.is_sealed(p)]
    assert len(sealed) >= 3  # kept copies, the inbox entry, the backups' copies
    for path in sealed:
        assert encryption.opens_with(path, key.files), path


def the_words_are_readable(data: Path, capsys) -> None:
    assert keyword_hits("Zanzibarhouse", capsys) == ["note.txt"]
    assert keyword_hits("Vexillumword", capsys) == ["WhatsApp with Xylophonist"]
    key = encryption.unlock(encryption.read_key_file(data), os.environ["BIOGRAPHER_STORE_KEY"])
    assert [entry for *_, entry in Inbox(data / "inbox", key=key.files).pending()] == [{"text": INBOX}]


def test_change_moves_everything_to_the_new_passphrase_and_the_old_one_opens_nothing(tmp_path, capsys, monkeypatch):
    data = encrypted_store(tmp_path, monkeypatch)
    copied_away = tmp_path / "usb-stick"
    shutil.copytree(sorted((data / "backups").glob("biographer-*"))[-1], copied_away / "biographer-old")
    old_salt = encryption.read_key_file(data).salt

    monkeypatch.setenv("BIOGRAPHER_NEW_STORE_KEY", PASSPHRASE)
    capsys.readouterr()
    assert cli("encrypt", "--change") == 2
    assert "is the one the store has" in capsys.readouterr().err
    monkeypatch.setenv("BIOGRAPHER_NEW_STORE_KEY", NEW)
    backups_before = len(list((data / "backups").glob("biographer-*")))
    assert cli("encrypt", "--change") == 0
    out = capsys.readouterr().out
    assert "Changed the passphrase" in out and "set BIOGRAPHER_STORE_KEY to the new passphrase" in out
    assert len(list((data / "backups").glob("biographer-*"))) == backups_before + 1  # one taken first
    assert not (data / encryption.NEXT_KEY_FILE).exists()
    assert encryption.read_key_file(data).retired[0].salt == old_salt

    # the old passphrase opens nothing: every command says so in one line and changes nothing
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in every_file(data)}
    for argv in (["search", "Zanzibarhouse"], ["sources"], ["backup", "--verify"], ["encrypt", "--change"]):
        capsys.readouterr()
        assert cli(*argv) == 2, argv
        assert "does not open this store" in capsys.readouterr().err
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in every_file(data)} == before
    with pytest.raises(encryption.WrongStoreKey):
        encryption.unlock(encryption.read_key_file(data), PASSPHRASE)

    monkeypatch.setenv("BIOGRAPHER_STORE_KEY", NEW)
    opens_only_with(data, NEW)
    the_words_are_readable(data, capsys)
    assert planted_in(data) == []
    capsys.readouterr()
    assert cli("backup", "--verify") == 0
    assert "DIFFERS" not in capsys.readouterr().out

    # the backup copied away before the change is told apart, and still opens with the old passphrase
    assert cli("backup", "--verify", str(copied_away / "biographer-old")) == 2
    err = capsys.readouterr().err
    assert "encrypted with the passphrase the store used until" in err and "earlier passphrase" in err
    monkeypatch.setenv("BIOGRAPHER_STORE_KEY", PASSPHRASE)
    assert cli("backup", "--verify", str(copied_away / "biographer-old")) == 0


def test_a_change_killed_between_any_two_files_finishes_when_run_again(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BIOGRAPHER_BACKUP_KEEP", "3")  # each change takes one: fewer to convert each time
    data = encrypted_store(tmp_path, monkeypatch)
    real_file, real_database = reencrypt.convert_file, reencrypt.convert_database
    old, new = PASSPHRASE, NEW
    for kill_after in range(50):  # each round from one passphrase to the other, killed one file later
        done = []

        def counted(real):
            def step(*args, **kwargs):
                if len(done) == kill_after:
                    raise KeyboardInterrupt  # the process dies here, between two files
                done.append(args[0])
                return real(*args, **kwargs)
            return step
        monkeypatch.setattr(reencrypt, "convert_file", counted(real_file))
        monkeypatch.setattr(reencrypt, "convert_database", counted(real_database))
        monkeypatch.setenv("BIOGRAPHER_STORE_KEY", old)
        monkeypatch.setenv("BIOGRAPHER_NEW_STORE_KEY", new)
        capsys.readouterr()
        finished = cli("encrypt", "--change") == 0
        monkeypatch.setattr(reencrypt, "convert_file", real_file)
        monkeypatch.setattr(reencrypt, "convert_database", real_database)
        if finished:
            break
        assert encryption.read_key_file(data).state == "changing"
        assert cli("search", "Zanzibarhouse") == 2
        assert "run `biographer encrypt --change` again" in capsys.readouterr().err
        # every file opens with one of the two passphrases
        keys = [encryption.unlock(encryption.read_key_file(data), old),
                encryption.unlock(encryption.read_key_file(data, encryption.NEXT_KEY_FILE), new)]
        for path in every_file(data):
            if path.suffix != ".lock" and path.stat().st_size and encryption.is_sealed(path):
                assert any(encryption.opens_with(path, k.files) for k in keys), path
        if kill_after == 0:  # a wrong new passphrase does not finish it, and changes nothing
            monkeypatch.setenv("BIOGRAPHER_NEW_STORE_KEY", "a third one")
            assert cli("encrypt", "--change") == 2
            assert "not the new passphrase this change" in capsys.readouterr().err
            monkeypatch.setenv("BIOGRAPHER_NEW_STORE_KEY", new)
        assert cli("encrypt", "--change") == 0  # finishes it
        monkeypatch.setenv("BIOGRAPHER_STORE_KEY", new)
        opens_only_with(data, new)
        old, new = new, old
    assert kill_after >= 6  # the backups' databases and copies, the kept copies, the inbox, the store
    monkeypatch.setenv("BIOGRAPHER_STORE_KEY", new)
    opens_only_with(data, new)
    the_words_are_readable(data, capsys)


def test_a_change_killed_with_sigkill_finishes_when_run_again(tmp_path, capsys, monkeypatch):
    data = encrypted_store(tmp_path, monkeypatch)
    env = {**os.environ, "BIOGRAPHER_NEW_STORE_KEY": NEW}
    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "encrypt", "--change"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=Path(__file__).parents[2])
    for _ in range(3000):  # killed as soon as the change has begun
        if (data / encryption.NEXT_KEY_FILE).exists() or process.poll() is not None:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=20)
    monkeypatch.setenv("BIOGRAPHER_NEW_STORE_KEY", NEW)
    assert cli("encrypt", "--change") == 0
    monkeypatch.setenv("BIOGRAPHER_STORE_KEY", NEW)
    opens_only_with(data, NEW)
    the_words_are_readable(data, capsys)


def test_a_passphrase_kept_in_the_os_keyring_is_replaced_there(tmp_path, capsys, monkeypatch):
    with memory_keyring() as backend:
        user = str((tmp_path / "data").resolve())
        keyring.set_password("biographer", user, PASSPHRASE)
        a_store_in_the_clear(tmp_path)
        assert cli("encrypt") == 0
        monkeypatch.setenv("BIOGRAPHER_NEW_STORE_KEY", NEW)
        capsys.readouterr()
        assert cli("encrypt", "--change") == 0
        assert "The OS keyring now holds the new passphrase" in capsys.readouterr().out
        assert backend.passwords[("biographer", user)] == NEW
        monkeypatch.delenv("BIOGRAPHER_NEW_STORE_KEY")
        assert keyword_hits("Zanzibarhouse", capsys) == ["note.txt"]  # opened from the keyring, with the new one


def test_a_store_in_the_clear_has_no_passphrase_to_change(tmp_path, capsys, monkeypatch):
    a_store_in_the_clear(tmp_path)
    monkeypatch.setenv("BIOGRAPHER_NEW_STORE_KEY", NEW)
    capsys.readouterr()
    assert cli("encrypt", "--change") == 2
    assert "not encrypted" in capsys.readouterr().err


def test_a_part_file_linked_to_the_file_it_replaces_never_empties_it(tmp_path):
    """Kept copies are hard links into backups. Linking two names of one file again left a `.part`
    link to it (a rename of one link over another does nothing), and the next seal, opening that
    `.part` to write, emptied the file it was reading: killed encrypts and changes lost kept copies."""
    store, backup = tmp_path / "raw", tmp_path / "backup-raw"
    store.mkdir()
    backup.mkdir()
    (store / "copy.txt").write_bytes(b"the owner's words " * 100)
    os.link(store / "copy.txt", backup / "copy.txt")
    reencrypt._link(store / "copy.txt", backup / "copy.txt")
    assert sorted(p.name for p in backup.iterdir()) == ["copy.txt"]
    os.link(store / "copy.txt", store / "copy.txt.part")  # as the old _link left it
    key = os.urandom(32)
    encryption.seal_file(store / "copy.txt", store / "copy.txt", key)
    assert encryption.unseal_bytes((store / "copy.txt").read_bytes(), key, name="copy.txt") == b"the owner's words " * 100
    assert (backup / "copy.txt").read_bytes() == b"the owner's words " * 100  # the other link keeps the old bytes
