"""Run by test_page_import_off_loop.py in a fresh interpreter: `biographer serve` in this process
and, from a thread of its own, the page's first import of the files named (log in, drop them,
start, wait until it ends), noting which modules the event loop's thread loads meanwhile and
which other threads load. Writes what it saw as JSON to the first argument's path.

    first_import_probe.py REPORT PORT PAGE_TOKEN FILE..."""

from __future__ import annotations

import importlib.abc
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import httpx

COOKIE = "biographer_session"


class Loads(importlib.abc.MetaPathFinder):
    """Notes each module about to be loaded while `watching` is set, by the thread that loads it
    (the server's loop runs on the main thread); finds nothing itself, so the usual finders after
    it load the module as ever."""

    def __init__(self) -> None:
        self.watching = threading.Event()
        self.on_loop: list[str] = []
        self.elsewhere: list[str] = []

    def find_spec(self, name, path, target=None):
        if self.watching.is_set():
            on_loop = threading.current_thread() is threading.main_thread()
            (self.on_loop if on_loop else self.elsewhere).append(name)
        return None


def logged_in(http: httpx.Client, token: str) -> dict[str, str]:
    """Log in as the owner once the server answers; returns the CSRF header of the session."""
    for _ in range(1200):
        try:
            answer = http.post("/login", data={"token": token, "next": "/imports"})
            break
        except httpx.TransportError:
            time.sleep(0.1)  # still starting
    assert answer.status_code == 303, answer.text
    secret = answer.cookies[COOKIE]
    http.cookies.clear()
    http.cookies.set(COOKIE, secret)  # the cookie is Secure: handed over as a browser would send it
    page = http.get("/imports").text
    marker = '<meta name="csrf-token" content="'
    start = page.index(marker) + len(marker)
    return {"X-CSRF-Token": page[start:page.index('"', start)]}


def first_import(port: int, token: str, files: list[Path], loads: Loads, seen: dict) -> None:
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as http:
            csrf = logged_in(http, token)
            loads.watching.set()
            job = http.post("/imports", headers=csrf).json()
            for path in files:
                sent = http.post(f"/imports/{job['id']}/files", params={"name": path.name},
                                 content=path.read_bytes(), headers=csrf)
                assert sent.status_code == 200, sent.text
            assert http.post(f"/imports/{job['id']}/start", headers=csrf).status_code == 200
            deadline = time.monotonic() + 240
            while (state := http.get(f"/imports/{job['id']}").json())["state"] not in ("done", "failed"):
                assert time.monotonic() < deadline, state
                time.sleep(0.05)
            loads.watching.clear()
            seen.update(state=state["state"], summary=state["summary"])
    except Exception as error:  # noqa: BLE001 - said in the report, which the test reads
        seen.update(state="probe failed", summary=repr(error))
    finally:
        os.kill(os.getpid(), signal.SIGTERM)  # `biographer serve` stops on it


def main() -> int:
    report, port, token, *files = sys.argv[1:]
    loads = Loads()
    sys.meta_path.insert(0, loads)
    seen: dict = {}
    threading.Thread(target=first_import, args=(int(port), token, [Path(f) for f in files], loads, seen),
                     daemon=True).start()
    from bot.cli import main as biographer

    code = biographer(["serve", "--port", port])
    Path(report).write_text(json.dumps({**seen, "on_loop": loads.on_loop, "elsewhere": loads.elsewhere}),
                            encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main())
