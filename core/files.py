"""Files only the owner can read: the store holds their life, so nothing it writes is world-readable."""

from __future__ import annotations

import os
from pathlib import Path

from storage.permissions import private_dir, private_file


def write_private(path: Path, text: str) -> Path:
    """Write `text` to `path` (0600, its folder 0700), durably, replacing it atomically."""
    private_dir(path.parent)
    partial = private_file(path.with_name(path.name + ".part"))
    with partial.open("w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    partial.replace(path)
    return path
