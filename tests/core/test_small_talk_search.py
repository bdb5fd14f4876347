"""Small talk weighs little through a real store: the indexer measures each chunk's share of it
over its document (core/memory/indexer.py, storage column of migration 180), and hybrid search
ranks a window of its own above windows of repeated chatter that match the words better."""

from __future__ import annotations

import pytest

from storage import chunks as chunk_store
from tests.core.helpers import memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder

NOTICE = ("01/01/2024, 09:00 - Messages and calls are end-to-end encrypted. No one outside of this chat, "
          "not even WhatsApp, can read or listen to them. Tap to learn more.")


def _chat(folder):
    folder.mkdir()
    lines = [NOTICE]
    for day in range(1, 21):  # twenty evenings of the same chatter, each its own window
        lines += [f"{day:02d}/02/2024, 19:00 - Clara: Long day at work",
                  f"{day:02d}/02/2024, 19:05 - Ana: Call you tomorrow"]
        if day % 2:  # some evenings say more of the same
            lines += [f"{day:02d}/02/2024, 19:06 - Clara: Sounds good, sleep well and talk soon then"]
    for day in range(1, 29):  # and of other chatter, mornings and evenings
        lines += [f"{day:02d}/03/2024, 08:00 - Clara: Morning! Coffee first", f"{day:02d}/03/2024, 08:01 - Ana: Same",
                  f"{day:02d}/03/2024, 22:00 - Clara: Good night", f"{day:02d}/03/2024, 22:01 - Ana: Sleep well"]
    lines += ["30/03/2024, 19:00 - Clara: I work as a midwife now",
              "30/03/2024, 19:05 - Ana: Call you tomorrow"]
    return whatsapp_export(folder / "WhatsApp Chat with Clara.txt", lines)


async def _measured(conn) -> dict[int, float | None]:
    async with conn.execute("SELECT id, small_talk FROM chunks") as cur:
        return dict(await cur.fetchall())


@pytest.mark.parametrize("mode", ["hybrid"])
async def test_a_window_of_its_own_outranks_repeated_chatter(tmp_path, mode):
    _chat(tmp_path / "inbox")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "inbox"])
        talk = await _measured(memory.conn)
        assert len(talk) == 77 and sorted(talk.values()).count(1.0) == 76  # every chatter window
        hits = await memory.search("work tomorrow", limit=1, mode=mode)
        assert "midwife" in hits[0].text
        # keyword search alone ranks by the words: the short windows of chatter match them best
        keyword = await memory.search("work tomorrow", limit=1, mode="keyword")
        assert "midwife" not in keyword[0].text


async def test_a_store_made_before_the_measure_is_measured_by_indexing(tmp_path):
    _chat(tmp_path / "inbox")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "inbox"])
        await memory.conn.execute("UPDATE chunks SET small_talk = NULL")
        await memory.conn.commit()
        assert set((await _measured(memory.conn)).values()) == {None}
        assert await chunk_store.unmeasured_documents(memory.conn, limit=10)
        await memory.index_pending()  # `biographer reindex --pending`: nothing to embed, all measured
        assert None not in (await _measured(memory.conn)).values()
        assert not await chunk_store.unmeasured_documents(memory.conn, limit=10)


async def test_a_journal_measured_in_lines_is_measured_again_in_sentences(tmp_path):
    # a store made before migration 188 counted a journal's small talk in whole lines, of which
    # it says none twice; its chats' shares stand
    from storage.schema.small_talk import m188_prose_small_talk_in_sentences

    _chat(tmp_path / "inbox")
    entries = "\n\n".join(f"## 2024-01-{d:02d}\n\nTired but happy. Walked {d} km by the river. Slept badly."
                          for d in range(1, 21))
    (tmp_path / "inbox" / "journal 2024.md").write_text(f"# Journal 2024\n\n{entries}\n", encoding="utf-8")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "inbox"])
        async with memory.conn.execute("SELECT c.id, d.kind FROM chunks c JOIN documents d ON d.id = c.document_id") as cur:
            kinds = dict(await cur.fetchall())
        measured = await _measured(memory.conn)
        journal = [cid for cid, kind in kinds.items() if kind == "markdown"]
        assert len(journal) >= 10 and min(measured[cid] for cid in journal) > 0.3  # two sentences of three, in every entry
        await memory.conn.execute("UPDATE chunks SET small_talk = 0.0 WHERE id IN (%s)" % ",".join(map(str, journal)))
        await m188_prose_small_talk_in_sentences(memory.conn)
        await memory.conn.commit()
        again = await _measured(memory.conn)
        assert all(again[cid] is None for cid in journal)
        assert all(again[cid] == measured[cid] for cid, kind in kinds.items() if kind != "markdown")
        await memory.index_pending()
        assert await _measured(memory.conn) == measured
