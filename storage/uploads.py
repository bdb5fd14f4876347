"""Where files dropped on the page wait for their import: `DATA_DIR/uploads`, a folder only the
owner can enter, one private folder per import inside it; and where an import unpacks an archive
or snapshots a database it reads (`scratch`), for the same reasons.

It is inside the data folder, not the system's temporary folder, so that what the owner drops is
covered by the data folder's permissions, by encryption (the page seals uploads as they arrive)
and by forget: a server killed half-way through an import leaves its files here, where the next
start and every forget remove them, never in /tmp for anyone to find.

Each import's folder has a lock file beside it (`NAME.lock`), held with `flock` for as long as the
import lives; the kernel lets go of it when the process dies, however it dies. A folder whose
lock can be taken belongs to nobody and is a leftover; one whose lock is held is a running
import, of this process or another (`biographer forget` while `biographer serve` imports).
"""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from storage.permissions import PRIVATE_FILE, private_dir

log = logging.getLogger(__name__)

FOLDER = "uploads"
_LOCK = ".lock"


class StagedFolder:
    """One import's private folder, held until `remove()`."""

    def __init__(self, path: Path, lock_fd: int) -> None:
        self.path = path
        self._lock_fd: int | None = lock_fd

    def remove(self) -> None:
        """Delete the folder and everything in it, then let go of its lock (in that order: a sweep
        that takes the lock finds nothing left to remove)."""
        shutil.rmtree(self.path, ignore_errors=True)
        if self._lock_fd is not None:
            self.path.with_name(self.path.name + _LOCK).unlink(missing_ok=True)
            os.close(self._lock_fd)
            self._lock_fd = None


class UploadStaging:
    def __init__(self, root: Path) -> None:
        self.root = root

    def new_folder(self, prefix: str = "import-") -> StagedFolder:
        """A new private folder (0700) for one import, locked before it exists, so a sweep in
        another process never takes it for a leftover."""
        private_dir(self.root)
        while True:
            name = prefix + secrets.token_hex(8)
            lock = self.root / (name + _LOCK)
            try:
                fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
            except FileExistsError:
                continue
            fcntl.flock(fd, fcntl.LOCK_EX)
            if _still_there(lock, fd):
                break
            os.close(fd)  # a sweep took it for a leftover lock between open and flock
        try:
            folder = self.root / name
            folder.mkdir(mode=0o700)
        except BaseException:
            os.close(fd)
            lock.unlink(missing_ok=True)
            raise
        return StagedFolder(folder, fd)

    @contextmanager
    def scratch(self, prefix: str) -> Iterator[Path]:
        """A private folder for the length of a block (a zip unpacked while it is imported, a
        database's snapshot), removed after it, and by the next sweep if the process is killed."""
        folder = self.new_folder(prefix)
        try:
            yield folder.path
        finally:
            folder.remove()

    def sweep(self) -> int:
        """Remove what imports no longer running left behind (a server killed mid-import); returns
        how many folders went. Folders of running imports, here or in another process, stay."""
        if not self.root.is_dir():
            return 0
        removed = 0
        for entry in sorted(self.root.iterdir()):
            if entry.name.endswith(_LOCK):
                if not entry.with_name(entry.name[:-len(_LOCK)]).exists():
                    self._remove_if_free(entry, None)  # a lock whose folder is gone
                continue
            removed += self._remove_if_free(entry.with_name(entry.name + _LOCK), entry)
        if removed:
            log.info("removed the upload folders left by imports that did not finish (%d)", removed)
        return removed

    @staticmethod
    def _remove_if_free(lock: Path, folder: Path | None) -> bool:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
        except OSError:
            return False
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # a running import's
            if folder is not None:
                if folder.is_dir() and not folder.is_symlink():
                    shutil.rmtree(folder, ignore_errors=True)
                else:
                    folder.unlink(missing_ok=True)
            lock.unlink(missing_ok=True)
            return folder is not None
        finally:
            os.close(fd)


def _still_there(path: Path, fd: int) -> bool:
    """Whether `path` is still the file open as `fd` (not unlinked, or replaced, meanwhile)."""
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False
