"""Files only the owner can read: the store holds their life, so nothing it writes is world-readable."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from storage.permissions import missing_dirs_private, private_file


def write_private(path: Path, content: str | bytes) -> Path:
    """Write `content` (text as UTF-8, or bytes) to `path` (0600; folders it creates 0700, an
    existing folder untouched), durably, replacing it atomically."""
    missing_dirs_private(path.parent)
    partial = private_file(path.with_name(path.name + ".part"))
    with partial.open("wb") as f:
        f.write(content.encode("utf-8") if isinstance(content, str) else content)
        f.flush()
        os.fsync(f.fileno())
    partial.replace(path)
    return path


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read in blocks of 1 MiB (a 2 GB export never sits in memory)."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
