"""`biographer clients` and `biographer serve` from the command line, and `biographer run`
starting the server when BIOGRAPHER_API_PORT is set."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time

import httpx

from bot.cli import main
from core.config import Settings


def cli_json(capsys, *argv: str):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_clients_add_list_revoke(capsys):
    added = cli_json(capsys, "clients", "add", "cursor", "--allow", "search,read", "--sections", "chats,notes",
                     "--json")
    assert added["name"] == "cursor" and added["token"].startswith("bio_")
    listed = cli_json(capsys, "clients", "list", "--json")
    assert listed == [{"name": "cursor", "operations": ["search", "read"], "sections": ["chats", "notes"],
                       "created_at": listed[0]["created_at"], "revoked_at": None, "oauth_app": None}]
    assert added["token"] not in json.dumps(listed)
    assert main(["clients", "add", "cursor", "--allow", "search"]) == 2
    assert "exists already" in capsys.readouterr().err
    assert main(["clients", "add", "x", "--allow", "search,erase"]) == 2
    assert "unknown operation: erase" in capsys.readouterr().err
    assert main(["clients", "revoke", "cursor"]) == 0
    capsys.readouterr()
    assert cli_json(capsys, "clients", "list", "--json") == []
    assert cli_json(capsys, "clients", "list", "--all", "--json")[0]["revoked_at"] is not None


def test_serve_answers_with_a_token_from_the_cli(tmp_path, capsys):
    token = cli_json(capsys, "clients", "add", "script", "--allow", "search,read,list,save", "--json")["token"]
    port = free_port()
    env = {**os.environ, "BIOGRAPHER_EMBEDDING_BACKEND": "openai",  # no model is loaded for these requests
           "BIOGRAPHER_EMBEDDING_BASE_URL": "http://127.0.0.1:9/v1"}
    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve", "--port", str(port)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert f"memory server on http://127.0.0.1:{port}" in line, process.stderr.read()
        caps = httpx.get(f"http://127.0.0.1:{port}/v1/capabilities", headers={"Authorization": f"Bearer {token}"})
        assert caps.status_code == 200 and caps.json()["client"] == "script"
        found = httpx.post(f"http://127.0.0.1:{port}/v1/search", json={"query": "x", "mode": "keyword"},
                           headers={"Authorization": f"Bearer {token}"})
        assert found.json()["outcome"] == "nothing_matched"
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0


async def test_run_starts_the_memory_server_when_a_port_is_set(tmp_path, monkeypatch):
    import bot.runtime as runtime
    from tests.frontends.conftest import service_at

    port = free_port()
    settings = Settings(data_dir=tmp_path / "data", timezone="Europe/Lisbon", scheduler_enabled=False, api_port=port)

    def open_runtime_facets(settings):
        return service_at(settings)

    monkeypatch.setattr(runtime, "open_runtime_facets", open_runtime_facets)
    stop = asyncio.Event()
    running = asyncio.create_task(runtime.serve(settings, stop))
    async with httpx.AsyncClient() as http:
        deadline = time.monotonic() + 20
        while True:
            try:
                answer = await http.get(f"http://127.0.0.1:{port}/v1/capabilities")
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline and not running.done()
                await asyncio.sleep(0.05)
    assert answer.status_code == 401  # up, and nobody gets in without a token
    stop.set()
    await asyncio.wait_for(running, 20)


def test_saves_list_and_delete(capsys, settings, tmp_path):
    from tests.server.conftest import running_server

    async def two_agents_save() -> None:
        async with running_server(settings, tmp_path, seeded=False) as server:
            for name in ("cursor", "claude"):
                async with server.http(await server.token(name)) as http:
                    saved = await http.post("/v1/save", json={"text": f"{name} was told: the boat is blue"},
                                            headers={"Idempotency-Key": name})
                    assert saved.status_code == 200, saved.text
    asyncio.run(two_agents_save())
    listed = cli_json(capsys, "saves", "list", "--json")
    assert [(r["record"], r["client"], r["section"]) for r in listed] == [(1, "cursor", "notes"), (2, "claude", "notes")]
    assert [r["client"] for r in cli_json(capsys, "saves", "list", "--client", "claude", "--json")] == ["claude"]
    assert main(["saves", "delete", "1"]) == 0
    assert "1 version forgotten" in capsys.readouterr().out
    assert [r["record"] for r in cli_json(capsys, "saves", "list", "--json")] == [2]
    assert main(["saves", "delete", "1"]) == 2
    assert "no saved record 1" in capsys.readouterr().err
    # a misspelt client is not "no saves": it says which clients there are
    assert main(["saves", "list", "--client", "cursr"]) == 2
    assert "error: no client named 'cursr'\n  → clients: claude, cursor" in capsys.readouterr().err
