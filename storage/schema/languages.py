"""The keyword index in the owner's languages: each chunk's language, and a tally of them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from storage.keyword.languages import UNSPACED_CLASS, WORD, detect_language
from storage.keyword.terms import script_parts
from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store

DETECT_BATCH = 2_000
# how words were cut before migration 172; a pattern, compiled (by `re`, once) only where that
# migration runs: every command imports this module
_UNSPACED_RUN = rf"([{UNSPACED_CLASS}]+)"


@migration(170)
async def m170_keyword_index_in_the_owners_languages(conn: Store) -> None:
    """Each chunk's language is detected and kept; the keyword index holds what
    storage/keyword/terms.py makes of the text (stemmed in the chunk's own language, unspaced
    scripts as pairs of letters) instead of FTS5's English Porter stemming of everything.

    The index is contentless (it stores no text, as the external-content index it replaces
    stored none), filled by a trigger through the SQL function `keyword_terms`, which
    storage/db.py registers on every connection that writes: a tool that inserts chunks through
    a plain sqlite3 connection gets "no such function". `contentless_delete` lets a chunk's
    entry be deleted by id alone. `chunk_languages` counts chunks and characters per language,
    for the query side (a word is looked for as each of the store's languages would index it)
    and for choosing the embedding model, without scanning the chunks."""
    await run_statements(conn, [
        "ALTER TABLE chunks ADD COLUMN language TEXT NOT NULL DEFAULT ''",
        """CREATE TABLE chunk_languages (
            language TEXT PRIMARY KEY,
            chunks INTEGER NOT NULL,
            chars INTEGER NOT NULL
        )""",
        "DROP TRIGGER chunks_fts_insert",
        "DROP TRIGGER chunks_fts_delete",
        "DROP TABLE chunks_fts",
        """CREATE VIRTUAL TABLE chunks_fts USING fts5(
            text, content='', contentless_delete=1, tokenize='ascii'
        )""",
    ])
    after = 0
    while True:
        async with conn.execute("SELECT id, text FROM chunks WHERE id > ? ORDER BY id LIMIT ?",
                                (after, DETECT_BATCH)) as cur:
            rows = await cur.fetchall()
        if not rows:
            break
        await conn.executemany("UPDATE chunks SET language = ? WHERE id = ?",
                               [(detect_language(text), chunk_id) for chunk_id, text in rows])
        after = rows[-1][0]
    await run_statements(conn, [
        "INSERT INTO chunks_fts (rowid, text) SELECT id, keyword_terms(text, language) FROM chunks",
        """INSERT INTO chunk_languages (language, chunks, chars)
           SELECT language, COUNT(*), SUM(length(text)) FROM chunks GROUP BY language""",
        """CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts (rowid, text) VALUES (new.id, keyword_terms(new.text, new.language));
            INSERT INTO chunk_languages (language, chunks, chars) VALUES (new.language, 1, length(new.text))
                ON CONFLICT (language) DO UPDATE SET chunks = chunks + 1, chars = chars + excluded.chars;
        END""",
        """CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
            DELETE FROM chunks_fts WHERE rowid = old.id;
            UPDATE chunk_languages SET chunks = chunks - 1, chars = chars - length(old.text)
                WHERE language = old.language;
        END""",
    ])


def _cut_anew(text: str) -> bool:
    """Whether the index now cuts a word of this text where it did not before: where its script
    changes between two spaced scripts ("covidом"); runs of unspaced script were cut already."""
    return any(script_parts(word) != [part for part in re.split(_UNSPACED_RUN, word) if part]
               for word in WORD.findall(text.lower()) if not word.isascii())


@migration(172)
async def m172_words_are_cut_where_their_script_changes(conn: Store) -> None:
    """A word whose script changes inside it ("COVIDом", "Appخدمة") is indexed as its parts, so
    each is found on its own (storage/keyword/terms.py, script_parts): the chunks holding such a
    word are indexed again; the others' terms are unchanged."""
    async with conn.execute("SELECT id, text, language FROM chunks") as cur:
        stale = [tuple(row) async for row in cur if _cut_anew(row[1])]  # few: only those are kept
    await conn.executemany("DELETE FROM chunks_fts WHERE rowid = ?", [(row[0],) for row in stale])
    await conn.executemany("INSERT INTO chunks_fts (rowid, text) VALUES (?, keyword_terms(?, ?))", stale)
