"""What the owner sent that is not in the store yet, kept on disk until it is.

A chat platform confirms an update as soon as the bot has received it, so a forward that cannot
be written at once (another process holds the store's write lock past the deadline, the process is
killed mid-save) would otherwise be lost. Each payload is written here first (one JSON file, 0600,
replaced atomically) and removed only after its save committed; whatever is left is replayed at
start and on every scheduler tick.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

from core.files import write_private
from storage.encryption import MAGIC, WrongStoreKey, seal_bytes, unseal_bytes

log = logging.getLogger(__name__)


class Inbox:
    """`key`: the store's file key when it is encrypted; entries are then sealed (AES-GCM) too."""

    def __init__(self, directory: Path, *, key: bytes | None = None) -> None:
        self.directory = directory
        self.key = key

    def put(self, kind: str, payload: dict) -> Path:
        """Keep `payload` durably; returns the entry to pass to `done` once it is saved."""
        path = self.directory / f"{kind}-{uuid.uuid4().hex}.json"
        content = json.dumps({"kind": kind, "payload": payload}, ensure_ascii=False).encode("utf-8")
        return write_private(path, seal_bytes(content, self.key) if self.key else content)

    def _read(self, path: Path) -> dict:
        data = path.read_bytes()
        if data.startswith(MAGIC):
            if self.key is None:
                raise ValueError("sealed, and the store has no key")
            data = unseal_bytes(data, self.key, name=path.name)
        return json.loads(data.decode("utf-8"))

    def done(self, entry: Path) -> None:
        entry.unlink(missing_ok=True)

    def pending(self) -> Iterator[tuple[Path, str, dict]]:
        """(entry, kind, payload) for everything not saved yet, oldest first; unreadable entries
        are set aside as `.bad` with a log line instead of blocking the rest."""
        if not self.directory.is_dir():
            return
        for path in sorted(self.directory.glob("*.json"), key=lambda p: p.stat().st_mtime):
            try:
                entry = self._read(path)
                yield path, entry["kind"], entry["payload"]
            except (OSError, ValueError, KeyError, WrongStoreKey) as error:
                log.error("inbox entry %s cannot be read (%s); kept aside as .bad", path.name, error)
                path.replace(path.with_suffix(".bad"))
