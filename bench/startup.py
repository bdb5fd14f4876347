"""Start-up cost of the `biographer` command: each command run as a fresh process, as a person types it.

    python bench/startup.py [--runs 7] [--against ../main] [--only grep hybrid]

Builds a small store from examples/ in a temporary folder (embedded, so hybrid search has
vectors), then times the settings alone (Python and pydantic-settings: the floor under every
command that opens the store), `--help`, `grep`, `read`, `stats`, keyword search and hybrid search (the
last one includes loading the embedding model), and prints the median and the spread of each with
the load average (1 minute) it ran at: on a busy machine every figure grows (the processor time,
user and system, grows less). With --against, the same commands of another checkout (its own
.venv) run alternately with these, in one run.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# what every command but --help pays before its own work: Python, pydantic-settings and the
# settings read (the floor under the targets; python -m bot.cli is not involved)
SETTINGS_ALONE = "settings alone (python -c)"
COMMANDS = {
    SETTINGS_ALONE: ["-c", "from core.config import Settings, env_files; Settings(_env_file=env_files())"],
    "--help": ["--help"],
    "grep": ["grep", "knee"],
    "read": ["read", "doc1:0-200"],
    "stats": ["stats"],
    "search (keyword)": ["search", "knee", "--mode", "keyword"],
    "search (hybrid, model load included)": ["search", "what did Maya say about my knee?"],
}
TARGETS = {"--help": 0.3, "grep": 0.3, "read": 0.3, "stats": 0.3, "search (keyword)": 0.4,
           "search (hybrid, model load included)": 0.7}


def biographer(argv: list[str], env: dict[str, str], checkout: Path = ROOT) -> tuple[float, float]:
    """Wall time and processor time (user and system, all threads) of one run."""
    python = checkout / ".venv" / "bin" / "python" if checkout != ROOT else Path(sys.executable)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = argv if argv[0] == "-c" else ["-m", "bot.cli", *argv]
    subprocess.run([str(python), *command], env=env, cwd=checkout, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--against", type=Path, default=None, help="another checkout to time alternately")
    parser.add_argument("--only", nargs="+", default=None, metavar="WORD",
                        help="only the commands whose name holds one of these words (e.g. grep hybrid)")
    args = parser.parse_args()
    commands = {name: argv for name, argv in COMMANDS.items()
                if args.only is None or any(word in name for word in args.only)}
    checkouts = [ROOT] + ([args.against.resolve()] if args.against else [])
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "BIOGRAPHER_DATA_DIR": folder, "HF_HUB_OFFLINE": "1"}
        # bytecode cached as an installed package has it: without it every run compiles every
        # module again (a second of a 1.7 s `grep` at load 5)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        biographer(["ingest", str(ROOT / "examples")], env)
        for checkout in checkouts:  # the first run of each command writes its bytecode
            for argv in commands.values():
                biographer(argv, env, checkout)
        # processor time beside wall time: on shared cores a busy neighbour stretches the wall
        # time of a run far more than the processor time it needs
        print(f"{'command':<40} {'checkout':<12} {'median':>8} {'min':>7} {'max':>7} {'cpu':>7} {'load':>5}  target")
        for name, argv in commands.items():
            times: dict[Path, list[tuple[float, float]]] = {c: [] for c in checkouts}
            loads = []
            for _ in range(args.runs):
                loads.append(os.getloadavg()[0])
                for checkout in checkouts:
                    times[checkout].append(biographer(argv, env, checkout))
            for checkout, taken in times.items():
                walls = [wall for wall, _ in taken]
                median = statistics.median(walls)
                verdict = ("" if name not in TARGETS else
                           f"≤ {TARGETS[name]} s: " + ("met" if median <= TARGETS[name] else "MISSED"))
                print(f"{name:<40} {checkout.name:<12} {median:>7.2f}s {min(walls):>6.2f}s {max(walls):>6.2f}s "
                      f"{statistics.median(cpu for _, cpu in taken):>6.2f}s {statistics.median(loads):>5.1f}  {verdict}",
                      flush=True)


if __name__ == "__main__":
    main()
