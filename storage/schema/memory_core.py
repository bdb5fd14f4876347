"""The memory core's tables: documents, messages, chunks and their keyword index, people, meta."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store



@migration(1)
async def m001_memory_core(conn: Store) -> None:
    await run_statements(
        conn,
        [
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            # one row per imported file or message stream
            """CREATE TABLE documents (
                id INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,
                name TEXT NOT NULL,
                identity TEXT NOT NULL UNIQUE,
                source_path TEXT,
                content_hash TEXT,
                byte_size INTEGER,
                imported_at TEXT NOT NULL,
                time_start TEXT,
                time_end TEXT,
                participants TEXT NOT NULL DEFAULT '[]',
                raw_path TEXT,
                chunk_count INTEGER NOT NULL DEFAULT 0,
                text_length INTEGER NOT NULL DEFAULT 0,
                platform TEXT,
                conversation_key TEXT,
                is_group INTEGER NOT NULL DEFAULT 0,
                note TEXT NOT NULL DEFAULT ''
            )""",
            "CREATE INDEX documents_content_hash ON documents(content_hash)",
            "CREATE INDEX documents_conversation ON documents(platform, conversation_key)",
            """CREATE TABLE chunks (
                id INTEGER PRIMARY KEY,
                document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                ordinal INTEGER NOT NULL,
                char_start INTEGER NOT NULL,
                char_end INTEGER NOT NULL,
                text TEXT NOT NULL,
                time_start TEXT,
                time_end TEXT,
                speakers TEXT NOT NULL DEFAULT '[]',
                identity TEXT NOT NULL UNIQUE,
                text_hash TEXT NOT NULL,
                embedded INTEGER NOT NULL DEFAULT 0
            )""",
            "CREATE INDEX chunks_document ON chunks(document_id, char_start)",
            "CREATE INDEX chunks_text_hash ON chunks(text_hash)",
            "CREATE INDEX chunks_pending ON chunks(embedded) WHERE embedded = 0",
            "CREATE INDEX chunks_time ON chunks(time_start)",
            # keyword index; porter stems English words, unicode61 folds case and diacritics
            """CREATE VIRTUAL TABLE chunks_fts USING fts5(
                text, content='chunks', content_rowid='id',
                tokenize='porter unicode61 remove_diacritics 2'
            )""",
            """CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
                INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
            END""",
            """CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
                INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
            END""",
            # full-precision vectors for rescoring; the vec0 index (bit-quantised) is created
            # when the first embedding model is recorded, because its dimension comes from it
            """CREATE TABLE chunk_embeddings (
                chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
                vector BLOB NOT NULL
            )""",
            # speakers per chunk, for the person filter
            """CREATE TABLE chunk_speakers (
                chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
                speaker TEXT NOT NULL COLLATE NOCASE,
                PRIMARY KEY (speaker, chunk_id)
            ) WITHOUT ROWID""",
            # every message keeps its original sender and time
            """CREATE TABLE messages (
                id INTEGER PRIMARY KEY,
                document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                platform TEXT NOT NULL,
                conversation_key TEXT NOT NULL,
                platform_id TEXT,
                sender TEXT NOT NULL,
                sender_id TEXT,
                is_owner INTEGER NOT NULL DEFAULT 0,
                time TEXT NOT NULL,
                utc_offset_minutes INTEGER,
                kind TEXT NOT NULL DEFAULT 'text',
                reply_to TEXT,
                forwarded_from TEXT,
                text TEXT NOT NULL,
                attachments TEXT NOT NULL DEFAULT '[]',
                dedup_key TEXT NOT NULL UNIQUE,
                char_start INTEGER NOT NULL,
                char_end INTEGER NOT NULL
            )""",
            "CREATE INDEX messages_document ON messages(document_id, char_start)",
            "CREATE INDEX messages_conversation_time ON messages(platform, conversation_key, time)",
            "CREATE INDEX messages_sender ON messages(sender COLLATE NOCASE)",
        ],
    )


@migration(178)
async def m178_chunk_periods_read_from_an_index(conn: Store) -> None:
    """A period filter (time_end >= since AND time_start <= until, with the chunk's document for
    a kind filter) is answered from this index alone: it read every chunk row in range, text and
    all (0.4 s for a period of 100k chunks of 900 characters at load 15)."""
    await conn.execute("CREATE INDEX chunks_period ON chunks(time_start, time_end, document_id)")


@migration(179)
async def m179_messages_may_be_undated(conn: Store) -> None:
    """A message may have no time: an e-mail with no usable date keeps its sender as a message
    (messages.time NULL) instead of becoming prose with no one's name on it.

    SQLite's ALTER TABLE cannot drop a NOT NULL. Its documentation gives a procedure for exactly
    that (lang_altertable.html, "Making Other Kinds Of Table Schema Changes": removing NOT NULL,
    CHECK or FOREIGN KEY constraints): edit the table's CREATE statement under writable_schema
    and raise the schema version, in one transaction. Rows, indexes and the foreign keys that
    point at messages stay as they are; a rebuild of the table would need foreign keys off,
    which cannot change inside a migration's transaction, and dropping the old table would
    cascade into the ledger's rows."""
    async with conn.execute("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'messages'") as cur:
        (sql,) = await cur.fetchone()
    if sql.count("time TEXT NOT NULL") != 1:
        raise RuntimeError("messages.time is not declared as migration 1 made it")
    async with conn.execute("PRAGMA schema_version") as cur:
        (version,) = await cur.fetchone()
    await conn.execute("PRAGMA writable_schema = ON")
    try:
        await conn.execute("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = 'messages'",
                           (sql.replace("time TEXT NOT NULL", "time TEXT"),))
        await conn.execute(f"PRAGMA schema_version = {int(version) + 1}")
    finally:
        await conn.execute("PRAGMA writable_schema = OFF")


# a chunk's span (time_end - time_start, in days) as the period filter's bound counts it: a chunk
# with an end and no start, or a time that julianday() cannot read, has no known span (a span
# this long leaves the start unbounded); one with no end never meets a period's start
_SPAN = """CASE WHEN {row}.time_end IS NULL THEN 0 WHEN {row}.time_start IS NULL THEN 1e7
                ELSE COALESCE(MAX(julianday({row}.time_end) - julianday({row}.time_start), 0), 1e7) END"""


@migration(181)
async def m181_longest_chunk_span(conn: Store) -> None:
    """The longest span of any chunk (meta 'chunks_longest_span_days', kept by triggers: it only
    grows), so a period filter bounds where its scan of chunks_period starts: a chunk that ends
    after the period's start began at most that long before it. The filter read the index from
    the oldest chunk to the period's end (half of it for a period in the middle of the store)."""
    from storage.chunks import LONGEST_SPAN_KEY

    new = _SPAN.format(row="new")
    grow = (f"UPDATE meta SET value = {new} WHERE key = '{LONGEST_SPAN_KEY}' "
            f"AND CAST(value AS REAL) < {new}")
    await run_statements(conn, [
        # from the covering index (time_start, time_end), not the chunk rows
        f"""INSERT OR REPLACE INTO meta (key, value)
            SELECT '{LONGEST_SPAN_KEY}', COALESCE(MAX({_SPAN.format(row="chunks")}), 0) FROM chunks""",
        f"CREATE TRIGGER chunks_span_insert AFTER INSERT ON chunks WHEN new.time_end IS NOT NULL BEGIN {grow}; END",
        f"""CREATE TRIGGER chunks_span_update AFTER UPDATE OF time_start, time_end ON chunks
            WHEN new.time_end IS NOT NULL BEGIN {grow}; END""",
    ])


@migration(185)
async def m185_longest_chunk(conn: Store) -> None:
    """The longest chunk in characters (meta 'chunks_longest_chars', kept by triggers: it only
    grows), so reading a span of a document bounds where its scan of chunks_document starts: a
    chunk that ends after the span's start began at most that many characters before it. The
    read scanned the document's chunks from its first one (30 ms for a span near the end of a
    chat of 100,000 chunks, every time search joined two adjacent chunks or the agent read one)."""
    from storage.chunks import LONGEST_CHARS_KEY

    grow = (f"UPDATE meta SET value = new.char_end - new.char_start WHERE key = '{LONGEST_CHARS_KEY}' "
            "AND CAST(value AS INTEGER) < new.char_end - new.char_start")
    await run_statements(conn, [
        f"""INSERT OR REPLACE INTO meta (key, value)
            SELECT '{LONGEST_CHARS_KEY}', COALESCE(MAX(char_end - char_start), 0) FROM chunks""",
        f"CREATE TRIGGER chunks_chars_insert AFTER INSERT ON chunks BEGIN {grow}; END",
        f"CREATE TRIGGER chunks_chars_update AFTER UPDATE OF char_start, char_end ON chunks BEGIN {grow}; END",
    ])
