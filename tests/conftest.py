"""Shared fixtures: every test gets its own data directory and settings, and no network."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from core.config import Settings
from tests.fakes.embedder import HashEmbedder


@pytest.fixture(scope="session")
def _user_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The user cache of a test run (the embedding model's rewritten copy is made once per run)."""
    return tmp_path_factory.mktemp("user-cache")


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _user_cache: Path) -> None:
    """No BIOGRAPHER_* setting or .env of the developer leaks into a test, nor is anything
    written to the developer's own cache."""
    import os

    for key in list(os.environ):
        if key.startswith("BIOGRAPHER_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BIOGRAPHER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(_user_cache))
    # the developer's OS keyring (where a store passphrase may be kept) is never read
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setenv("TZ", "UTC")  # the default time zone is the machine's: make it the same everywhere


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests may only talk to this machine: any other address fails loudly."""
    real_connect = socket.socket.connect

    def guarded(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and not (host.startswith("127.") or host in ("localhost", "::1")
                                          or host.startswith("/")):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", timezone="Europe/Lisbon", owner_aliases=["Ana"])


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def fake_openai():
    """A scripted OpenAI-compatible server on 127.0.0.1 (tests/fakes/openai_server.py)."""
    from tests.fakes.openai_server import FakeOpenAIServer

    with FakeOpenAIServer() as server:
        yield server
