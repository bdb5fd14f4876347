"""The memory core end to end over a real SQLite store (FTS5 and the sign-bit vector index), with a test embedder."""

import asyncio
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.errors import EmbeddingModelMismatch, LocatorError, UserFacingError
from core.types import Locator, SearchFilters
from tests.core.helpers import MAYA_CHAT, memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder, OtherHashEmbedder

JOURNAL = """# Journal

Today I finally repaired the old bicycle. The chain was rusty and the brakes squeaked.

Grandmother called about the garden; the lemon tree has flowers again.
"""


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    folder = tmp_path / "inbox"
    folder.mkdir()
    whatsapp_export(folder / "WhatsApp Chat with Maya.txt", MAYA_CHAT)
    (folder / "2024-03-10 journal.md").write_text(JOURNAL, encoding="utf-8")
    return folder


async def test_ingest_saves_documents_messages_and_chunks(tmp_path, sources):
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        report = await memory.ingest([sources])
        stats = await memory.stats()
    assert report.errors == []
    assert report.documents_added == 2
    assert report.messages_added == 5  # the encryption notice is not a message
    assert stats["chunks_pending_index"] == 0
    assert stats["embedding_model"] == "hash-test"
    assert set(stats["by_kind"]) == {"whatsapp", "markdown"}


async def test_messages_keep_sender_owner_flag_and_original_time(tmp_path, sources):
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([sources])
        async with memory.conn.execute(
            "SELECT sender, is_owner, time, utc_offset_minutes, text FROM messages ORDER BY time"
        ) as cur:
            rows = [tuple(r) for r in await cur.fetchall()]
    assert rows[0] == ("Ana", 1, "2024-03-05T21:07:00Z", 0, "Did you book the ferry to Tavira?")
    assert rows[1][:2] == ("Maya", 0)
    assert rows[-1][4] == "Brutal. Knee hurts again, booking the physio\nand the dentist too"


async def test_reingesting_the_same_files_adds_nothing(tmp_path, sources):
    embedder = HashEmbedder()
    async with memory_at(tmp_path / "data", embedder) as memory:
        await memory.ingest([sources])
        calls = len(embedder.calls)
        again = await memory.ingest([sources])
        stats = await memory.stats()
    assert again.documents_added == 0 and again.documents_skipped == 2
    assert len(embedder.calls) == calls  # nothing new to embed
    assert stats["documents"] == 2


async def test_an_overlapping_newer_export_adds_only_new_messages(tmp_path):
    older = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", MAYA_CHAT[:4])
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([older])
        newer_dir = tmp_path / "newer"
        newer_dir.mkdir()
        newer = whatsapp_export(newer_dir / "WhatsApp Chat with Maya.txt", MAYA_CHAT)
        report = await memory.ingest([newer])
        stats = await memory.stats()
    assert report.messages_added == 2 and report.messages_skipped == 3
    assert stats["messages"] == 5


async def test_identical_chunk_text_is_embedded_once(tmp_path):
    shared = "A paragraph both files share. " * 25 + "\n\n"
    (tmp_path / "a.txt").write_text(shared + "Then the first file goes on. " * 10, encoding="utf-8")
    (tmp_path / "b.md").write_text(shared + "The second file says other things. " * 10, encoding="utf-8")
    embedder = HashEmbedder()
    async with memory_at(tmp_path / "data", embedder) as memory:
        await memory.ingest([tmp_path / "a.txt", tmp_path / "b.md"])
        stats = await memory.stats()
    assert stats["documents"] == 2 and stats["chunks_pending_index"] == 0
    embedded = [t for call in embedder.calls for t in call]
    assert len(embedded) == stats["chunks"] - 1
    assert embedded.count(shared.strip()) == 1 or embedded.count(shared) == 1


async def test_a_store_refuses_another_embedding_model_until_reindexed(tmp_path, sources):
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([sources])
    async with memory_at(tmp_path / "data", OtherHashEmbedder()) as memory:
        with pytest.raises(EmbeddingModelMismatch) as error:
            await memory.search("ferry")
        assert "biographer reindex" in error.value.hint
        with pytest.raises(EmbeddingModelMismatch):
            await memory.ingest([sources])
        assert await memory.search("ferry", mode="keyword")  # keyword search needs no model
        assert await memory.reindex() == (await memory.stats())["chunks"]
        assert (await memory.stats())["embedding_model"] == "hash-test-2"
        assert await memory.search("ferry Tavira", mode="semantic")


async def test_keyword_search_finds_names_and_rare_words(tmp_path, sources):
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([sources])
        hits = await memory.search("What did Maya say about Tavira?", mode="keyword")
        assert hits and "Tavira" in hits[0].text
        assert hits[0].kind == "whatsapp" and hits[0].document == "WhatsApp with Maya"
        assert hits[0].speakers == ("Ana", "Maya")
        assert hits[0].time_start == datetime(2024, 3, 5, 21, 7, tzinfo=timezone.utc)
        # a query of stop words alone is searched as it is, rather than answered with nothing
        assert await memory.search("the and", mode="keyword")


async def test_hybrid_ranks_chunks_found_by_both_lists_first(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    # "orchard" appears in three notes; only one also shares many words with the query
    (folder / "a.txt").write_text("orchard visit with apples and pears and plums", encoding="utf-8")
    (folder / "b.txt").write_text("the orchard", encoding="utf-8")
    (folder / "c.txt").write_text("apples pears plums cherries harvest basket", encoding="utf-8")
    (folder / "d.txt").write_text("orchard orchard orchard fence", encoding="utf-8")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([folder])
        query = "orchard apples pears plums"
        keyword = [h.document for h in await memory.search(query, mode="keyword")]
        semantic = [h.document for h in await memory.search(query, mode="semantic")]
        hybrid = await memory.search(query, mode="hybrid")
    assert hybrid[0].document == "a.txt"
    assert set(keyword) == {"a.txt", "b.txt", "c.txt", "d.txt"}
    assert semantic[0] == "a.txt"
    assert hybrid[0].score > hybrid[1].score
    assert len(hybrid) >= 2


@pytest.mark.parametrize("spare", [0.0, 1.5], ids=["halves back to back", "halves at once"])
async def test_a_query_vector_in_hand_ranks_the_same_whether_the_halves_run_at_once_or_not(
        tmp_path, sources, monkeypatch, spare):
    """With the query's vector given, the halves run at once when a core is free and back to
    back when none is; either way search gives what it gives when it embeds the query itself."""
    import core.memory.search

    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([sources])
        await memory.warm_up()
        query = "knee physio long run"
        embedded = await memory.search(query)
        monkeypatch.setattr(core.memory.search, "spare_cores", lambda: spare)
        given = await memory.searcher.search(query, query_vector=HashEmbedder().embed([query], query=True)[0])
    assert [(h.locator, round(h.score, 6)) for h in given] == [(h.locator, round(h.score, 6)) for h in embedded]
    assert given


async def test_search_limit_and_bad_mode(tmp_path, sources):
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([sources])
        assert len(await memory.search("Maya Ana ferry run", limit=1)) == 1
        with pytest.raises(UserFacingError):
            await memory.search("x", mode="fuzzy")
        with pytest.raises(UserFacingError):
            await memory.search("   ")


async def test_filters_by_kind_person_and_date(tmp_path, sources):
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([sources])
        lisbon = datetime(2024, 3, 10).astimezone()
        by_kind = await memory.search("bicycle ferry", filters=SearchFilters(kinds=("markdown",)))
        assert by_kind and {h.kind for h in by_kind} == {"markdown"}
        by_person = await memory.search("run knee ferry", filters=SearchFilters(person="maya"))
        assert by_person and all("Maya" in h.speakers for h in by_person)
        with pytest.raises(UserFacingError, match="no one called 'Nobody'"):
            await memory.search("ferry", filters=SearchFilters(person="Nobody"))
        # other agents and the model learn nothing of who is in the store from a wrong name
        assert await memory.search("ferry", filters=SearchFilters(person="Nobody"), explain_filters=False) == []
        late = await memory.search("long run knee ferry", filters=SearchFilters(
            since=datetime(2024, 3, 12, tzinfo=timezone.utc)))
        assert late and all(h.time_start >= datetime(2024, 3, 12, tzinfo=timezone.utc) for h in late)
        early = await memory.search("long run knee ferry", mode="keyword", filters=SearchFilters(
            until=datetime(2024, 3, 6, tzinfo=timezone.utc), kinds=("whatsapp",)))
        assert [h.text.count("ferry") for h in early] == [1]
        assert lisbon  # the journal dated by its name is inside the range of by_kind


async def test_grep_finds_every_occurrence_paginated_in_time_order(tmp_path):
    lines = [f"0{d}/04/2024, 10:00 - Maya: coffee number {d}" for d in range(1, 10)]
    lines += ["09/04/2024, 11:00 - Ana: no COFFEE today, decaf only"]
    export = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", lines)
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([export])
        first = await memory.grep("coffee", page_size=4)
        second = await memory.grep("coffee", page_size=4, page=2)
        last = await memory.grep("coffee", page_size=4, page=3)
        oldest = await memory.grep("coffee", page_size=4, newest_first=False)
        regex = await memory.grep(r"number [1-3]\b", regex=True)
        partial = await memory.grep("coff")
        source = await memory.read(first.matches[0].locator)
    assert first.total == 10 and first.has_more and not last.has_more
    assert [len(p.matches) for p in (first, second, last)] == [4, 4, 2]
    assert "decaf" in first.matches[0].line
    assert oldest.matches[0].line.endswith("coffee number 1")
    assert first.matches[0].time == datetime(2024, 4, 9, 10, 0, tzinfo=timezone.utc)
    assert regex.total == 3
    assert partial.total == 0  # plain grep matches whole words
    assert source.text == "COFFEE"


async def test_grep_does_not_count_the_prose_overlap_twice(tmp_path):
    text = " ".join(f"w{i}" for i in range(130)) + " needle " + " ".join(f"v{i}" for i in range(400))
    (tmp_path / "long.txt").write_text(text, encoding="utf-8")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "long.txt"])
        page = await memory.grep("needle")
    assert page.total == 1


async def test_read_returns_exact_source_and_windows(tmp_path, sources):
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([sources])
        hit = (await memory.search("lemon tree garden", mode="keyword"))[0]
        exact = await memory.read(hit.locator)
        whole = await memory.read(Locator(hit.locator.document_id, 0, 10**9))
        around = await memory.read(
            Locator(hit.locator.document_id, JOURNAL.index("lemon"), JOURNAL.index("lemon") + 5), window=10)
        with pytest.raises(LocatorError):
            await memory.read("doc999:0-10")
        with pytest.raises(LocatorError):
            await memory.read("not-a-locator")
    assert exact.text.strip() == hit.text
    assert whole.text == JOURNAL
    # a window grows to whole lines: the line that holds "lemon", exactly, with its true range
    line_start = JOURNAL.rfind("\n", 0, JOURNAL.index("lemon")) + 1
    line_end = JOURNAL.find("\n", JOURNAL.index("lemon"))
    assert around.text == JOURNAL[line_start:line_end]
    assert (around.locator.char_start, around.locator.char_end) == (line_start, line_end)


async def test_read_rebuilds_long_documents_from_overlapping_chunks(tmp_path):
    text = "\n\n".join(f"Paragraph {i}: " + " ".join(f"word{i}_{j}" for j in range(60)) for i in range(30))
    (tmp_path / "long.md").write_text(text, encoding="utf-8")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "long.md"])
        stats = await memory.stats()
        whole = await memory.read("doc1:0-999999")
        middle = await memory.read("doc1:5000-6000")
    assert stats["chunks"] > 5
    assert whole.text == text
    assert middle.text == text[5000:6000]


async def test_bad_files_fail_alone_with_a_clear_reason(tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "empty.txt").write_text("", encoding="utf-8")
    (folder / "binary.txt").write_bytes(b"\x00\x01\x02binary" * 100)
    (folder / "latin1.txt").write_bytes("caf\xe9 au lait".encode("latin-1"))
    (folder / "photo.xyz").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 50)
    (folder / "good.txt").write_text("A good note about the harbour.", encoding="utf-8")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        report = await memory.ingest([folder, tmp_path / "missing.txt"])
        stats = await memory.stats()
    assert report.documents_added == 1 and stats["documents"] == 1
    assert len(report.errors) == 5
    joined = "\n".join(report.errors)
    for name, reason in [("empty.txt", "empty"), ("binary.txt", "binary"), ("latin1.txt", "UTF-8"),
                         ("photo.xyz", "not a format"), ("missing.txt", "does not exist")]:
        assert any(name in e and reason in e for e in report.errors), (name, joined)
    assert all("\n" not in e for e in report.errors)


async def test_an_interrupted_ingest_leaves_nothing_half_written_and_resumes(tmp_path):
    lines = [f"01/05/2024, {h:02d}:{m:02d} - Maya: message {h}-{m} " + "text " * 30
             for h in range(24) for m in range(0, 60, 2)]
    export = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", lines)
    (tmp_path / "note.txt").write_text("first file, saved before the interruption", encoding="utf-8")

    from core.memory import ingest as ingest_module
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "note.txt"])
        original = ingest_module.MESSAGE_BATCH
        ingest_module.MESSAGE_BATCH = 50  # many batches, so the cancel lands mid-document
        try:
            task = asyncio.create_task(memory.ingest([export]))
            while True:  # wait until the document is being written, then "press Ctrl-C"
                await asyncio.sleep(0.001)
                async with memory.conn.execute("SELECT COUNT(*) FROM messages") as cur:
                    if (await cur.fetchone())[0] > 0 or task.done():
                        break
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        finally:
            ingest_module.MESSAGE_BATCH = original
        stats = await memory.stats()
        assert stats["documents"] == 1 and stats["messages"] == 0  # the chat rolled back whole
        report = await memory.ingest([export, tmp_path / "note.txt"])
        stats = await memory.stats()
    assert report.documents_added == 1 and report.documents_skipped == 1
    assert stats["messages"] == len(lines)


async def test_embedding_is_resumable_and_pending_chunks_are_keyword_searchable(tmp_path, sources):
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([sources], index=False)
        stats = await memory.stats()
        assert stats["chunks_pending_index"] == stats["chunks"] > 0
        assert await memory.search("Tavira", mode="keyword")
        assert await memory.search("Tavira", mode="semantic") == []
        assert await memory.index_pending() == stats["chunks"]
        assert (await memory.stats())["chunks_pending_index"] == 0
        assert await memory.search("Tavira ferry", mode="semantic")


def test_search_hit_json_has_the_public_fields():
    from core.types import SearchHit

    hit = SearchHit(locator=Locator(3, 10, 20), document="d", kind="text", text="t", score=0.5,
                    time_start=None, time_end=None, speakers=("A",))
    assert set(hit.to_json()) >= {"locator", "document", "kind", "text", "score", "time_start",
                                  "time_end", "speakers"}
    assert json.loads(json.dumps(hit.to_json()))["locator"] == "doc3:10-20"


async def test_text_streams_in_blocks_and_a_late_decoding_error_rolls_back(tmp_path, monkeypatch):
    from core.importers import text as text_module

    good = ("A line of a long journal. " * 40 + "\n\n") * 300  # ~300 KB
    (tmp_path / "utf16.txt").write_text("Grandmother's lemon tree.\n" * 3, encoding="utf-16")
    (tmp_path / "broken.txt").write_bytes(good.encode() + b"\xff\xfe broken tail")
    (tmp_path / "long.txt").write_text(good, encoding="utf-8")
    blocks_seen = []
    real = text_module.read_text_blocks

    def small_blocks(path, block_size=4096):
        for block in real(path, block_size=block_size):
            blocks_seen.append(len(block))
            yield block

    monkeypatch.setattr(text_module, "read_text_blocks", small_blocks)
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        report = await memory.ingest([tmp_path / "utf16.txt", tmp_path / "broken.txt", tmp_path / "long.txt"])
        stats = await memory.stats()
        whole = await memory.read("doc2:0-99999999")
    assert report.documents_added == 2
    assert report.errors == [report.errors[0]] and "broken.txt: is not valid UTF-8 text" in report.errors[0]
    assert max(blocks_seen) <= 4096 and len(blocks_seen) > 100
    assert stats["documents"] == 2
    assert whole.text == good.rstrip(" \n") or whole.text == good


async def test_concurrent_writers_on_one_connection_take_turns(tmp_path, sources):
    """Chat, imports and the scheduler share one connection in the bot: transactions must not
    nest. An ingest and other writes started together all land."""
    from storage.meta import get_meta, set_meta

    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        async def write(i: int) -> None:
            async with memory.conn.transaction():
                await set_meta(memory.conn, f"k{i}", str(i))
                await asyncio.sleep(0)

        await asyncio.gather(memory.ingest([sources]), *(write(i) for i in range(20)))
        assert [await get_meta(memory.conn, f"k{i}") for i in range(20)] == [str(i) for i in range(20)]
        assert (await memory.stats())["documents"] == 2


async def test_other_writes_go_through_while_a_big_import_is_still_embedding(tmp_path):
    """Embedding commits batch by batch, so a voice note or a forward saved meanwhile does not
    wait for the whole import (the bot imports in the background while the owner goes on)."""
    import time

    from core.types import SourceDocument

    class SlowEmbedder(HashEmbedder):
        def embed(self, texts, *, query=False):
            time.sleep(0.05)
            return super().embed(texts, query=query)

    text = "\n\n".join(f"Paragraph {i} about the harbour and the ferry." * 8 for i in range(400))
    (tmp_path / "long.txt").write_text(text, encoding="utf-8")
    async with memory_at(tmp_path / "data", SlowEmbedder()) as memory:
        memory.indexer.batch_size = 16
        importing = asyncio.create_task(memory.ingest([tmp_path / "long.txt"]))
        while (await memory.stats())["chunks"] == 0:  # saved, now embedding
            await asyncio.sleep(0.01)
        note = SourceDocument(kind="journal", name="voice note", identity="journal:test", text="Walked to the pier.")
        report = await memory.save([note], index=False)
        still_importing = not importing.done()
        await importing
    assert report.documents_added == 1 and still_importing


async def test_a_warm_process_keeps_the_vectors_only_within_its_budget(tmp_path, sources):
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([sources])
        await memory.warm_up(vector_memory_mb=0)  # BIOGRAPHER_SEARCH_VECTOR_MEMORY_MB=0
        index = await memory.searcher.vector_index()
        assert index._vectors is None
        read = await memory.search("knee physio")
        await memory.warm_up()
        assert index._vectors is not None
        kept = await memory.search("knee physio")
    assert [h.locator for h in kept] == [h.locator for h in read]


async def test_a_grown_export_embeds_only_the_text_it_did_not_have(tmp_path):
    """A real chat exported again months later (the same file, more messages at its end): no
    chunk text embedded by the first import is sent to the model again."""
    real = Path(__file__).resolve().parents[1] / "importers" / "data" / "whatsapp" / "en_android_polls.txt"
    lines = real.read_text(encoding="utf-8").splitlines()
    older = whatsapp_export(tmp_path / "WhatsApp Chat with Apeksha.txt", lines[:1500])
    embedder = HashEmbedder()
    async with memory_at(tmp_path / "data", embedder) as memory:
        await memory.ingest([older])
        first = {t for call in embedder.calls for t in call}
        embedder.calls.clear()
        (tmp_path / "later").mkdir()
        await memory.ingest([whatsapp_export(tmp_path / "later" / older.name, lines)])
        stats = await memory.stats()
    second = [t for call in embedder.calls for t in call]
    assert first and second  # both imports had text to embed
    assert not first & set(second)
    assert len(second) == len(set(second))
    assert stats["chunks_pending_index"] == 0
