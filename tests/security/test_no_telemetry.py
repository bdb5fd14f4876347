"""No library phones home: onnxruntime, imported as the product imports it (core first), keeps no
device id, which its telemetry writes in ~/.cache/Microsoft at import before any upload (skipped
where the installed onnxruntime is built without telemetry). A plain `import onnxruntime` is not
run here to show the difference: it would try to send its events (no network in tests); by hand,
on a fresh home, it writes Microsoft/DeveloperTools/.onnxruntime/deviceid."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EMBED = ("import core; from core.providers.local_embedder import OnnxEmbedder; "
         "OnnxEmbedder().embed(['a knee that hurts'])")


def _with_telemetry() -> bool:
    """Whether the installed onnxruntime has the 1DS telemetry and its opt-out (as strings of its
    native library)."""
    import importlib.util

    folder = Path(importlib.util.find_spec("onnxruntime").origin).parent / "capi"
    for library in folder.glob("onnxruntime_pybind11_state*"):
        data = library.read_bytes()
        if b"telemetry_1ds" in data and b"ORT_DISABLE_TELEMETRY" in data:
            return True
    return False


def test_the_embedding_model_loads_without_onnxruntimes_telemetry(tmp_path: Path) -> None:
    if not _with_telemetry():
        pytest.skip("this onnxruntime is built without telemetry: nothing to opt out of")
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env.update(HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / ".cache"))
    subprocess.run([sys.executable, "-c", EMBED], cwd=ROOT, env=env, check=True, capture_output=True, timeout=300)
    assert (tmp_path / ".cache" / "biographer" / "models").is_dir()  # the run did use this home
    assert [p for p in tmp_path.rglob("*") if "Microsoft" in p.parts or p.name == "deviceid"] == []
