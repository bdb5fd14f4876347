"""Start-up cost of the `biographer` command: each command run as a fresh process, as a person types it.

    python bench/startup.py [--runs 7]

Builds a small store from examples/ in a temporary folder (embedded, so hybrid search has
vectors), then times `--help`, `grep`, `read`, `stats`, keyword search and hybrid search (the
last one includes loading the embedding model), and prints the median and the spread of each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "--help": ["--help"],
    "grep": ["grep", "knee"],
    "read": ["read", "doc1:0-200"],
    "stats": ["stats"],
    "search (keyword)": ["search", "knee", "--mode", "keyword"],
    "search (hybrid, model load included)": ["search", "what did Maya say about my knee?"],
}
TARGETS = {"--help": 0.3, "grep": 0.3, "read": 0.3, "stats": 0.3, "search (keyword)": 0.5,
           "search (hybrid, model load included)": 1.0}


def biographer(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "bot.cli", *argv], env=env, cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "BIOGRAPHER_DATA_DIR": folder, "HF_HUB_OFFLINE": "1"}
        biographer(["ingest", str(ROOT / "examples")], env)
        print(f"{'command':<40} {'median':>8} {'min':>7} {'max':>7}  target")
        for name, argv in COMMANDS.items():
            times = [biographer(argv, env) for _ in range(args.runs)]
            median = statistics.median(times)
            verdict = "met" if median <= TARGETS[name] else "MISSED"
            print(f"{name:<40} {median:>7.2f}s {min(times):>6.2f}s {max(times):>6.2f}s  "
                  f"≤ {TARGETS[name]} s: {verdict}")


if __name__ == "__main__":
    main()
