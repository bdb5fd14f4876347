"""What a backup holds, written down when it is taken (`manifest.json`), and the checks that prove
a backup (or a store restored from one) is what it claims to be.

The manifest names the SHA-256 of the backup's database file and of every kept copy in its
`raw/`, the schema version and the counts of sources, messages and passages. A byte changed
anywhere since (a disk error, a hand edit) shows up as a digest that differs. Beyond the
digests, `index_differences` rebuilds the keyword index of the passages in a temporary table and
compares the two term by term: the index is contentless (storage/schema/languages.py), so
FTS5's own `integrity-check` proves only that the index is well formed, not that it agrees with
the text.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from storage.permissions import private_file

MANIFEST = "manifest.json"
FORMAT = 1
_BLOCK = 1 << 20
_SQLITE_CORRUPT = 11  # SQLite's primary code for a damaged file or index


class Connection(Protocol):  # sqlean's, sqlcipher3's or sqlite3's DB-API connection
    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...


@dataclass(frozen=True)
class Counts:
    sources: int
    messages: int
    passages: int

    def as_dict(self) -> dict[str, int]:
        return {"sources": self.sources, "messages": self.messages, "passages": self.passages}


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def counts(db: Connection) -> Counts:
    one = lambda sql: db.execute(sql).fetchone()[0]  # noqa: E731
    return Counts(sources=one("SELECT COUNT(*) FROM documents"), messages=one("SELECT COUNT(*) FROM messages"),
                  passages=one("SELECT COUNT(*) FROM chunks"))


def schema_version(db: Connection) -> int:
    return db.execute("SELECT COALESCE(MAX(number), 0) FROM _migrations").fetchone()[0]


def describe(db: Connection) -> dict:
    """What a manifest says of the database's content."""
    return {"schema_version": schema_version(db), "counts": counts(db).as_dict()}


def write_manifest(folder: Path, *, database: Path, raw_dir: Path, content: dict) -> Path:
    """Describe the backup in `folder`: its database (closed, so every page is in the file), its
    kept copies, and `content` (from `describe`)."""
    manifest = {
        "format": FORMAT,
        "written_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **content,
        "database": {"name": database.name, "sha256": file_sha256(database), "bytes": database.stat().st_size},
        "raw": {p.name: file_sha256(p) for p in sorted(raw_dir.iterdir()) if p.is_file()}
               if raw_dir.is_dir() else {},
    }
    path = folder / MANIFEST
    partial = private_file(path.with_name(path.name + ".part"))
    partial.write_text(json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8")
    partial.replace(path)
    return path


def read_manifest(folder: Path) -> dict | None:
    """The manifest of the backup in `folder`; None when it has none (taken by an older version).
    A manifest that is not JSON reads as empty, so every check against it fails by name."""
    path = folder / MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def file_differences(manifest: dict, *, database: Path, raw_dir: Path) -> list[str]:
    """What in the backup's files differs from its manifest, one line each (empty: all match)."""
    if manifest.get("format") != FORMAT:
        return ["the manifest cannot be read (not written by this version, or damaged)"]
    problems = []
    expected_db = manifest.get("database") or {}
    if file_sha256(database) != expected_db.get("sha256"):
        problems.append(f"the database {database.name} differs from its manifest (SHA-256)")
    expected_raw: dict = manifest.get("raw") or {}
    present = {p.name: p for p in raw_dir.iterdir() if p.is_file()} if raw_dir.is_dir() else {}
    for name, digest in sorted(expected_raw.items()):
        if name not in present:
            problems.append(f"the kept copy raw/{name} is missing")
        elif file_sha256(present[name]) != digest:
            problems.append(f"the kept copy raw/{name} differs from its manifest (SHA-256)")
    problems += [f"raw/{name} is not in the manifest" for name in sorted(set(present) - set(expected_raw))]
    return problems


def content_differences(manifest: dict, db: Connection) -> list[str]:
    """The schema version and the counts of `db` against the manifest's."""
    problems = []
    if manifest.get("schema_version") != schema_version(db):
        problems.append(f"schema version {schema_version(db)}, the manifest says {manifest.get('schema_version')}")
    found, expected = counts(db).as_dict(), manifest.get("counts") or {}
    problems += [f"{name}: {found[name]}, the manifest says {expected.get(name)}"
                 for name in found if found[name] != expected.get(name)]
    return problems


def index_differences(db: Connection, *, writable: bool, limit: int = 5) -> list[str]:
    """Where the keyword index and the passages' text disagree (empty: they agree). `db` must have
    `keyword_terms` registered (storage/keyword/terms.py). Costs a rebuild of the index in memory.
    FTS5's `integrity-check` counts as a write, so it runs only where `db` is `writable`."""
    problems = [f"keyword index: {row[0]}" for row in _fts_integrity(db)] if writable else []
    db.execute("DROP TABLE IF EXISTS temp.expected_fts")
    db.execute("CREATE VIRTUAL TABLE temp.expected_fts USING fts5(text, content='', tokenize='ascii')")
    try:
        db.execute("INSERT INTO temp.expected_fts (rowid, text) SELECT id, keyword_terms(text, language) FROM chunks")
        db.execute("CREATE VIRTUAL TABLE temp.found_terms USING fts5vocab(main, chunks_fts, row)")
        db.execute("CREATE VIRTUAL TABLE temp.expected_terms USING fts5vocab(temp, expected_fts, row)")
        # term, number of passages, number of occurrences: a changed word changes some term's counts
        differing = [row[0] for row in db.execute(
            "SELECT term FROM (SELECT * FROM temp.found_terms EXCEPT SELECT * FROM temp.expected_terms)"
            " UNION SELECT term FROM (SELECT * FROM temp.expected_terms EXCEPT SELECT * FROM temp.found_terms)"
            " LIMIT 1000")]
        if differing:
            problems.append(f"the keyword index disagrees with the text of the passages with ids "
                            f"{_passages_with(db, differing, limit=limit)}")
    finally:
        for table in ("found_terms", "expected_terms", "expected_fts"):
            db.execute(f"DROP TABLE IF EXISTS temp.{table}")
    return problems


def _fts_integrity(db: Connection) -> list[tuple[str]]:
    try:
        db.execute("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 0)")
    except Exception as error:  # noqa: BLE001 - each DB-API module has its own error class
        if getattr(error, "sqlite_errorcode", 0) & 0xFF != _SQLITE_CORRUPT:
            raise
        return [(str(error),)]
    return []


def _passages_with(db: Connection, terms: list[str], *, limit: int) -> str:
    """The ids of the passages whose terms differ, for the message."""
    db.execute("CREATE VIRTUAL TABLE temp.found_places USING fts5vocab(main, chunks_fts, instance)")
    db.execute("CREATE VIRTUAL TABLE temp.expected_places USING fts5vocab(temp, expected_fts, instance)")
    try:
        marks = ",".join("?" * len(terms))
        ids = [row[0] for row in db.execute(
            f"SELECT doc FROM (SELECT * FROM temp.found_places WHERE term IN ({marks})"
            f" EXCEPT SELECT * FROM temp.expected_places WHERE term IN ({marks}))"
            f" UNION SELECT doc FROM (SELECT * FROM temp.expected_places WHERE term IN ({marks})"
            f" EXCEPT SELECT * FROM temp.found_places WHERE term IN ({marks})) ORDER BY doc",
            terms * 4)]
    finally:
        db.execute("DROP TABLE IF EXISTS temp.found_places")
        db.execute("DROP TABLE IF EXISTS temp.expected_places")
    shown = ", ".join(str(i) for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")
