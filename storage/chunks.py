"""Chunks, their keyword index (FTS5) and their speakers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import aiosqlite
import sqlean

if TYPE_CHECKING:
    from storage.db import Store


@dataclass(frozen=True)
class ChunkRecord:
    """A chunk as the store keeps it (times as UTC ISO strings)."""

    document_id: int
    ordinal: int
    char_start: int
    char_end: int
    text: str
    time_start: str | None
    time_end: str | None
    speakers: tuple[str, ...]
    identity: str
    text_hash: str
    language: str = ""  # ISO 639-1 (storage/keyword/languages.py); "" unknown: indexed by script alone


@dataclass(frozen=True, slots=True)  # slots: a search makes 150 of them (a third less time each)
class StoredChunk:
    id: int
    document_id: int
    document: str
    kind: str
    char_start: int
    char_end: int
    text: str
    time_start: str | None
    time_end: str | None
    speakers: tuple[str, ...]
    small_talk: float = 0.0  # share of its text in lines its document says again and again


@dataclass(frozen=True)
class KeywordHit:
    chunk: StoredChunk
    bm25: float  # FTS5's score: lower is better


@dataclass(frozen=True)
class ChunkSpan:
    """Where a chunk lies in its document, with its text."""

    char_start: int
    char_end: int
    text: str


@dataclass(frozen=True, slots=True)
class ScannedText:
    """A chunk's text with what a full scan sorts and places its matches by."""

    chunk_id: int
    document_id: int
    char_start: int
    time_start: str  # UTC ISO; "" undated
    text: str


@dataclass(frozen=True)
class LanguageTally:
    chunks: int
    chars: int


@dataclass(frozen=True)
class ChunkCounts:
    total: int
    waiting: int  # for their embedding


#: meta: the longest time_end - time_start of any chunk, in days (migration 181's triggers keep it)
LONGEST_SPAN_KEY = "chunks_longest_span_days"
#: meta: the longest char_end - char_start of any chunk (migration 185's triggers keep it)
LONGEST_CHARS_KEY = "chunks_longest_chars"


# the earliest start a chunk that ends after a period's start (the parameter) can have: the
# period's start less the longest span of any chunk and two days (a time written with an offset
# from UTC compares as its own clock's digits: up to 14 hours either way); no bound ('') while
# that span is unknown or unbounded
_EARLIEST_START = f"""COALESCE((SELECT CASE WHEN CAST(value AS REAL) < 1e6 THEN strftime('%Y-%m-%dT%H:%M:%SZ',
    julianday(?) - CAST(value AS REAL) - 2) END FROM meta WHERE key = '{LONGEST_SPAN_KEY}'), '')"""


@dataclass(frozen=True)
class ChunkFilter:
    """SQL-level filters over chunks; `speakers` holds every name of the person asked for."""

    kinds: tuple[str, ...] = ()
    speakers: tuple[str, ...] = ()
    since: str | None = None  # UTC ISO
    until: str | None = None

    def where(self, chunk: str = "c", document: str = "d", *, bounded_start: bool = False) -> tuple[str, list]:
        """The filter as SQL over `chunk` (and `document`, for kinds). `bounded_start`: a period
        with a start and an end also bounds time_start from below (_EARLIEST_START), which
        selects the same chunks and lets a scan of chunks_period begin near the period instead
        of at the oldest chunk."""
        clauses: list[str] = []
        params: list = []
        if self.kinds:
            clauses.append(f"{document}.kind IN ({','.join('?' * len(self.kinds))})")
            params.extend(self.kinds)
        if self.speakers:
            clauses.append(
                f"{chunk}.id IN (SELECT chunk_id FROM chunk_speakers WHERE speaker IN "
                f"({','.join('?' * len(self.speakers))}))"
            )
            params.extend(self.speakers)
        if self.since:
            clauses.append(f"{chunk}.time_end >= ?")
            params.append(self.since)
            if bounded_start and self.until:  # (without an end, a chunk with no start may match)
                clauses.append(f"{chunk}.time_start >= {_EARLIEST_START}")
                params.append(self.since)
        if self.until:
            clauses.append(f"{chunk}.time_start <= ?")
            params.append(self.until)
        return (" AND ".join(clauses) or "1"), params

    @property
    def active(self) -> bool:
        return bool(self.kinds or self.speakers or self.since or self.until)


_COLUMNS = """c.id, c.document_id, d.name, d.kind, c.char_start, c.char_end, c.text, c.time_start,
              c.time_end, c.speakers, c.small_talk"""
_SELECT = f"SELECT {_COLUMNS} FROM chunks c JOIN documents d ON d.id = c.document_id"


def _stored(row: aiosqlite.Row) -> StoredChunk:
    return StoredChunk(
        id=row[0], document_id=row[1], document=row[2], kind=row[3], char_start=row[4],
        char_end=row[5], text=row[6], time_start=row[7], time_end=row[8],
        speakers=tuple(json.loads(row[9])) if row[9] != "[]" else (), small_talk=row[10] or 0.0,
    )


async def insert_chunks(conn: Store, records: Sequence[ChunkRecord]) -> int:
    """Insert the chunks of a document being saved; returns how many were written.

    A chunk's identity hashes its document's identity, so a new document's chunks are new.
    """
    if not records:
        return 0
    await conn.executemany(
        """INSERT INTO chunks (document_id, ordinal, char_start, char_end, text, time_start,
               time_end, speakers, identity, text_hash, language)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(identity) DO NOTHING""",
        [(r.document_id, r.ordinal, r.char_start, r.char_end, r.text, r.time_start, r.time_end,
          json.dumps(r.speakers, ensure_ascii=False), r.identity, r.text_hash, r.language) for r in records],
    )
    speaker_rows = [(r.identity, s) for r in records for s in r.speakers]
    if speaker_rows:
        await conn.executemany(
            """INSERT OR IGNORE INTO chunk_speakers (chunk_id, speaker)
               SELECT id, ? FROM chunks WHERE identity = ?""",
            [(s, identity) for identity, s in speaker_rows],
        )
    from storage.keyword import postings  # numpy: grep and read never insert

    await postings.fold(conn)  # the keyword postings follow before the caller commits
    return len(records)


def _fts_join(where: ChunkFilter) -> str:
    return ("JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id"
            if where.active else "")


def keyword_hits(conn: sqlean.Connection, match: str, *, limit: int, where: ChunkFilter,
                 rowids: tuple[int, int | None] = (0, None)) -> list[KeywordHit]:
    """The chunks an FTS5 MATCH expression finds, best first, among chunk ids in [low, high)
    (high None: no end), the chunks read by the same query. Blocking: for a reader connection
    in a worker thread. bm25's term weights come from the whole index whatever the range, so
    ranges can be searched apart and merged."""
    clause, params = where.where()
    join = _fts_join(where)
    low, high = rowids
    below = "" if high is None else "AND chunks_fts.rowid < ?"
    sql = f"""SELECT {_COLUMNS}, k.score
              FROM (SELECT chunks_fts.rowid AS id, bm25(chunks_fts) AS score FROM chunks_fts {join}
                    WHERE chunks_fts MATCH ? AND chunks_fts.rowid >= ? {below} AND {clause}
                    ORDER BY score LIMIT ?) k
              JOIN chunks c ON c.id = k.id JOIN documents d ON d.id = c.document_id
              ORDER BY k.score"""
    args = (match, low, *(() if high is None else (high,)), *params, limit)
    return [KeywordHit(_stored(row), row[-1]) for row in conn.execute(sql, args)]


async def count_matching(conn: Store, match: str, *, where: ChunkFilter) -> int:
    """How many chunks an FTS5 expression matches (read from the index alone: no text)."""
    clause, params = where.where()
    sql = f"SELECT COUNT(*) FROM chunks_fts {_fts_join(where)} WHERE chunks_fts MATCH ? AND {clause}"
    async with conn.execute(sql, (match, *params)) as cur:
        return (await cur.fetchone())[0]


async def walk_matching(conn: Store, match: str, *, where: ChunkFilter, newest_first: bool,
                        batch: int) -> AsyncIterator[list[StoredChunk]]:
    """The chunks an FTS5 expression matches in time order (then document, then position), a
    batch at a time: SQLite sorts the matches' ids once (texts stay out of the sort) and hands
    over only what the caller reads before it stops. Use it with contextlib.aclosing, so
    stopping early closes the query."""
    clause, params = where.where()
    order = "DESC" if newest_first else "ASC"
    join = "JOIN documents d ON d.id = c.document_id" if where.active else ""
    sql = (f"SELECT c.id FROM chunks c {join} "
           f"WHERE c.id IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?) AND {clause} "
           f"ORDER BY COALESCE(c.time_start, '') {order}, c.document_id {order}, c.char_start {order}")
    cursor = await conn.execute(sql, (match, *params))
    try:
        while ids := [row[0] for row in await cursor.fetchmany(batch)]:
            rows = await get_chunks(conn, ids)
            yield [rows[i] for i in ids if i in rows]
    finally:
        await cursor.close()


def earliest_matching_sync(conn: sqlean.Connection, match: str, *, limit: int, where: ChunkFilter) -> list[StoredChunk]:
    """The `limit` oldest dated chunks an FTS5 expression matches (then by document and place),
    rows and all. Blocking: for a reader connection in a worker thread."""
    clause, params = where.where()
    sql = (f"SELECT {_COLUMNS} FROM chunks c JOIN documents d ON d.id = c.document_id "
           f"WHERE c.id IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?) AND c.time_start IS NOT NULL "
           f"AND {clause} ORDER BY c.time_start, c.document_id, c.char_start LIMIT ?")
    return [_stored(row) for row in conn.execute(sql, (match, *params, limit))]


def get_chunks_sync(conn: sqlean.Connection, ids: Sequence[int]) -> dict[int, StoredChunk]:
    """get_chunks through a plain (blocking) connection, for readers that run in a worker thread."""
    out: dict[int, StoredChunk] = {}
    for i in range(0, len(ids), 500):
        part = list(ids[i:i + 500])
        for row in conn.execute(f"{_SELECT} WHERE c.id IN ({','.join('?' * len(part))})", part):
            out[row[0]] = _stored(row)
    return out


def small_talk_sync(conn: sqlean.Connection, ids: Sequence[int]) -> dict[int, float]:
    """The share of small talk of the chunks `ids` that have one (core/memory/small_talk.py),
    without reading their rows: search chooses its candidates by it before reading any."""
    out: dict[int, float] = {}
    for i in range(0, len(ids), 500):
        part = list(ids[i:i + 500])
        # from the partial index alone (migration 180): the rows, text and all, stay unread
        out.update(conn.execute("SELECT id, small_talk FROM chunks INDEXED BY chunks_small_talk"
                                f" WHERE small_talk > 0 AND id IN ({','.join('?' * len(part))})", part).fetchall())
    return out


async def unmeasured_documents(conn: Store, *, limit: int) -> list[int]:
    """Documents with chunks whose small talk is not measured yet."""
    async with conn.execute("SELECT DISTINCT document_id FROM chunks WHERE small_talk IS NULL LIMIT ?",
                            (limit,)) as cur:
        return [row[0] for row in await cur.fetchall()]


async def document_texts(conn: Store, document_id: int) -> dict[int, str]:
    """Every chunk of a document, id -> text."""
    async with conn.execute("SELECT id, text FROM chunks WHERE document_id = ?", (document_id,)) as cur:
        return dict(await cur.fetchall())


async def set_small_talk(conn: Store, shares: dict[int, float]) -> None:
    await conn.executemany("UPDATE chunks SET small_talk = ? WHERE id = ?", [(v, k) for k, v in shares.items()])


async def get_chunks(conn: Store, ids: Sequence[int]) -> dict[int, StoredChunk]:
    out: dict[int, StoredChunk] = {}
    for i in range(0, len(ids), 500):
        part = list(ids[i:i + 500])
        sql = f"{_SELECT} WHERE c.id IN ({','.join('?' * len(part))})"
        async with conn.execute(sql, part) as cur:
            for row in await cur.fetchall():
                out[row[0]] = _stored(row)
    return out


# a chunk that ends after the span's start began at most the longest chunk's length before it:
# the scan of chunks_document starts there, not at the document's first chunk (parameters: the
# document, start, end, start, start)
OVERLAPPING = f"""SELECT char_start, char_end, text FROM chunks
    WHERE document_id = ? AND char_end > ? AND char_start < ?
      AND char_start >= ? - COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '{LONGEST_CHARS_KEY}'), ?)
    ORDER BY char_start"""


async def chunks_overlapping(conn: Store, document_id: int, start: int, end: int) -> list[ChunkSpan]:
    """The chunks covering [start, end) of a document, in order."""
    async with conn.execute(OVERLAPPING, (document_id, start, end, start, start)) as cur:
        return [ChunkSpan(*r) for r in await cur.fetchall()]


async def scan_chunks(
    conn: Store, *, after_id: int, page_size: int, where: ChunkFilter
) -> list[StoredChunk]:
    """The next page of chunks by id, for grep's full scans."""
    clause, params = where.where()
    sql = f"{_SELECT} WHERE c.id > ? AND {clause} ORDER BY c.id LIMIT ?"
    async with conn.execute(sql, (after_id, *params, page_size)) as cur:
        return [_stored(row) for row in await cur.fetchall()]


async def scan_texts(conn: Store, *, after_id: int, page_size: int,
                     where: ChunkFilter) -> list[ScannedText]:
    """The next page of chunk texts by id, for full scans that look at the text alone (no
    document row, no speakers: a scan reads every chunk)."""
    clause, params = where.where()
    join = "JOIN documents d ON d.id = c.document_id" if where.active else ""
    sql = (f"SELECT c.id, c.document_id, c.char_start, COALESCE(c.time_start, ''), c.text FROM chunks c {join} "
           f"WHERE c.id > ? AND {clause} ORDER BY c.id LIMIT ?")
    async with conn.execute(sql, (after_id, *params, page_size)) as cur:
        return [ScannedText(*row) for row in await cur.fetchall()]


async def languages(conn: Store) -> list[str]:
    """The languages the store's chunks are in."""
    async with conn.execute("SELECT language FROM chunk_languages WHERE chunks > 0 ORDER BY language") as cur:
        return [row[0] for row in await cur.fetchall()]


async def language_counts(conn: Store) -> dict[str, LanguageTally]:
    """Chunks and characters per language ("" undetermined), from the tally the triggers keep."""
    async with conn.execute("SELECT language, chunks, chars FROM chunk_languages WHERE chunks > 0") as cur:
        return {row[0]: LanguageTally(row[1], row[2]) for row in await cur.fetchall()}


def languages_sync(conn: sqlean.Connection) -> list[str]:
    """The languages the store's chunks are in, through a plain (blocking) connection."""
    return [row[0] for row in conn.execute("SELECT language FROM chunk_languages WHERE chunks > 0 ORDER BY language")]


def language_counts_sync(conn: sqlean.Connection) -> dict[str, int]:
    """Chunks per language ("" undetermined), through a plain (blocking) connection."""
    return dict(conn.execute("SELECT language, chunks FROM chunk_languages WHERE chunks > 0").fetchall())


def any_matching_sync(conn: sqlean.Connection, match: str) -> bool:
    """Whether any chunk matches an FTS5 expression (one posting read, not a ranking)."""
    return conn.execute("SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1", (match,)).fetchone() is not None


def told_in_sync(conn: sqlean.Connection, ids: Sequence[int], language: str) -> set[int]:
    """Which of the chunks `ids` were told as written in `language` (their own text's detection)."""
    found: set[int] = set()
    for start in range(0, len(ids), 500):
        batch = list(ids[start:start + 500])
        found.update(row[0] for row in conn.execute(
            f"SELECT id FROM chunks WHERE language = ? AND id IN ({','.join('?' * len(batch))})", (language, *batch)))
    return found


async def count_chunks(conn: Store) -> ChunkCounts:
    async with conn.execute("SELECT COUNT(*), COALESCE(SUM(embedded = 0), 0) FROM chunks") as cur:
        return ChunkCounts(*await cur.fetchone())
