"""Forgetting erases: after `forget`, the source's words are in no byte of the store, of its
write-ahead log, or of any backup taken before; its raw copy is gone from raw/ and from the
backups; people known only from it are gone."""

from __future__ import annotations

import json
from pathlib import Path

from bot.cli import main
from core.memory.sources import forget_source
from storage import people as people_store
from storage.db import store_files
from tests.core.helpers import memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder

SECRET_NOTE = "Our secret word is Quokkaplanted; we meet at Zanzibarhouse on Friday."
SECRET_CHAT = [
    "05/03/2024, 21:07 - Xylophonist Planted: the code is Vexillumword",
    "05/03/2024, 21:08 - Ana: got it",
]
KEPT = "The harbour walk on Sunday was lovely."
# fragments of the planted words (and of their porter stems, as the keyword index keeps them)
FRAGMENTS = [b"quokkapla", b"kkapla", b"zanzibarh", b"zibarh", b"vexillumw", b"illumw", b"xylophoni", b"ophoni"]


def planted_in(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        if path.exists():
            data = path.read_bytes().lower()
            found += [f"{path.name}: {f.decode()}" for f in FRAGMENTS if f in data]
    return found


def write_sources(tmp_path: Path) -> list[Path]:
    (tmp_path / "secret.txt").write_text(SECRET_NOTE, encoding="utf-8")
    (tmp_path / "kept.txt").write_text(KEPT, encoding="utf-8")
    chat = whatsapp_export(tmp_path / "WhatsApp Chat with Xylophonist.txt", SECRET_CHAT)
    return [tmp_path / "secret.txt", chat, tmp_path / "kept.txt"]


async def test_forgotten_words_are_in_no_byte_of_the_store_or_its_wal(tmp_path: Path):
    data = tmp_path / "data"
    async with memory_at(data, HashEmbedder()) as memory:
        await memory.ingest(write_sources(tmp_path))
        database = data / "biographer.sqlite3"
        assert planted_in(store_files(database))  # the test can see them before

        for document_id in (1, 2):
            await forget_source(memory.conn, document_id)

        assert planted_in(store_files(database)) == []  # while the store is open (WAL in use)
        people = [p.name for p in await people_store.list_people(memory.conn)]
        assert "Xylophonist Planted" not in people and "Ana" not in people
        assert [h.document for h in await memory.search("harbour walk", mode="keyword")] == ["kept.txt"]
    assert planted_in(store_files(database)) == []


def test_forget_removes_the_source_from_every_backup_too(tmp_path: Path, capsys):
    data = tmp_path / "data"
    sources = write_sources(tmp_path)
    assert main(["ingest", "--no-index", *map(str, sources)]) == 0
    assert main(["backup"]) == 0
    assert main(["backup"]) == 0
    backups = sorted((data / "backups").glob("biographer-*"))
    assert len(backups) == 2 and all(planted_in([b / "biographer.sqlite3"]) for b in backups)
    secret_raw = {p.name for p in (data / "raw").iterdir() if p.read_bytes() == SECRET_NOTE.encode()}
    capsys.readouterr()

    assert main(["forget", "1", "--yes"]) == 0
    out = capsys.readouterr().out
    assert main(["forget", "2", "--yes"]) == 0

    assert "2 backups" in out
    for backup in backups:
        assert planted_in([p for p in backup.rglob("*") if p.is_file()]) == []
        assert not secret_raw & {p.name for p in (backup / "raw").iterdir()}
        assert len(list((backup / "raw").iterdir())) == 1  # kept.txt's copy stays
    assert planted_in(store_files(data / "biographer.sqlite3")) == []
    capsys.readouterr()
    assert main(["search", "harbour", "--mode", "keyword", "--json"]) == 0
    assert [h["document"] for h in json.loads(capsys.readouterr().out)] == ["kept.txt"]


async def test_forget_erases_while_another_task_reads_through_the_same_connection(tmp_path: Path):
    """The bot shares one connection: a chat's query still being read must not make the forget
    fail (the log can only be emptied once that query is done)."""
    import asyncio

    data = tmp_path / "data"
    async with memory_at(data, HashEmbedder()) as memory:
        await memory.ingest(write_sources(tmp_path))
        reading = await memory.conn.execute("SELECT id FROM chunks")
        await reading.fetchone()  # a statement left open, as a search between two fetches
        forgetting = asyncio.create_task(forget_source(memory.conn, 1))
        await asyncio.sleep(0.3)
        await reading.close()
        await forgetting
        await forget_source(memory.conn, 2)
        assert planted_in(store_files(data / "biographer.sqlite3")) == []
