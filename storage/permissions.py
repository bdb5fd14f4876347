"""Owner-only files: the data directory and the folders in it 0700, every file 0600.

Modes are set where files are created rather than through the process umask, which is global
state that would also change what a library caller's own code creates. Stores made by an older
version (0755 folders, 0644 files) are tightened when the store opens.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from core.errors import UserFacingError

log = logging.getLogger(__name__)

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
_OTHERS = 0o077  # group and other bits


def private_dir(path: Path) -> Path:
    """`path` as a folder only its owner can enter (created with its parents if missing)."""
    path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    _remove_others(path)
    return path


def missing_dirs_private(path: Path) -> Path:
    """Create `path` and any missing parents owner-only; a folder that exists is left as it is
    (a picture written to ~/Pictures must not make ~/Pictures private)."""
    missing = []
    while not path.exists():
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        folder.mkdir(mode=PRIVATE_DIR, exist_ok=True)
        _remove_others(folder)  # mkdir's mode passes through the umask; ours is never looser
    return missing[0] if missing else path


def private_file(path: Path) -> Path:
    """Create `path` empty and owner-only if it does not exist yet, so that whatever writes it
    next (SQLite, a copy) keeps that mode. SQLite gives its -wal and -shm files the store's mode."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE))
    _remove_others(path)
    return path


def tighten(paths: Iterable[Path]) -> tuple[int, list[Path]]:
    """Take group and other permissions away from each path and, for a folder, from everything in
    it. Returns how many paths changed, and those that could not be changed (another owner, a
    mount that refuses chmod). Symbolic links are not followed."""
    changed, refused = 0, []
    for path in paths:
        if not path.exists() or path.is_symlink():
            continue
        found = [path]
        if path.is_dir():
            for folder, dirs, files in os.walk(path):
                found += [Path(folder) / name for name in dirs + files]
        for item in found:
            if item.is_symlink():
                continue
            outcome = _remove_others(item)
            changed += outcome is True
            if outcome is None:
                refused.append(item)
    return changed, refused


def secure_data_dir(data_dir: Path, *, files: Iterable[Path], folders: Iterable[Path]) -> int:
    """Make the data directory owner-only and tighten the store's `files` and everything in
    `folders` (only what is ours: the data directory may be a folder the owner also uses for
    other things). Logs one note when anything was looser; returns how many paths changed."""
    try:
        data_dir.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    except OSError as error:  # not ours, read-only, or under a path that cannot hold folders
        raise UserFacingError(f"cannot use the data folder {data_dir}: {error.strerror}",
                              hint="point --data-dir or BIOGRAPHER_DATA_DIR at a folder you can write") from None
    if not os.access(data_dir, os.R_OK | os.W_OK | os.X_OK):
        raise UserFacingError(f"cannot use the data folder {data_dir}: permission denied",
                              hint="point --data-dir or BIOGRAPHER_DATA_DIR at a folder you can write, "
                                   "or fix its owner (chown)")
    itself = _remove_others(data_dir)  # the folder alone: only what is ours is walked
    changed, refused = tighten([*files, *folders])
    changed += itself is True
    refused += [data_dir] if itself is None else []
    if changed:
        log.warning("tightened the permissions in %s (files and folders: %d): they were readable by other "
                    "users of this machine; now only you can read them", data_dir, changed)
    if refused:
        log.warning("could not make everything in %s private (files and folders: %d), e.g. %s: check who "
                    "owns them", data_dir, len(refused), refused[0])
    return changed


def _remove_others(path: Path) -> bool | None:
    """True when group and other permissions were taken away, False when there were none, None
    when the file system refused."""
    try:
        current = stat.S_IMODE(path.lstat().st_mode)
    except FileNotFoundError:  # gone meanwhile (another process closed the store: its -shm)
        return False
    if not current & _OTHERS:
        return False
    try:
        path.chmod(current & ~_OTHERS)
    except PermissionError:
        return None
    return True
