"""The life ledger's tables.

An item (a promise, something owed to the owner, a recommendation, a fact about a person) is kept
with every source it rests on: a range of a stored document and the words quoted from it, or the
owner by hand. Sources of a forgotten document go with it (ON DELETE CASCADE), and an item left
with no source for its existence goes too (the trigger), so `forget` needs no ledger code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store


@migration(120)
async def m120_ledger(conn: Store) -> None:
    await run_statements(
        conn,
        [
            """CREATE TABLE ledger_items (
                id INTEGER PRIMARY KEY,
                kind TEXT NOT NULL CHECK (kind IN ('commitment', 'owed', 'recommendation', 'fact')),
                text TEXT NOT NULL,
                -- a name the people table knows (any alias, so a later merge keeps it resolvable)
                person TEXT COLLATE NOCASE,
                title TEXT,  -- a recommendation's title
                category TEXT,  -- a recommendation's category (book, show...) or a fact's type
                due TEXT,  -- a local date, YYYY-MM-DD
                status TEXT NOT NULL DEFAULT 'open'
                    CHECK (status IN ('open', 'in_progress', 'done', 'dropped')),
                origin TEXT NOT NULL CHECK (origin IN ('extracted', 'chat', 'hand')),
                first_said TEXT,  -- UTC ISO time of its earliest source
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                status_at TEXT  -- UTC ISO time of the source of the current status
            )""",
            "CREATE INDEX ledger_items_kind_status ON ledger_items(kind, status)",
            "CREATE INDEX ledger_items_person ON ledger_items(person)",
            "CREATE INDEX ledger_items_due ON ledger_items(due) WHERE due IS NOT NULL",
            # role: 'stated' (the item exists because of it) or the status it evidences
            # ('open', 'in_progress', 'done', 'dropped'); document_id NULL: the owner, by hand
            """CREATE TABLE ledger_sources (
                id INTEGER PRIMARY KEY,
                item_id INTEGER NOT NULL REFERENCES ledger_items(id) ON DELETE CASCADE,
                role TEXT NOT NULL,
                document_id INTEGER REFERENCES documents(id) ON DELETE CASCADE,
                char_start INTEGER,
                char_end INTEGER,
                quote TEXT NOT NULL DEFAULT '',
                speaker TEXT,
                said_at TEXT,
                via TEXT NOT NULL,
                added_at TEXT NOT NULL,
                UNIQUE (item_id, role, document_id, char_start, char_end)
            )""",
            "CREATE INDEX ledger_sources_document ON ledger_sources(document_id)",
            # an item whose last source for its existence was forgotten is forgotten with it
            """CREATE TRIGGER ledger_sources_forgotten AFTER DELETE ON ledger_sources
               WHEN old.role = 'stated' AND NOT EXISTS (
                   SELECT 1 FROM ledger_sources WHERE item_id = old.item_id AND role = 'stated')
               BEGIN
                   DELETE FROM ledger_items WHERE id = old.item_id;
               END""",
            # documents whose messages extraction has read completely
            """CREATE TABLE ledger_documents (
                document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
                read_at TEXT NOT NULL
            )""",
            # messages read so far in documents not yet read completely (emptied when one is done):
            # a run stopped by the token cap resumes exactly where it stopped
            """CREATE TABLE ledger_read (
                message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE
            )""",
            # reminders sent: one per item, due date and kind, so nothing is sent twice
            """CREATE TABLE ledger_reminders (
                item_id INTEGER NOT NULL REFERENCES ledger_items(id) ON DELETE CASCADE,
                due TEXT NOT NULL,
                kind TEXT NOT NULL,
                sent_at TEXT NOT NULL,
                PRIMARY KEY (item_id, due, kind)
            ) WITHOUT ROWID""",
        ],
    )
