"""Imports from the page: files dropped on it are streamed to a private folder of their own inside
the data folder (the memory's upload staging, storage/uploads.py), then imported by the service in
the background, one import at a time, while the page polls progress. The folder is removed when
the import ends (the store keeps its own copies of what it needs); one a killed server left is
removed at the next start or forget."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from bot.render import ingest_summary
from core.errors import BiographerError, UserFacingError
from core.privacy.encryption import Sealer, unseal_file
from core.serving.api_errors import Conflict
from core.service.serving import ServingFacet
from core.words import counted

if TYPE_CHECKING:
    from core.memory.facade import StagedFolder

log = logging.getLogger(__name__)

MAX_FILES = 1000  # per import
NAME_MAX_BYTES = 255  # the longest file name most file systems take
_STAGE_WORDS = {"saving": "files saved", "messages": "messages read in this file",
                "chunks": "passages cut in this file", "indexing": "passages indexed"}


@dataclass
class ImportJob:
    id: str
    staged: StagedFolder
    names: list[str] = field(default_factory=list)
    state: str = "receiving"  # receiving | queued | importing | done | failed
    stage: str = ""
    done: int = 0
    total: int | None = None
    summary: str = ""
    errors: list[str] = field(default_factory=list)
    arriving: int = 0  # files still being received: the import cannot start before they are whole

    @property
    def folder(self) -> Path:
        return self.staged.path

    def progress(self, stage: str, done: int, total: int | None) -> None:
        self.stage, self.done, self.total = stage, done, total

    def to_json(self) -> dict:
        return {"id": self.id, "state": self.state, "files": self.names, "stage": self.stage,
                "stage_words": _STAGE_WORDS.get(self.stage, self.stage), "done": self.done, "total": self.total,
                "summary": self.summary, "errors": self.errors, "arriving": self.arriving}


def safe_name(name: str) -> str:
    """A dropped file's own name, without any folder part (never a path out of the import folder),
    within the file system's limit on a name."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip().lstrip(".")
    if not base or any(ord(c) < 32 for c in base):
        raise UserFacingError(f"not a file name: {name[:100]!r}", hint="drop files with ordinary names")
    return fit_name(base)


def fit_name(name: str, limit: int = NAME_MAX_BYTES) -> str:
    """`name` shortened to `limit` bytes of UTF-8 (ext4, APFS and NTFS count bytes or UTF-16 units,
    not characters), its extension kept so the importer still knows the format."""
    if len(name.encode("utf-8")) <= limit:
        return name
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem or len(suffix.encode("utf-8")) > 16:
        stem, suffix = name, ""
    else:
        suffix = "." + suffix
    room = limit - len(suffix.encode("utf-8"))
    return stem.encode("utf-8")[:room].decode("utf-8", "ignore").rstrip() + suffix


def _private(path: str, flags: int) -> int:
    return os.open(path, flags, 0o600)  # what is dropped is the owner's alone, as in its 0700 folder


@contextmanager
def _new_file(folder: Path, name: str) -> Iterator[tuple[Path, BinaryIO]]:
    """A new file called `name` in `folder`. Files dropped together stay side by side (a chat export
    with its media); a second file of one name is kept too, in a folder of its own."""
    path = folder / name
    try:
        out = open(path, "xb", opener=_private)
    except FileExistsError:
        path = Path(tempfile.mkdtemp(prefix="same-name-", dir=folder)) / name
        out = open(path, "xb", opener=_private)
    with out:
        yield path, out


class ImportJobs:
    def __init__(self, service: ServingFacet, *, max_file_bytes: int) -> None:
        self.service = service
        self.staging = service.memory.uploads
        self.key = service.memory.file_key  # None: the store is in the clear, and so are uploads
        self.max_file_bytes = max_file_bytes
        self._jobs: dict[str, ImportJob] = {}
        self._one_at_a_time = asyncio.Lock()
        self._tasks: set[asyncio.Task] = set()

    def new(self) -> ImportJob:
        job = ImportJob(id=secrets.token_urlsafe(12), staged=self.staging.new_folder())
        self._jobs[job.id] = job
        return job

    def get(self, job_id: str) -> ImportJob:
        job = self._jobs.get(job_id)
        if job is None:
            raise UserFacingError("no such import (the server may have restarted)", hint="drop the files again")
        return job

    async def receive(self, job_id: str, name: str, chunks: AsyncIterator[bytes]) -> None:
        """One file of an import, written as it arrives; over the size limit it is refused whole."""
        job = self.get(job_id)
        if job.state != "receiving":
            raise UserFacingError("this import has started already", hint="drop the files again for a new one")
        if len(job.names) >= MAX_FILES:
            raise UserFacingError(f"at most {counted(MAX_FILES, 'file')} per import", hint="drop a zip or a folder's files "
                                                                                 "in several goes")
        base = safe_name(name)
        job.arriving += 1
        try:
            with _new_file(job.folder, base) as (path, out):
                try:
                    written = 0
                    # an encrypted store's uploads wait sealed, opened only while they are imported
                    sink = Sealer(out, self.key) if self.key else out
                    async for chunk in chunks:
                        written += len(chunk)
                        if written > self.max_file_bytes:
                            raise UserFacingError(f"{base} is over {self.max_file_bytes // 2**20} MB",
                                                  hint="import it on the server: biographer ingest PATH "
                                                       "(or raise BIOGRAPHER_PAGE_MAX_UPLOAD_MB)")
                        sink.write(chunk)
                    if isinstance(sink, Sealer):
                        sink.close()
                except BaseException:
                    path.unlink(missing_ok=True)
                    raise
            job.names.append(base)
        finally:
            job.arriving -= 1

    def start(self, job_id: str) -> ImportJob:
        job = self.get(job_id)
        if job.state != "receiving":
            return job
        if job.arriving:
            raise Conflict(f"{counted(job.arriving, 'file')} of this import {'is' if job.arriving == 1 else 'are'} still arriving",
                           hint="start it once every upload has finished")
        if not job.names:
            raise UserFacingError("no files were received for this import", hint="drop some files")
        job.state = "queued"
        task = asyncio.create_task(self._run(job), name=f"biographer-page-import-{job.id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    async def _run(self, job: ImportJob) -> None:
        label = job.names[0] if len(job.names) == 1 else counted(len(job.names), "file")
        ended = "failed", f"Could not import {label}: the server stopped"
        try:
            async with self._one_at_a_time:
                job.state = "importing"
                opened = await asyncio.to_thread(self._opened, job) if self.key else None
                try:
                    folder = opened.path if opened else job.folder
                    report = await self.service.memory.ingest([folder], progress=job.progress)
                finally:
                    if opened:
                        await asyncio.to_thread(opened.remove)
                job.errors = list(report.errors)
                ended = "done", ingest_summary(label, report, await self.service.memory.stats())
        except BiographerError as error:  # the store is busy or broken: said, not raised into the void
            log.warning("page import %s failed: %s", job.id, error)
            ended = "failed", f"Could not import {label}: {error}"
        except Exception as error:  # noqa: BLE001 - a bug, a full disk: the page waits on this state, so it is set
            log.exception("page import %s failed", job.id)
            ended = "failed", f"Could not import {label}: {error} (the server's log has the details)"
        finally:
            try:
                await asyncio.to_thread(job.staged.remove)
            finally:  # ended only once its files are gone: whoever sees done or failed finds nothing left
                job.state, job.summary = ended

    def _opened(self, job: ImportJob) -> StagedFolder:
        """The job's sealed files opened into a private staged folder of their own, for the importers."""
        opened = self.staging.new_folder(prefix="opened-")
        try:
            for sealed in job.folder.rglob("*"):
                if sealed.is_file():
                    target = opened.path / sealed.relative_to(job.folder)
                    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                    unseal_file(sealed, target, self.key)
        except BaseException:
            opened.remove()
            raise
        return opened

    async def close(self) -> None:
        """Stop imports in progress (their transactions roll back) and remove what waits."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for job in self._jobs.values():
            job.staged.remove()
