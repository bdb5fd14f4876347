"""Forgetting a source removes everything taken from it, bio.md's history included."""

from pathlib import Path

import numpy as np

from core.memory.sources import forget_source, without_source
from storage import profile as profile_store
from storage import timeline as timeline_store
from tests.core.helpers import MAYA_CHAT, memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder


def test_lines_resting_on_the_source_alone_go_and_others_lose_its_citations():
    text = ("## People\n- Maya: ferry friend [doc1:0-50]\n- Teo: partner [doc1:0-50] [doc2:5-9]\n"
            "- Lisbon [doc12:1-2]")
    assert without_source(text, 1) == ("## People\n- Teo: partner [doc2:5-9]\n- Lisbon [doc12:1-2]", 1)


async def test_forget_removes_messages_vectors_raw_copy_timeline_and_profile_lines(tmp_path: Path):
    chat = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", MAYA_CHAT)
    (tmp_path / "note.txt").write_text("Teo moved to the studio in May.", encoding="utf-8")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([chat, tmp_path / "note.txt"])
        conn = memory.conn
        async with conn.transaction():
            before = "# bio.md\n\n## People\n- Maya books ferries [doc1:0-60]\n- Teo has a studio [doc2:0-20]\n"
            await profile_store.write_profile(conn, before="", after=before, at="2024-01-01T00:00:00Z",
                                              kind="edit", section="People", old_text="",
                                              new_text="- Maya books ferries [doc1:0-60]", run_id=None,
                                              locators=["doc1:0-60"])
            await timeline_store.add_event(conn, date="2024-03", title="Ferry to Tavira", detail="",
                                           locators=["doc1:0-60"], run_id=None, at="2024-01-01T00:00:00Z")
            await timeline_store.add_event(conn, date="2024-05", title="Studio", detail="",
                                           locators=["doc1:0-60", "doc2:0-20"], run_id=None,
                                           at="2024-01-01T00:00:00Z")
        raw = (await conn.execute_fetchall("SELECT raw_path FROM documents WHERE id = 1"))[0][0]
        assert Path(raw).exists()

        gone = {r[0] for r in await conn.execute_fetchall("SELECT id FROM chunks WHERE document_id = 1")}
        forgotten = await forget_source(conn, 1)
        parts = [np.frombuffer(r[0], dtype="<i8").tolist()
                 for table in ("vector_parts", "vector_codes") for r in await conn.execute_fetchall(f"SELECT ids FROM {table}")]

        stats = await memory.stats()
        history = await profile_store.all_history(conn)
        events = await timeline_store.list_events(conn)
        vectors = (await conn.execute_fetchall("SELECT COUNT(*) FROM chunk_embeddings"))[0][0]
        hits = await memory.search("ferry Tavira", mode="keyword")
    assert forgotten.profile_lines == 1 and forgotten.timeline_events == 1
    assert stats["documents"] == 1 and stats["messages"] == 0 and vectors == stats["chunks"]
    assert not Path(raw).exists()
    assert history[-1].profile_after == "# bio.md\n\n## People\n- Teo has a studio [doc2:0-20]\n"
    assert await profile_store_text(tmp_path) == history[-1].profile_after
    assert all("ferries" not in (h.old_text + h.new_text + h.profile_before + h.profile_after) for h in history)
    assert [(e.date, e.title, e.locators) for e in events] == [("2024-05", "Studio", ("doc2:0-20",))]
    assert hits == []
    assert gone and parts and not gone & {i for ids in parts for i in ids}  # nor their sign bits and bytes


async def profile_store_text(tmp_path: Path) -> str | None:
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        return await profile_store.get_profile(memory.conn)


def test_cli_forget_asks_for_confirmation_unless_told(tmp_path: Path, capsys):
    from bot.cli import main

    (tmp_path / "note.txt").write_text("A note to forget.", encoding="utf-8")
    data = str(tmp_path / "d")
    assert main(["--data-dir", data, "ingest", str(tmp_path / "note.txt")]) == 0
    assert main(["--data-dir", data, "sources"]) == 0
    listed = capsys.readouterr().out.strip().splitlines()[-1]
    assert listed.startswith("#1 note.txt (text) · ") and listed.endswith(" · 1 passage")
    assert main(["--data-dir", data, "forget", "1"]) == 2  # no terminal to confirm on
    assert "add --yes" in capsys.readouterr().err
    assert main(["--data-dir", data, "forget", "1", "--yes"]) == 0
    assert capsys.readouterr().out.strip() == "Forgot #1 note.txt."
    assert main(["--data-dir", data, "forget", "1", "--yes"]) == 2


def test_forget_reaches_citations_inside_a_bracket_of_several():
    from core.memory.sources import without_source

    bio = ("- Lives in Porto [doc1:0-10, doc2:5-9]\n"
           "- Moved for the bakery job [doc1:20-40; doc1:50-60]\n"
           "- Swims on Mondays [doc2:0-4]\n")
    text, removed = without_source(bio, 1)
    assert text == "- Lives in Porto [doc2:5-9]\n- Swims on Mondays [doc2:0-4]\n"
    assert removed == 1
