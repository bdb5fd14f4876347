"""The lexicon file: bilingual dictionaries compiled for lookups (core/memory/translation.py), one
SQLite file in the user's cache folder (`~/.cache/biographer/lexicons.sqlite3` on Linux), shared
by their stores. It holds public dictionary data only, nothing of the owner's: which language
pairs it holds is all it tells of their stores (owner-only, like the data folder's files).

A pair is written whole in one transaction, with the stamp of the dictionary files it came from;
a reader sees the old pair or the new one, never half. Blocking: called from worker threads.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from storage.permissions import missing_dirs_private, private_file

KEPT_PER_WORD = 16  # translations kept per word, best first (a search looks for the first 4 the store holds)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS pairs (source TEXT, target TEXT, stamp TEXT, PRIMARY KEY (source, target));
CREATE TABLE IF NOT EXISTS words (source TEXT, target TEXT, key TEXT, translations TEXT,
                                  PRIMARY KEY (source, target, key)) WITHOUT ROWID;
"""


def _connect(path: Path) -> sqlite3.Connection:
    """A connection that writes: the file made owner-only and its tables made first."""
    missing_dirs_private(path.parent)
    private_file(path)  # like every file in the data folder, owner-only
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.executescript(_SCHEMA)
    return conn


class LexiconReader:
    """Lookups through one read-only connection, opened on first use and kept (a search looks
    words up in each of the store's languages: a connection a lookup read the schema again
    each time, about 0.4 ms). Sees what a writer commits later. Thread-safe."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _rows(self, sql: str, args: Sequence[object]) -> list[tuple]:
        """None where the file or its tables do not exist yet."""
        with self._lock:
            if self._conn is None:
                if not self.path.is_file():
                    return []
                self._conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                             timeout=30, check_same_thread=False)
            try:
                return self._conn.execute(sql, args).fetchall()
            except sqlite3.OperationalError as error:
                if "no such table" in str(error):  # made by a writer that has not written yet
                    return []
                raise

    def stamp(self, source: str, target: str) -> str | None:
        """The stamp the pair was compiled with, or None when the file holds no such pair."""
        rows = self._rows("SELECT stamp FROM pairs WHERE source = ? AND target = ?", (source, target))
        return rows[0][0] if rows else None

    def lookup(self, source: str, target: str, keys: Iterable[str]) -> dict[str, list[str]]:
        """The translations filed under each of `keys` that the pair holds."""
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return {}
        rows = self._rows(f"SELECT key, translations FROM words WHERE source = ? AND target = ? "
                          f"AND key IN ({','.join('?' * len(wanted))})", (source, target, *wanted))
        return {key: translations.split("\t") for key, translations in rows}

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def stamp(path: Path, source: str, target: str) -> str | None:
    """A pair's stamp, read once (LexiconReader.stamp, without keeping a connection)."""
    reader = LexiconReader(path)
    try:
        return reader.stamp(source, target)
    finally:
        reader.close()


def write_pair(path: Path, source: str, target: str, words: Mapping[str, Sequence[str]], *, stamp: str) -> None:
    """Replace the pair's words (key -> translations, best first) and stamp, in one transaction."""
    conn = _connect(path)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("DELETE FROM words WHERE source = ? AND target = ?", (source, target))
        conn.executemany("INSERT INTO words VALUES (?, ?, ?, ?)",
                         ((source, target, key, "\t".join(list(found)[:KEPT_PER_WORD]))
                          for key, found in words.items() if found))
        conn.execute("INSERT OR REPLACE INTO pairs VALUES (?, ?, ?)", (source, target, stamp))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.close()
