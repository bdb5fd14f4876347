"""Where the page's uploads wait: inside the data folder (0700 folders, 0600 files), never in the
system's temporary folder; what a killed server left is removed at the next start and by forget,
while an import that is still running keeps its files."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

from bot.cli import main
from storage.uploads import UploadStaging
from tests.server.conftest import running_server
from tests.server.test_cli import cli_json, free_port
from tests.server.test_page import COOKIE, csrf_of, logged_in

WORDS = b"# Notes\n\nThe Quillowhisker ferry left at dawn.\n"


def files_under(folder: Path) -> list[Path]:
    """The files waiting under `folder`, less the imports' lock files (empty)."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix != ".lock") if folder.exists() else []


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_a_file_still_arriving_waits_private_inside_the_data_folder(settings, tmp_path, monkeypatch):
    system_tmp = tmp_path / "system-tmp"
    system_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_tmp))
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with logged_in(server) as http:
            csrf = {"X-CSRF-Token": csrf_of((await http.get("/imports")).text)}
            job = (await http.post("/imports", headers=csrf)).json()
            release = asyncio.Event()

            async def slow():
                yield WORDS[:20]
                await release.wait()
                yield WORDS[20:]
            upload = asyncio.create_task(http.post(f"/imports/{job['id']}/files", params={"name": "notes.md"},
                                                   content=slow(), headers=csrf))
            uploads = settings.data_dir / "uploads"
            for _ in range(200):
                if files_under(uploads):
                    break
                await asyncio.sleep(0.02)
            [arriving] = files_under(uploads)
            assert mode(arriving) == 0o600 and mode(arriving.parent) == 0o700 and mode(uploads) == 0o700
            assert arriving.parent.parent == uploads
            assert list(system_tmp.iterdir()) == []  # nothing of it in the system's temporary folder
            release.set()
            assert (await upload).status_code == 200
            assert (await http.post(f"/imports/{job['id']}/start", headers=csrf)).status_code == 200
            for _ in range(200):
                if (await http.get(f"/imports/{job['id']}")).json()["state"] == "done":
                    break
                await asyncio.sleep(0.05)
            found = (await http.get("/search", params={"q": "Quillowhisker", "mode": "keyword"})).text
            assert "Quillowhisker" in found  # imported from inside the data folder, not skipped as the store's own
            assert files_under(uploads) == []
    assert list(system_tmp.iterdir()) == []


def left_by_a_killed_process(root: Path, name: str, content: bytes) -> None:
    """A file staged in `root` by another process that was then killed -9 (its lock let go)."""
    child = subprocess.run(
        [sys.executable, "-c", "import os, sys; from pathlib import Path; from storage.uploads import UploadStaging;"
         " f = UploadStaging(Path(sys.argv[1])).new_folder(); (f.path / sys.argv[2]).write_bytes(sys.argv[3].encode());"
         " os.kill(os.getpid(), 9)", str(root), name, content.decode()], cwd=Path(__file__).parents[2])
    assert child.returncode == -signal.SIGKILL


def _upload_then_kill(port: int, token: str, env: dict) -> None:
    """A real `biographer serve`: log in to the page, upload a file, and kill -9 the server before
    the import is started."""
    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve", "--port", str(port)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert "memory server on" in line, process.stderr.read()
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            answer = http.post("/login", data={"token": token, "next": "/imports"})
            assert answer.status_code == 303, answer.text
            secret = answer.cookies[COOKIE]
            http.cookies.clear()
            http.cookies.set(COOKIE, secret)
            csrf = {"X-CSRF-Token": csrf_of(http.get("/imports").text)}
            job = http.post("/imports", headers=csrf).json()
            up = http.post(f"/imports/{job['id']}/files", params={"name": "notes.md"}, content=WORDS, headers=csrf)
            assert up.status_code == 200, up.text
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=20)


def test_what_a_killed_server_left_waiting_is_removed_at_the_next_start(tmp_path, capsys):
    token = cli_json(capsys, "clients", "add", "me", "--web", "--json")["token"]
    system_tmp = tmp_path / "system-tmp"
    system_tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(system_tmp), "BIOGRAPHER_EMBEDDING_BACKEND": "openai",
           "BIOGRAPHER_EMBEDDING_BASE_URL": "http://127.0.0.1:9/v1"}
    _upload_then_kill(free_port(), token, env)
    uploads = Path(os.environ["BIOGRAPHER_DATA_DIR"]) / "uploads"
    [left] = files_under(uploads)
    assert left.read_bytes() == WORDS and mode(left) == 0o600  # the kill left it, private, in the data folder
    assert files_under(system_tmp) == []
    assert main(["stats"]) == 0  # any command that opens the store
    assert files_under(uploads) == [] and [p.name for p in uploads.iterdir()] == []


async def test_forget_removes_uploads_left_by_a_dead_process_but_not_a_running_imports(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        memory = server.service.memory
        staging = memory.uploads
        left_by_a_killed_process(staging.root, "chat.txt", b"left")  # by a second server, say
        running = staging.new_folder()  # an import of this process, still receiving
        (running.path / "live.txt").write_bytes(b"arriving")
        assert len(files_under(staging.root)) == 2
        source = (await server.service.sources())[0]
        await memory.forget(source.id)
        assert files_under(staging.root) == [running.path / "live.txt"]
        running.remove()
        assert list(staging.root.iterdir()) == []


def test_a_sweep_never_takes_a_held_folder_and_removes_stray_locks(tmp_path):
    staging = UploadStaging(tmp_path / "uploads")
    held = staging.new_folder()
    (staging.root / "import-dead.lock").write_bytes(b"")  # a lock whose folder is gone
    (staging.root / "import-nolock").mkdir()  # a folder whose lock is gone
    assert staging.sweep() == 1
    assert sorted(p.name for p in staging.root.iterdir()) == sorted([held.path.name, held.path.name + ".lock"])
    held.remove()
    assert list(staging.root.iterdir()) == []


async def test_a_zip_is_unpacked_inside_the_data_folder_never_in_the_system_tmp(tmp_path, monkeypatch, embedder):
    """A WhatsApp zip's voice note is unpacked to be transcribed: into a private folder in
    DATA_DIR/uploads (sealed stores' words must not sit in /tmp, and a kill leaves it where the
    next start removes it), gone when the import ends."""
    from dataclasses import replace

    from tests.core.helpers import memory_at
    from tests.importers.test_whatsapp import make_zip

    system_tmp = tmp_path / "system-tmp"
    system_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_tmp))
    seen = []

    class Transcriber:  # records where the voice note lies while it is heard
        def transcribe(self, path: Path, *, hints=()) -> str:
            seen.append((path, mode(path.parent), sorted(p.name for p in system_tmp.iterdir())))
            return "meet me at the tram stop"

    archive = make_zip(tmp_path, {"WhatsApp Chat - Teo Ramos.txt":
                                  b"05/03/2024, 21:07 - Teo Ramos: PTT-20240305-WA0009.opus (file attached)\n",
                                  "PTT-20240305-WA0009.opus": b"OggS" + b"\x00" * 64})
    data = tmp_path / "data"
    async with memory_at(data, embedder) as memory:
        memory.context = replace(memory.context, transcriber=Transcriber())
        report = await memory.ingest([archive])
    assert report.errors == [] and report.documents_added == 1
    [(heard, folder_mode, in_system_tmp)] = seen
    assert heard.is_relative_to(data / "uploads") and folder_mode == 0o700 and in_system_tmp == []
    assert files_under(data / "uploads") == []
