"""Reads the memory server needs beyond search: the index generation, what became of a document,
who speaks in a passage, and the exhaustive listing with keyset cursors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import aiosqlite

from storage.chunks import ChunkFilter, StoredChunk
from storage.chunks import _stored as stored_chunk  # reads the first ten columns of _SELECT below
from storage.schema.server import GENERATION

if TYPE_CHECKING:
    from storage.db import Store


async def generation(conn: Store) -> int:
    async with conn.execute("SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?", (GENERATION,)) as cur:
        row = await cur.fetchone()
    return row[0] if row else 0


@dataclass(frozen=True)
class IndexCounts:
    passages: int
    pending: int  # waiting for their embedding


async def index_counts(conn: Store) -> IndexCounts:
    """Passages and those waiting for their embedding, cheaply enough to ask on every search: the
    total from the documents' own counts, the pending ones through the partial index on them
    (COUNT over all chunks is a scan: 30 ms at 100k chunks)."""
    async with conn.execute("SELECT COALESCE(SUM(chunk_count), 0) FROM documents") as cur:
        (passages,) = await cur.fetchone()
    async with conn.execute("SELECT COUNT(*) FROM chunks WHERE embedded = 0") as cur:
        (pending,) = await cur.fetchone()
    return IndexCounts(passages, pending)


async def index_counts_in(conn: Store, scope: ListScope) -> IndexCounts:
    """index_counts over the documents a scope lets through (a client limited to some sections):
    a scan of their chunks, since the documents' own counts cannot be split by section."""
    clause, params = scope.where()
    async with conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(c.embedded = 0), 0) FROM chunks c JOIN documents d ON d.id = c.document_id"
        " LEFT JOIN saved_versions v ON v.document_id = c.document_id"
        f" LEFT JOIN saved_records r ON r.id = v.record_id WHERE {clause}", params) as cur:
        passages, pending = await cur.fetchone()
    return IndexCounts(passages, pending)


@dataclass(frozen=True)
class Removal:
    generation: int
    kind: str | None  # None: removed before removals kept their kind
    saved_section: str | None  # the section of a saved record's version; None for an imported source


async def removal_of(conn: Store, document_id: int) -> Removal | None:
    """When and what a removed (forgotten) document was, or None if it never was removed."""
    async with conn.execute("SELECT generation, kind, section FROM document_removals WHERE document_id = ?",
                            (document_id,)) as cur:
        row = await cur.fetchone()
    return Removal(row[0], row[1], row[2]) if row else None


@dataclass(frozen=True)
class GenerationOf:
    """The latest generation at which documents of one kind (and saved section) were added or removed."""
    kind: str | None
    saved_section: str | None
    generation: int


async def generations_by_kind(conn: Store) -> list[GenerationOf]:
    """The generation each kind of document (saved ones by section) last moved at, by an addition
    or a removal: a handful of rows, from which the core tells a restricted client the latest
    generation of what it may see."""
    async with conn.execute(
        "SELECT d.kind, r.section, MAX(d.added_generation) FROM documents d"
        " LEFT JOIN saved_versions v ON v.document_id = d.id LEFT JOIN saved_records r ON r.id = v.record_id"
        " GROUP BY d.kind, r.section"
        " UNION ALL SELECT kind, section, MAX(generation) FROM document_removals GROUP BY kind, section") as cur:
        return [GenerationOf(*row) for row in await cur.fetchall()]


@dataclass(frozen=True)
class PassageFacts:
    senders: tuple[str, ...]  # in order of first appearance; empty for prose
    time_start: str | None
    time_end: str | None


async def passage_facts(conn: Store, document_id: int, start: int, end: int) -> PassageFacts:
    """Who wrote the messages in [start, end) of a document and when; for prose, the chunks' dates."""
    async with conn.execute(
        "SELECT sender, time, kind FROM messages WHERE document_id = ? AND char_end > ? AND char_start < ?"
        " ORDER BY char_start", (document_id, start, end)) as cur:
        rows = await cur.fetchall()
    if rows:
        senders = tuple(dict.fromkeys(r[0] for r in rows if r[2] != "system" and r[0]))
        times = sorted(r[1] for r in rows if r[1] is not None)  # undated messages have none
        return PassageFacts(senders, times[0] if times else None, times[-1] if times else None)
    async with conn.execute(
        "SELECT MIN(time_start), MAX(time_end) FROM chunks WHERE document_id = ? AND char_end > ? AND char_start < ?",
        (document_id, start, end)) as cur:
        first, last = await cur.fetchone()
    return PassageFacts((), first, last)


async def pending_chunks_of(conn: Store, document_ids: Sequence[int]) -> dict[int, int]:
    """Chunks still waiting for their embedding, per document (documents with none left out)."""
    ids = list(dict.fromkeys(document_ids))
    if not ids:
        return {}
    async with conn.execute(
        f"SELECT document_id, COUNT(*) FROM chunks WHERE embedded = 0 AND document_id IN ({','.join('?' * len(ids))})"
        " GROUP BY document_id", ids) as cur:
        return {row[0]: row[1] for row in await cur.fetchall()}


# ---------------------------------------------------------------- the exhaustive listing

@dataclass(frozen=True)
class ListScope:
    """Which documents a listing may show: imported ones by kind, saved ones by section (None:
    all of them; an empty tuple: none); and which state of saved versions or indexing."""

    imported_kinds: tuple[str, ...] | None = None
    saved_sections: tuple[str, ...] | None = None
    status: str = "current"  # current | superseded | pending | searchable | all

    def where(self) -> tuple[str, list]:
        params: list = []
        imported = "v.document_id IS NULL"
        if self.imported_kinds is not None:
            imported += f" AND d.kind IN ({','.join('?' * len(self.imported_kinds))})" \
                if self.imported_kinds else " AND 0"
            params.extend(self.imported_kinds)
        saved = "v.document_id IS NOT NULL"
        if self.saved_sections is not None:
            saved += f" AND r.section IN ({','.join('?' * len(self.saved_sections))})" \
                if self.saved_sections else " AND 0"
            params.extend(self.saved_sections)
        clause = f"(({imported}) OR ({saved}))"
        clause += {
            "current": " AND v.superseded_by IS NULL",
            "superseded": " AND v.superseded_by IS NOT NULL",
            "pending": " AND c.embedded = 0 AND v.superseded_by IS NULL",
            "searchable": " AND c.embedded = 1 AND v.superseded_by IS NULL",
            "all": "",
        }[self.status]
        return clause, params


@dataclass(frozen=True)
class ListedChunk:
    chunk: StoredChunk
    embedded: bool
    record_id: int | None  # set when the chunk belongs to a saved record
    section: str | None
    superseded_by: int | None


@dataclass(frozen=True)
class ListPosition:
    """Where a listing stands: dated chunks come first, by (time, id), then undated ones by id.
    Keyset, not offset: rows added or removed meanwhile never shift what comes next."""

    dated: bool = True
    time: str = ""
    chunk_id: int = 0


_SELECT = """SELECT c.id, c.document_id, d.name, d.kind, c.char_start, c.char_end, c.text, c.time_start,
                    c.time_end, c.speakers, c.embedded, v.record_id, r.section, v.superseded_by
             FROM chunks c JOIN documents d ON d.id = c.document_id
             LEFT JOIN saved_versions v ON v.document_id = c.document_id
             LEFT JOIN saved_records r ON r.id = v.record_id"""


def _listed(row: aiosqlite.Row) -> ListedChunk:
    return ListedChunk(chunk=stored_chunk(row), embedded=bool(row[10]), record_id=row[11], section=row[12],
                       superseded_by=row[13])


@dataclass(frozen=True)
class ListedPage:
    chunks: list[ListedChunk]
    next: ListPosition | None  # where the next page starts; None at the end


async def list_chunks(conn: Store, *, where: ChunkFilter, scope: ListScope,
                      after: ListPosition, limit: int) -> ListedPage:
    """The next `limit` chunks after `after`, and the position to go on from."""
    clause, params = where.where()
    scope_clause, scope_params = scope.where()
    out: list[ListedChunk] = []
    position = after
    if position.dated:
        sql = (f"{_SELECT} WHERE {clause} AND {scope_clause} AND c.time_start IS NOT NULL"
               " AND (c.time_start, c.id) > (?, ?) ORDER BY c.time_start, c.id LIMIT ?")
        async with conn.execute(sql, (*params, *scope_params, position.time, position.chunk_id, limit + 1)) as cur:
            out = [_listed(r) for r in await cur.fetchall()]
        if len(out) > limit:
            last = out[limit - 1].chunk
            return ListedPage(out[:limit], ListPosition(True, last.time_start or "", last.id))
        position = ListPosition(dated=False)
    sql = (f"{_SELECT} WHERE {clause} AND {scope_clause} AND c.time_start IS NULL AND c.id > ?"
           " ORDER BY c.id LIMIT ?")
    async with conn.execute(sql, (*params, *scope_params, position.chunk_id, limit - len(out) + 1)) as cur:
        out += [_listed(r) for r in await cur.fetchall()]
    if len(out) > limit:
        last = out[limit - 1].chunk  # may be the last dated chunk: undated ones then start from the first
        return ListedPage(out[:limit], ListPosition(False, "", last.id if last.time_start is None else 0))
    return ListedPage(out, None)
