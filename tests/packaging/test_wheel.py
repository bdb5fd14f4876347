"""What people install is what is tested: the wheel the Dockerfile builds, in a fresh environment.

The suite otherwise runs against the editable checkout, where every file of the source tree is
on disk; a file missing from the package data breaks only those who `pip install .` (and so
every Docker user). These tests build the wheel from exactly what the Dockerfile copies, install
it into a new virtual environment outside the checkout and import a real export of every format.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "importers" / "data"
PACKAGES = ("bot", "core", "storage")

# One real export of each format (provenance in tests/importers/data/README.md).
REAL_EXPORTS = [
    "whatsapp/en_android_group.txt",
    "whatsapp/ja_ios.txt",
    "telegram/chat-miner-single-export.json",
    "chatgpt/conversations.json",
    "meta/chat-miner-instagram.json",
    "email/11507.emlx",
    "slack/slack-export-viewer-testarchive.zip",
    "calendar/example.ics",
    "meeting/teams_timeframe.vtt",
    "signal/Mara Lind",
]


def dockerfile_sources() -> list[str]:
    """The paths the Dockerfile copies into the image before `pip install .`."""
    sources = []
    for line in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines():
        match = re.match(r"COPY\s+(.+?)\s+\S+$", line.strip())
        if match:
            sources.extend(match.group(1).split())
    return sources


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built, without network, from the Dockerfile's copy of the tree."""
    context = tmp_path_factory.mktemp("docker-context")
    for source in dockerfile_sources():
        origin = ROOT / source
        if origin.is_dir():
            shutil.copytree(origin, context / source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(origin, context / source)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                    "-q", "-w", str(out), str(context)], check=True, capture_output=True, text=True)
    (built,) = out.glob("biographer-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment holding the wheel; its dependencies are borrowed from this
    environment's site-packages (a .pth adds the folder itself, not the editable install's hooks,
    which live in .pth files there that a path line does not run)."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = Path(subprocess.run([str(venv / "bin" / "python"), "-c",
                                   "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  check=True, capture_output=True, text=True).stdout.strip())
    (purelib / "borrowed-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                    "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True, text=True)
    return venv


def tracked_data_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", *PACKAGES], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.split()
    return sorted(p for p in listed if not p.endswith(".py"))


def test_every_file_the_code_reads_is_in_the_wheel(wheel: Path):
    """Any non-Python file under bot/, core/ or storage/ is read at run time: all must ship."""
    if not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout to list tracked files")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    missing = [p for p in tracked_data_files() if p not in shipped]
    assert tracked_data_files(), "expected some data files (prompts, templates, notice tables)"
    assert missing == []


def run_biographer(biographer: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The console script, with a data folder under `cwd` and none of the developer's settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BIOGRAPHER_") and k != "PYTHONPATH"}
    env.update(BIOGRAPHER_DATA_DIR=str(cwd / "store"), HF_HUB_OFFLINE="1", TZ="UTC")
    return subprocess.run([str(biographer), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_installed_package_runs_from_its_own_folder(installed: Path, tmp_path: Path):
    probe = subprocess.run([str(installed / "bin" / "python"), "-c",
                            "import core, bot, storage; print(core.__file__, bot.__file__, storage.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout.split()
    assert all(str(ROOT) not in path and str(installed) in path for path in probe), probe


def stats_after_ingest(biographer: Path, export: Path, *, cwd: Path) -> dict:
    ingest = run_biographer(biographer, "ingest", "--no-index", str(export), cwd=cwd)
    assert ingest.returncode == 0, ingest.stdout + ingest.stderr
    stats = run_biographer(biographer, "stats", "--json", cwd=cwd)
    assert stats.returncode == 0, stats.stderr
    counts = json.loads(stats.stdout)
    return {key: counts[key] for key in ("documents", "chunks", "messages", "by_kind")}


@pytest.mark.parametrize("name", REAL_EXPORTS)
def test_the_installed_package_imports_what_the_checkout_imports(installed: Path, tmp_path: Path, name: str):
    """Each format through the wheel gives the same sources, passages and messages as through the
    checkout, whose counts the importer tests check against the files themselves."""
    export = DATA / name
    (tmp_path / "wheel").mkdir()
    (tmp_path / "checkout").mkdir()
    through_wheel = stats_after_ingest(installed / "bin" / "biographer", export, cwd=tmp_path / "wheel")
    through_checkout = stats_after_ingest(Path(sys.executable).parent / "biographer", export,
                                          cwd=tmp_path / "checkout")
    assert through_wheel["documents"] >= 1
    assert through_wheel == through_checkout


def test_the_installed_package_searches_with_its_shipped_model(installed: Path, tmp_path: Path):
    biographer = installed / "bin" / "biographer"
    chat = DATA / "whatsapp" / "en_android_group.txt"
    ingest = run_biographer(biographer, "ingest", str(chat), cwd=tmp_path)
    assert ingest.returncode == 0, ingest.stdout + ingest.stderr
    found = run_biographer(biographer, "search", "group chat", "--json", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert hits and all(hit["kind"] == "whatsapp" for hit in hits)


def test_the_installed_package_runs_its_model_fused(installed: Path, tmp_path: Path):
    """The wheel declares the `onnx` package and, installed, writes and uses the fused copy of the
    shipped model's graph (core/providers/onnx_rewrite.py) rather than falling back to the export."""
    script = ("import sys; from importlib.metadata import requires; from pathlib import Path; "
              "from packaging.requirements import Requirement; "
              "from core.providers.local_embedder import OnnxEmbedder; "
              "print(' '.join(sorted(Requirement(r).name for r in requires('biographer')))); "
              "print(OnnxEmbedder(cache=Path(sys.argv[1])).model_file)")
    probe = subprocess.run([str(installed / "bin" / "python"), "-c", script, str(tmp_path / "cache")],
                           cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert probe.returncode == 0, probe.stderr
    declared, model_file = probe.stdout.splitlines()
    assert "onnx" in declared.split()
    assert Path(model_file).parent == tmp_path / "cache" and "fused" in Path(model_file).name
