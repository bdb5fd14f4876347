"""Tables of the memory server: its clients, what agents saved, and the
index generation that lets a reader tell whether a source changed since it searched."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store

GENERATION = "index_generation"


@migration(110)
async def m110_clients(conn: Store) -> None:
    await run_statements(
        conn,
        [
            # one row per bearer token ever issued; only a digest of its secret part is kept
            """CREATE TABLE clients (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL COLLATE NOCASE,
                key_id TEXT NOT NULL UNIQUE,
                secret_digest TEXT NOT NULL,
                operations TEXT NOT NULL,
                sections TEXT NOT NULL DEFAULT '[]',
                created_at TEXT NOT NULL,
                revoked_at TEXT
            )""",
            # a name names one live client; a revoked one's name may be given again
            "CREATE UNIQUE INDEX clients_live_name ON clients(name) WHERE revoked_at IS NULL",
        ],
    )


@migration(111)
async def m111_saved_records(conn: Store) -> None:
    await run_statements(
        conn,
        [
            # what an agent saved (a note, a preference, a recommendation...), in its own section
            """CREATE TABLE saved_records (
                id INTEGER PRIMARY KEY,
                section TEXT NOT NULL,
                kind TEXT NOT NULL,
                client TEXT NOT NULL,
                created_at TEXT NOT NULL
            )""",
            "CREATE INDEX saved_records_section ON saved_records(section)",
            # each version is a document of its own; a correction keeps the one it replaced
            """CREATE TABLE saved_versions (
                document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
                record_id INTEGER NOT NULL REFERENCES saved_records(id) ON DELETE CASCADE,
                version INTEGER NOT NULL,
                content_hash TEXT NOT NULL,
                client TEXT NOT NULL,
                saved_at TEXT NOT NULL,
                person TEXT,
                url TEXT,
                superseded_by INTEGER,
                superseded_generation INTEGER,
                UNIQUE (record_id, version)
            )""",
            # a retried save returns the first record: keys are kept per client, as digests
            """CREATE TABLE idempotency_keys (
                client TEXT NOT NULL,
                key_digest TEXT NOT NULL,
                request_digest TEXT NOT NULL,
                document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                created_at TEXT NOT NULL,
                PRIMARY KEY (client, key_digest)
            )""",
        ],
    )


@migration(112)
async def m112_index_generation(conn: Store) -> None:
    """Every document added or removed moves the generation on, whoever writes it (an import, a
    forget, a save), so no write path needs to remember to. Documents never change after they are
    written: a source "changes" only by being removed or, for a saved record, superseded."""
    await run_statements(
        conn,
        [
            f"INSERT OR IGNORE INTO meta (key, value) VALUES ('{GENERATION}', '1')",
            """CREATE TABLE document_removals (
                document_id INTEGER PRIMARY KEY,
                generation INTEGER NOT NULL,
                removed_at TEXT NOT NULL
            )""",
            f"""CREATE TRIGGER documents_generation_insert AFTER INSERT ON documents BEGIN
                UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = '{GENERATION}';
            END""",
            f"""CREATE TRIGGER documents_generation_delete AFTER DELETE ON documents BEGIN
                UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = '{GENERATION}';
                INSERT OR REPLACE INTO document_removals (document_id, generation, removed_at)
                VALUES (old.id, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = '{GENERATION}'),
                        strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));
            END""",
        ],
    )


@migration(175)
async def m175_generation_by_what_moved_it(conn: Store) -> None:
    """Each document keeps the generation it was added at, and each removal the kind (and, for a
    saved record, the section) of what went, so a client limited to some sections is told a
    generation that only what it may see moves, and learns nothing of a removal it could not see.
    The removal is recorded before the delete: a saved version's row goes with it by cascade."""
    await run_statements(
        conn,
        [
            "ALTER TABLE documents ADD COLUMN added_generation INTEGER NOT NULL DEFAULT 0",
            f"UPDATE documents SET added_generation = (SELECT CAST(value AS INTEGER) FROM meta WHERE key = '{GENERATION}')",
            "ALTER TABLE document_removals ADD COLUMN kind TEXT",
            "ALTER TABLE document_removals ADD COLUMN section TEXT",
            "DROP TRIGGER documents_generation_insert",
            f"""CREATE TRIGGER documents_generation_insert AFTER INSERT ON documents BEGIN
                UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = '{GENERATION}';
                UPDATE documents SET added_generation = (SELECT CAST(value AS INTEGER) FROM meta
                                                         WHERE key = '{GENERATION}') WHERE id = new.id;
            END""",
            "DROP TRIGGER documents_generation_delete",
            f"""CREATE TRIGGER documents_generation_delete BEFORE DELETE ON documents BEGIN
                UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = '{GENERATION}';
                INSERT OR REPLACE INTO document_removals (document_id, generation, removed_at, kind, section)
                VALUES (old.id, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = '{GENERATION}'),
                        strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), old.kind,
                        (SELECT r.section FROM saved_versions v JOIN saved_records r ON r.id = v.record_id
                         WHERE v.document_id = old.id));
            END""",
        ],
    )
