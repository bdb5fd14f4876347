"""Every start-up failure a new user can hit is one line and a hint, never a traceback."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from core.files import write_private

BIOGRAPHER = Path(sys.executable).parent / "biographer"


def run(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIOGRAPHER), *args], env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=timeout)


def assert_one_line_with_hint(result: subprocess.CompletedProcess, *words: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith(("error:", "  →"))]
    assert len(lines) == 2 and lines[0].startswith("error:") and lines[1].startswith("  →"), result.stderr
    assert all(word in result.stderr for word in words), result.stderr


@pytest.fixture
def busy_port():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


def test_serve_on_a_busy_port_says_so_and_how_to_pick_another(busy_port: int, tmp_path: Path):
    result = run("serve", "--port", str(busy_port), env={"BIOGRAPHER_DATA_DIR": str(tmp_path / "data")})
    assert_one_line_with_hint(result, f"port {busy_port}", "already in use", "--port")


def test_run_with_a_busy_api_port_says_so_and_stops_cleanly(busy_port: int, tmp_path: Path):
    result = run("run", env={"BIOGRAPHER_DATA_DIR": str(tmp_path / "data"), "BIOGRAPHER_API_PORT": str(busy_port)})
    assert_one_line_with_hint(result, f"port {busy_port}", "BIOGRAPHER_API_PORT")
    assert "apscheduler" not in result.stderr.lower()


def test_a_data_folder_that_cannot_be_made_says_which_and_what_to_do(tmp_path: Path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = run("stats", env={"BIOGRAPHER_DATA_DIR": str(blocker / "data")})
    assert_one_line_with_hint(result, str(blocker / "data"), "BIOGRAPHER_DATA_DIR")


def test_a_bad_setting_names_the_variable(tmp_path: Path):
    result = run("stats", env={"BIOGRAPHER_DATA_DIR": str(tmp_path / "data"), "BIOGRAPHER_API_PORT": "eighty"})
    assert_one_line_with_hint(result, "BIOGRAPHER_API_PORT", ".env")


def test_a_private_file_in_an_existing_folder_leaves_the_folder_as_it_was(tmp_path: Path):
    """`picture week --out ~/Pictures/week.png` must not make ~/Pictures private."""
    folder = tmp_path / "Pictures"
    folder.mkdir()
    folder.chmod(0o755)
    written = write_private(folder / "week.png", b"\x89PNG")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755
    assert stat.S_IMODE(written.stat().st_mode) == 0o600


def test_folders_a_private_file_creates_are_private(tmp_path: Path):
    written = write_private(tmp_path / "new" / "deeper" / "note.md", "text")
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "new" / "deeper").stat().st_mode) == 0o700
    assert written.read_text() == "text"


def test_chat_without_a_model_fails_before_asking_for_a_line(tmp_path: Path):
    """The terminal stays open (a person who has not typed yet): the refusal must come at once."""
    process = subprocess.Popen([str(BIOGRAPHER), "chat"], env={**os.environ, "BIOGRAPHER_DATA_DIR": str(tmp_path / "d")},
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        process.wait(timeout=120)  # stdin stays open and unwritten: the old chat waited here for ever
    finally:
        process.kill()
        process.stdin.close()
    out, err = process.stdout.read(), process.stderr.read()
    process.stdout.close(), process.stderr.close()
    result = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    assert_one_line_with_hint(result, "no language model is configured", "BIOGRAPHER_LLM_API_KEY")
    assert "you>" not in out + err and "Talk to your biographer" not in err


@pytest.mark.parametrize(("setting", "value", "words"), [
    ("BIOGRAPHER_TELEGRAM_OWNER_IDS", "@ana_s", ("BIOGRAPHER_TELEGRAM_OWNER_IDS", "'@ana_s' is not a numeric id")),
    ("BIOGRAPHER_DISCORD_OWNER_IDS", "ana#1234", ("BIOGRAPHER_DISCORD_OWNER_IDS", "numeric id")),
    ("BIOGRAPHER_LLM_MAX_RETRIES", "-1", ("BIOGRAPHER_LLM_MAX_RETRIES", "greater than or equal to 0")),
    ("BIOGRAPHER_API_PORT", "70000", ("BIOGRAPHER_API_PORT", "less than or equal to 65535")),
    ("BIOGRAPHER_BACKUP_KEEP", "0", ("BIOGRAPHER_BACKUP_KEEP", "greater than or equal to 1")),
    ("BIOGRAPHER_EMBEDDING_BATCH_SIZE", "0", ("BIOGRAPHER_EMBEDDING_BATCH_SIZE", "greater than or equal to 1")),
])
def test_a_setting_out_of_its_range_is_one_line_before_anything_runs(setting, value, words, tmp_path: Path):
    """A Telegram handle where an id belongs matched no one: the bot ignored its owner in silence
    (and its scheduled messages failed on int()); a negative count or an impossible port failed
    later, deep in a library."""
    result = run("stats", env={"BIOGRAPHER_DATA_DIR": str(tmp_path / "data"), setting: value})
    assert_one_line_with_hint(result, *words)
