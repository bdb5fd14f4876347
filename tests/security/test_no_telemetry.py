"""No library phones home: onnxruntime, imported as the product imports it (core first), creates
no device id and starts no uploader; the same import without the product's opt-out does, which
shows this test would see it (skipped where the installed onnxruntime has no telemetry at all)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EMBED = ("import core; from core.providers.local_embedder import OnnxEmbedder; "
         "OnnxEmbedder().embed(['a knee that hurts'])")
PLAIN = "import onnxruntime"


def _traces(code: str, home: Path) -> list[Path]:
    """What running `code` leaves of onnxruntime's telemetry under a fresh home and cache."""
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True, timeout=300)
    return [p for p in home.rglob("*") if "Microsoft" in p.parts or p.name == "deviceid"]


def test_the_embedding_model_loads_without_onnxruntimes_telemetry(tmp_path: Path) -> None:
    plain = _traces(PLAIN, tmp_path / "plain")
    if not plain:
        pytest.skip("this onnxruntime keeps no telemetry device id: nothing to opt out of")
    assert _traces(EMBED, tmp_path / "product") == []
