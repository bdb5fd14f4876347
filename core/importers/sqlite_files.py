"""Other programs' SQLite databases (iMessage's chat.db, WhatsApp's ChatStorage.sqlite), opened
read-only so that nothing of theirs is ever changed."""

from __future__ import annotations

from pathlib import Path

import sqlean

SQLITE_MAGIC = b"SQLite format 3\x00"


def read_only_uri(path: Path, *, immutable: bool = False) -> str:
    """The database as a read-only URI. A file URI made from the path itself, as `file:{path}`
    would be, breaks on a folder named with `#` or `?`."""
    return path.resolve().as_uri() + "?mode=ro" + ("&immutable=1" if immutable else "")


def table_names(path: Path) -> set[str] | None:
    """The tables of a SQLite file, or None when it cannot be read as one (for a sniff)."""
    try:
        conn = sqlean.connect(read_only_uri(path), uri=True)
        try:
            return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            conn.close()
    except sqlean.DatabaseError:
        return None
