"""The README's quick start is true as written: its commands, run as a newcomer runs them (a fresh
HOME, no settings, offline), find what the README says they find."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def quick_start() -> list[str]:
    """The command lines of the README's first sh block, setup.sh left out (the tests run in the
    environment it made) and each `.venv/bin/` pointed at the one running the tests."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.S)[1]
    bin_dir = str(Path(sys.executable).parent) + "/"
    return [line.replace("./setup.sh && ", "").replace(".venv/bin/", bin_dir) for line in block.splitlines() if line]


def test_the_quick_start_finds_the_knee_and_draws_ana_s_week(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BIOGRAPHER_", "XDG_"))}
    env["HOME"] = str(tmp_path / "home")
    checkout = tmp_path / "biographer"  # what the README runs in: a checkout, here its examples/
    shutil.copytree(ROOT / "examples", checkout / "examples")
    script = "set -e\n" + "\n".join(quick_start()) + "\n"
    done = subprocess.run(["bash", "-c", script], cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "home" / ".local" / "share" / "biographer" / "biographer.sqlite3").exists()
    # read by hand from examples/: Maya's advice on the knee; 5-11 March holds four messages of
    # 5 March, two of them Ana's (the owner's, by the alias the quick start sets)
    assert "Go see Dr. Sousa if the knee acts up" in done.stdout
    week = json.loads(done.stdout[done.stdout.index("\n{") + 1:])
    assert "Messages: 4, 2 of them yours" in week["caption"], week["caption"]
    assert "Most messages from: Maya (2)." in week["caption"] and Path(week["path"]).is_file()
