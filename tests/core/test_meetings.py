"""First meetings in questions (core/memory/meetings.py), and the oldest passages naming the
person through a real store (storage.chunks.earliest_matching_sync, search.py's meeting round)."""

from __future__ import annotations

import pytest

from core.memory.meetings import asks_meeting
from tests.core.helpers import memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder


@pytest.mark.parametrize("query", [
    "When did I meet Lukas?", "When did Zosia first meet Javi?", "How long after meeting Lukas did we move in?",
    "How long had Mélodie known Callum when he met her parents?", "Where did I get to know Ana?",
    "Wann habe ich Lukas kennengelernt?", "Quand ai-je rencontré Callum ?", "¿Cuándo conocí a Lukas?",
    "Quando conheci o Rui?", "Kiedy poznałam Javiego?", "Hoe heb ik Sanne leren kennen?",
])
def test_a_question_about_meeting_someone(query: str) -> None:
    assert asks_meeting(query)


@pytest.mark.parametrize("query", [
    "When did I move to Berlin?", "Where does Lukas work now?", "What did Maya say about the concert?",
    "Who recommended Pachinko?", "How old was I when I moved?",
])
def test_a_question_about_something_else(query: str) -> None:
    assert not asks_meeting(query)


NOTICE = ("01/01/2022, 09:00 - Messages and calls are end-to-end encrypted. No one outside of this chat, "
          "not even WhatsApp, can read or listen to them. Tap to learn more.")


async def test_the_first_passage_naming_someone_answers_when_they_were_met(tmp_path, monkeypatch):
    from core.memory import search

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "journal 2022.md").write_text(
        "# Journal 2022\n\n## 2022-01-15\n\nDanced at the ceilidh with a tall teacher called Callum.\n", encoding="utf-8")
    lines = [NOTICE]
    for day in range(1, 28):  # later, his own chat, every evening: his name in every window
        lines += [f"{day:02d}/03/2022, 19:00 - Ana: Pub at {day % 12 + 1}, Callum?",
                  f"{day:02d}/03/2022, 19:05 - Callum: Yes! See you there, {day} times over"]
    whatsapp_export(inbox / "WhatsApp Chat with Callum.txt", lines)
    question = "When did Ana first meet Callum?"
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([inbox])
        assert (await memory.searcher.understand(question)).intent.people == ("Callum",)
        found = "\n".join(h.text for h in await memory.search(question, limit=2))
        assert "tall teacher called Callum" in found
        monkeypatch.setattr(search, "MEETING_DEPTH", 0)
        assert "tall teacher called Callum" not in "\n".join(h.text for h in await memory.search(question, limit=2))
