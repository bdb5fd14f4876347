"""Saving sources: parse, chunk and write each document in one transaction.

Indexing (embedding) is a separate step (core/memory/indexer.py): a saved document is keyword-searchable
at once, and its vectors are filled in behind.
"""

from __future__ import annotations

import asyncio
import bisect
import hashlib
import itertools
import json
import logging
import shutil
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from core.memory.chunking import MessageChunker, embedding_text, stream_prose_spans, stream_section_spans
from core.errors import BiographerError, ImportFailed
from core.importers import ImportContext, Importer, pick_importer
from core.files import file_sha256
from core.importers.media import is_media
from core.ports import Progress, no_progress
from core.times import utc_iso
from core.types import Chunk, Conversation, IngestReport, Message, SourceDocument
from storage import chunks as chunk_store
from storage import documents as document_store
from storage import messages as message_store
from storage import source_admin
from storage.db import Store
from storage.encryption import seal_file
from storage.keyword.languages import detect_language
from storage.permissions import private_dir, private_file

log = logging.getLogger(__name__)

MESSAGE_BATCH = 2000
PROSE_BATCH = 1000  # chunks
T = TypeVar("T")


class _NothingNew(Exception):
    """No message of a stream is new (all stored already, or none at all): roll the document back."""


class _ImporterCrashed(ImportFailed):
    """An importer's own code raised something it did not mean to: the rest of that file cannot
    be trusted, so the file stops there (its finished documents stay) and the batch goes on."""


async def from_importer(source: str, fn: Callable[..., T], *args: object) -> T:
    """Run a step of an importer (a parse, the next document, a batch of messages) off the loop.

    A bug or a layout no importer knows must not stop a whole batch: whatever the importer
    raises becomes one line naming the file and the cause, with the traceback in the log."""
    try:
        return await asyncio.to_thread(fn, *args)
    except BiographerError:
        raise
    except Exception as error:  # noqa: BLE001 - the batch boundary: reported, logged, not swallowed
        log.warning("importing %s failed", source, exc_info=error)
        raise _ImporterCrashed(
            source, f"could not be read ({type(error).__name__}: {error})",
            hint="check it is a complete, unmodified export; `biographer -v ingest` logs the details",
        ) from error


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def chunk_record(document_id: int, identity: str, chunk: Chunk) -> chunk_store.ChunkRecord:
    return chunk_store.ChunkRecord(
        document_id=document_id,
        ordinal=chunk.ordinal,
        char_start=chunk.char_start,
        char_end=chunk.char_end,
        text=chunk.text,
        time_start=utc_iso(chunk.time_start),
        time_end=utc_iso(chunk.time_end),
        speakers=chunk.speakers,
        identity=text_hash(f"{identity}|{chunk.char_start}|{chunk.text}"),
        # what the model reads: the same messages at other times share one vector
        text_hash=text_hash(embedding_text(chunk.text)),
        language=detect_language(chunk.text),
    )


def message_record(document_id: int, conversation: Conversation, dedup_key: str, message: Message,
                   moment: str | None, char_start: int, char_end: int, *,
                   owner_by_format: bool = False) -> message_store.MessageRecord:
    offset = message.time.utcoffset() if message.time is not None else None
    return message_store.MessageRecord(
        document_id=document_id, platform=conversation.platform, conversation_key=conversation.key,
        platform_id=message.platform_id, sender=message.sender, sender_id=message.sender_id,
        is_owner=message.is_owner, time=moment,
        utc_offset_minutes=int(offset.total_seconds() // 60) if offset is not None else None,
        kind=message.kind, reply_to=message.reply_to, forwarded_from=message.forwarded_from,
        text=message.text,
        attachments=json.dumps(list(message.attachments), ensure_ascii=False) if message.attachments else "[]",
        dedup_key=dedup_key, char_start=char_start, char_end=char_end,
        owner_by_format=owner_by_format,
    )


def expand_paths(paths: Iterable[Path], *, skip: Path | None = None) -> Iterator[Path]:
    """Files as given, folders walked in name order; hidden files and the `skip` folder (the
    store's own data directory, when someone ingests the folder that holds it) left out. A folder
    given that is itself inside `skip` (the page's uploads wait in the data folder) is walked whole."""
    skip = skip.resolve() if skip else None
    for path in paths:
        if not path.is_dir():
            yield path
            continue
        skipping = skip is not None and not path.resolve().is_relative_to(skip)
        for child in sorted(path.rglob("*")):
            if not child.is_file() or any(p.startswith(".") for p in child.relative_to(path).parts):
                continue
            if skipping and child.resolve().is_relative_to(skip):
                continue
            yield child


class SectionDates:
    """Where each dated part of a prose document begins, so a chunk takes the days of the parts
    it covers (a journal's `## 2023-06-02` sections), and undated text the document's date."""

    def __init__(self, default: datetime | None) -> None:
        self.default = default
        self._starts: list[int] = []  # offsets where a part with another date begins
        self._days: list[datetime | None] = []

    def read(self, sections: Iterable[tuple[datetime | None, str]]) -> Iterator[tuple[datetime | None, str]]:
        """The parts, in order, noting where each date begins as it goes."""
        offset = 0
        for day, text in sections:
            if not self._days or self._days[-1] != day:
                self._starts.append(offset)
                self._days.append(day)
            offset += len(text)
            yield day, text

    def between(self, start: int, end: int) -> tuple[datetime | None, datetime | None]:
        """Earliest and latest day of the text from `start` to `end` (journals run either way)."""
        first = max(bisect.bisect_right(self._starts, start) - 1, 0)
        last = bisect.bisect_left(self._starts, end)
        days = [d for d in self._days[first:last] if d is not None]
        return (min(days), max(days)) if days else (self.default, self.default)

    def overall(self) -> tuple[datetime | None, datetime | None]:
        days = [d for d in self._days if d is not None]
        return (min(days), max(days)) if days else (self.default, self.default)


class DedupKeys:
    """Stable identities of messages, so an overlapping re-export adds only what is new.

    Without a platform id, identical (sender, time, text) messages are told apart by their
    occurrence index within the export. Exports' clocks step back now and then (iOS writes a
    member's join between two photos sent in one second), so the counts are kept for the most
    recent RECENT distinct messages, not only for the current second; older ones are let go,
    keeping memory flat.
    """

    RECENT = 4096

    def __init__(self, platform: str, conversation_key: str) -> None:
        self.prefix = f"{platform}|{conversation_key}"
        self._seen: dict[str, int] = {}  # in order of last use: the first is the stalest

    def key(self, message: Message, moment: str | None) -> str:
        """`moment`: the message's time as utc_iso gives it (None: undated)."""
        if message.platform_id:
            return f"{self.prefix}|id|{message.platform_id}"
        base = f"{message.sender}|{moment or 'undated'}|{text_hash(message.text)[:16]}"
        occurrence = self._seen.pop(base, 0)
        self._seen[base] = occurrence + 1
        if len(self._seen) > self.RECENT:
            del self._seen[next(iter(self._seen))]
        return f"{self.prefix}|{base}|{occurrence}"


class Ingestor:
    def __init__(self, conn: Store, *, importers: list[Importer],
                 context: ImportContext, raw_dir: Path) -> None:
        self.conn = conn
        self.importers = importers
        self.context = context
        self.raw_dir = raw_dir

    async def ingest_paths(self, paths: Sequence[Path], *, progress: Progress = no_progress,
                           keep_raw: bool = True) -> IngestReport:
        """`keep_raw=False`: keep no copy of the files (a database read in place again and again,
        which stays where it is)."""
        report = IngestReport()
        # a walk of the folders and a look into every file: off the loop, as the parsing is
        recognised = await asyncio.to_thread(self._recognise, paths)
        # an unzipped export reads the files beside it (voice notes, photos, its pages' style
        # sheet): a folder walk leaves them to the export instead of importing them again
        export_folders = {path.parent: importer.companion_suffixes
                          for path, importer, _ in recognised if importer and importer.reads_media_beside}

        def read_with_an_export(path: Path) -> bool:
            return any(path.is_relative_to(folder) and (is_media(path) or path.suffix.lower() in extra)
                       for folder, extra in export_folders.items())

        planned: list[tuple[Path, Importer]] = []
        for path, importer, error in recognised:
            if importer is None:
                if not read_with_an_export(path):
                    report.errors.append(error)
            elif is_media(path) and read_with_an_export(path):
                report.media_with_exports += 1  # read with its chat, not a second time
            else:
                planned.append((path, importer))
        for done, (path, importer) in enumerate(planned):
            progress("saving", done, len(planned))
            try:
                report.merge(await self.ingest_file(path, importer=importer, progress=progress,
                                                    keep_raw=keep_raw))
            except ImportFailed as error:
                report.errors.append(str(error))
            except OSError as error:
                report.errors.append(f"{path.name}: cannot be read ({error.strerror or error})")
        progress("saving", len(planned), len(planned))
        return report

    def _recognise(self, paths: Sequence[Path]) -> list[tuple[Path, Importer | None, str]]:
        """Each file under `paths` with its importer, or None and why none reads it."""
        recognised: list[tuple[Path, Importer | None, str]] = []
        for path in expand_paths(paths, skip=self.raw_dir.parent):
            try:
                recognised.append((path, self._importer_for(path), ""))
            except ImportFailed as error:
                recognised.append((path, None, str(error)))
            except OSError as error:
                recognised.append((path, None, f"{path.name}: cannot be read ({error.strerror or error})"))
        return recognised

    def _importer_for(self, path: Path) -> Importer:
        if not path.exists():
            raise ImportFailed(str(path), "does not exist", hint="check the path")
        try:
            return pick_importer(path, self.importers)
        except (BiographerError, OSError):
            raise
        except Exception as error:  # noqa: BLE001 - a sniffer tripping over a damaged file
            log.warning("recognising %s failed", path.name, exc_info=error)
            raise ImportFailed(path.name, f"could not be recognised ({type(error).__name__}: {error})",
                               hint="check it is a complete, unmodified file") from error

    async def ingest_file(self, path: Path, *, importer: Importer | None = None,
                          progress: Progress = no_progress, keep_raw: bool = True) -> IngestReport:
        """Save every document of one file. A document that fails is rolled back on its own;
        when the importer itself breaks, the file stops there and says so."""
        importer = importer or await asyncio.to_thread(self._importer_for, path)
        raw_path = await asyncio.to_thread(self._raw_copy_path, path) if keep_raw else None
        documents = await from_importer(path.name, lambda: iter(importer.parse(path, self.context)))
        report = IngestReport()
        try:
            while True:
                document = await from_importer(path.name, next, documents, None)
                if document is None:
                    break
                try:
                    report.merge(await self.save_document(document, source_path=path,
                                                          raw_path=str(raw_path) if raw_path else None,
                                                          progress=progress))
                except _ImporterCrashed:
                    raise
                except ImportFailed as error:
                    report.errors.append(str(error))
        except _ImporterCrashed as error:
            report.errors.append(str(error))
        finally:
            close = getattr(documents, "close", None)  # release the file, zip or database now
            if close is not None:
                await from_importer(path.name, close)
        # only now, and only when a source refers to it: a file that failed to import, or that
        # brought nothing new, leaves nothing behind (a source saved earlier whose copy a kill
        # prevented gets it now)
        if raw_path is None:
            return report
        if report.documents_added or (report.documents_skipped
                                      and await source_admin.raw_copy_referenced(self.conn, raw_path.name)):
            await asyncio.to_thread(self._keep_raw_copy, path, raw_path)
        return report

    def _raw_copy_path(self, path: Path) -> Path:
        """Where the kept copy of a file goes: named by content, so identical files share one."""
        return self.raw_dir / f"{file_sha256(path)}{path.suffix.lower()}"

    def _keep_raw_copy(self, path: Path, target: Path) -> None:
        """A copy of the imported file, sealed when the store is encrypted."""
        private_dir(self.raw_dir)
        if target.exists():
            return
        if self.conn.key is not None:
            seal_file(path, target, self.conn.key.files)
            return
        partial = target.with_suffix(target.suffix + ".part")
        shutil.copyfile(path, private_file(partial))
        partial.replace(target)

    async def save_document(self, document: SourceDocument, *, source_path: Path | None = None,
                            raw_path: str | None = None, progress: Progress = no_progress,
                            then: Callable[[int], Awaitable[None]] | None = None) -> IngestReport:
        """Store one document with its chunks (and messages) in one transaction; `then(document
        id)` runs inside it, so what the caller records about the document commits with it or not
        at all (it may raise to roll the whole document back)."""
        report = IngestReport()
        if await document_store.find_by_identity(self.conn, document.identity):
            report.documents_skipped = 1
            return report
        try:
            async with self.conn.transaction():
                conversation = document.conversation
                document_id = await document_store.insert_document(
                    self.conn,
                    kind=document.kind,
                    name=document.name,
                    identity=document.identity,
                    source_path=str(source_path) if source_path else None,
                    content_hash=document.identity.removeprefix("file:"),
                    byte_size=source_path.stat().st_size if source_path else None,
                    raw_path=raw_path,
                    platform=conversation.platform if conversation else None,
                    conversation_key=conversation.key if conversation else None,
                    is_group=conversation.is_group if conversation else False,
                    participants=list(conversation.participants) if conversation else [],
                    note=document.note,
                )
                source = source_path.name if source_path else document.name
                if document.messages is not None:
                    await self._save_messages(document, document_id, report, progress, source)
                else:
                    await self._save_prose(document, document_id, report, progress, source)
                if then is not None:
                    await then(document_id)
        except _NothingNew:
            if report.messages_skipped:
                report.documents_skipped = 1  # every message is in the store already
            else:  # nothing to store at all, which is no sign of an earlier import
                report.skipped["conversations with no messages"] += 1
            return report
        except BiographerError:
            raise
        except (ValueError, TypeError, KeyError, UnicodeError) as error:
            # a parser tripping over malformed content: name the source, keep the batch going
            log.debug("import of %s failed", document.name, exc_info=True)
            raise ImportFailed(document.name, f"could not be parsed ({type(error).__name__}: {error})",
                               hint="check the file is a complete, unmodified export") from error
        report.documents_added = 1
        return report

    async def _save_prose(self, document: SourceDocument, document_id: int, report: IngestReport,
                          progress: Progress, source: str) -> None:
        """Chunk prose as it streams in, writing a batch at a time: memory stays flat."""
        dates = SectionDates(document.time_start)
        if document.text_sections is not None:
            spans = stream_section_spans(dates.read(document.text_sections))  # a chunk per dated entry
        else:
            blocks = iter([document.text or ""]) if document.text_blocks is None else document.text_blocks
            spans = stream_prose_spans(blocks)
        length = n_chunks = 0
        while True:
            batch = await from_importer(source, lambda: list(itertools.islice(spans, PROSE_BATCH)))
            if not batch:
                break
            records = []
            for i, (start, end, text) in enumerate(batch):
                first, last = dates.between(start, end)
                records.append(chunk_record(
                    document_id, document.identity,
                    Chunk(ordinal=n_chunks + i, char_start=start, char_end=end, text=text,
                          time_start=first, time_end=last)))
            report.chunks_added += await chunk_store.insert_chunks(self.conn, records)
            n_chunks += len(records)
            length = batch[-1][1]
            progress("chunks", n_chunks, None)
        if n_chunks == 0:
            raise ImportFailed(document.name, "has no text", hint="nothing to import")
        first, last = dates.overall()
        await document_store.finish_document(
            self.conn, document_id, chunk_count=n_chunks, text_length=length,
            time_start=utc_iso(first), time_end=utc_iso(last),
        )

    async def _save_messages(self, document: SourceDocument, document_id: int, report: IngestReport,
                             progress: Progress, source: str) -> None:
        conversation = document.conversation
        if conversation is None:
            raise ImportFailed(document.name, "is a message stream without a conversation")
        keys = DedupKeys(conversation.platform, conversation.key)
        chunker = MessageChunker()
        stream = iter(document.messages or ())
        first: datetime | None = None
        last: datetime | None = None
        senders: dict[str, None] = {}
        n_chunks = 0
        while True:
            batch = await from_importer(source, lambda: list(itertools.islice(stream, MESSAGE_BATCH)))
            if not batch:
                break
            moments = [utc_iso(m.time) for m in batch]
            keyed = [(keys.key(m, t), m, t) for m, t in zip(batch, moments)]
            known = await message_store.existing_keys(self.conn, [k for k, _, _ in keyed])
            rows: list[message_store.MessageRecord] = []
            records: list[chunk_store.ChunkRecord] = []
            for key, message, moment in keyed:
                if key in known:
                    report.messages_skipped += 1
                    continue
                known.add(key)
                done, rendered = chunker.add(message)
                records.extend(chunk_record(document_id, document.identity, c) for c in done)
                # an owner flag the aliases did not give came from the source itself, and stays
                # when the aliases change (core/memory/owners.py)
                by_format = message.is_owner and not self.context.owns(message.sender,
                                                                       message.sender_id)
                rows.append(message_record(document_id, conversation, key, message, moment,
                                           rendered.char_start, rendered.char_end,
                                           owner_by_format=by_format))
                if message.time is not None:
                    first = message.time if first is None or message.time < first else first
                    last = message.time if last is None or message.time > last else last
                if message.kind != "system":
                    senders[message.sender] = None
            await message_store.insert_messages(self.conn, rows)
            report.messages_added += len(rows)
            report.chunks_added += await chunk_store.insert_chunks(self.conn, records)
            n_chunks += len(records)
            progress("messages", report.messages_added + report.messages_skipped, None)
        tail = [chunk_record(document_id, document.identity, c) for c in chunker.finish()]
        report.chunks_added += await chunk_store.insert_chunks(self.conn, tail)
        n_chunks += len(tail)
        report.skipped.update(document.skipped)  # complete now that the stream is read
        report.remarks.update(document.remarks)
        if report.messages_added == 0:
            raise _NothingNew
        await document_store.finish_document(
            self.conn, document_id, chunk_count=n_chunks, text_length=max(chunker.offset - 1, 0),
            time_start=utc_iso(first), time_end=utc_iso(last), participants=list(senders),
        )
