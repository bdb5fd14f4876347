"""Docker users reach the page, REST and MCP: the compose file publishes the server on the host's
loopback, and the container's own command line (the Dockerfile's ENTRYPOINT + CMD, the compose
file's environment) serves a page one can log in to. CI has no Docker, so the test runs that same
command line here, with only the data folder and the port changed."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
COOKIE = "biographer_session"


def compose_service() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))["services"]["biographer"]


def container_command() -> list[str]:
    """ENTRYPOINT + CMD of the Dockerfile, in their JSON (exec) form."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    entrypoint = json.loads(re.search(r"^ENTRYPOINT\s+(\[.*\])$", text, re.M).group(1))
    command = json.loads(re.search(r"^CMD\s+(\[.*\])$", text, re.M).group(1))
    return entrypoint + command


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_compose_file_publishes_the_server_on_the_host_s_loopback_only():
    service = compose_service()
    environment = service["environment"]
    port = str(environment["BIOGRAPHER_API_PORT"])
    assert environment["BIOGRAPHER_API_HOST"] == "0.0.0.0"  # inside the container: reachable from the host
    assert service["ports"] == [f"127.0.0.1:{port}:{port}"]  # on the host: this machine only


def test_the_container_s_command_line_serves_a_page_you_can_log_in_to(tmp_path: Path):
    port = free_port()
    environment = {key: str(value) for key, value in compose_service()["environment"].items()}
    environment.update(BIOGRAPHER_DATA_DIR=str(tmp_path / "data"), BIOGRAPHER_API_PORT=str(port))
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("BIOGRAPHER_")}, **environment}
    issued = subprocess.run([str(BIN / "biographer"), "clients", "add", "me", "--web", "--json"], env=env,
                            capture_output=True, text=True, check=True, timeout=120)
    token = json.loads(issued.stdout)["token"]
    command = container_command()
    assert command[0] == "biographer"
    server = subprocess.Popen([str(BIN / command[0]), *command[1:]], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            try:
                httpx.get(f"{base}/login", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stdout.read()
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.3)
        login = httpx.post(f"{base}/login", data={"token": token, "next": "/bio"}, timeout=10)
        assert login.status_code == 303, login.text
        page = httpx.get(f"{base}/bio", cookies={COOKIE: login.cookies[COOKIE]}, timeout=10)
        assert page.status_code == 200 and "bio" in page.text.lower()
        # bound to every address inside the container, it still answers only to localhost names
        rebound = httpx.get(f"{base}/login", headers={"Host": "evil.example"}, timeout=10)
        assert rebound.status_code == 421
        assert httpx.get(f"{base}/v1/capabilities", timeout=10).status_code == 401  # REST wants its token
    finally:
        server.send_signal(signal.SIGTERM)
        output = server.communicate(timeout=60)[0]
    assert server.returncode == 0, output
    assert "Traceback" not in output
