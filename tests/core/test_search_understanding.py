"""Search reads questions with the names its store knows: the owner's name is no keyword, a
person's own messages come first, a list question says it is one (core/memory/search.py over a
real store, through the query understanding and ranking rules)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.core.helpers import memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder

NOTICE = ("01/01/2024, 09:00 - Messages and calls are end-to-end encrypted. No one outside of this chat, "
          "not even WhatsApp, can read or listen to them. Tap to learn more.")


def _chats(folder: Path) -> Path:
    folder.mkdir()
    # Ana (the owner) writes her own name in both chats; only Teo's chat says where the dog is from
    whatsapp_export(folder / "WhatsApp Chat with Maya.txt", [
        NOTICE, "02/01/2024, 10:00 - Ana: Ana here, new number",
        "02/01/2024, 10:01 - Maya: my dog Pipoca loves the beach",
        *[f"0{d}/02/2024, 10:00 - Maya: groceries again, {d} eggs" for d in range(1, 9)]])
    whatsapp_export(folder / "WhatsApp Chat with Teo.txt", [
        NOTICE.replace("01/01/2024", "01/01/2023"), "02/01/2023, 10:00 - Ana: Ana again: the dog of mine sleeps",
        "03/01/2023, 10:00 - Teo: my dog Rex is from a shelter in Braga",
        *[f"0{d}/03/2023, 10:00 - Teo: ferry times, {d} boats" for d in range(1, 9)]])
    return folder


@pytest.mark.model
async def test_the_owners_name_ranks_nothing_and_a_persons_own_lines_come_first(tmp_path):
    # the real model: the semantic half embeds "What is their dog called?" (the names left to the
    # keyword half and the person rules), which a bag of hashed words cannot tell from the owner's dog
    from core.providers.local_embedder import OnnxEmbedder

    folder = _chats(tmp_path / "inbox")
    async with memory_at(tmp_path / "data", OnnxEmbedder()) as memory:
        await memory.ingest([folder])
        understood = await memory.searcher.understand("What is Maya's dog called, Ana?")
        assert "ana" in understood.names.owner and understood.intent.people == ("Maya",)
        assert "ana" in understood.intent.drop
        hits = await memory.search("What is Maya's dog called, Ana?", limit=1)
        assert "Pipoca" in hits[0].text
        hits = await memory.search("What is Teo's dog called?", limit=1)
        assert "Rex" in hits[0].text


async def test_a_list_question_says_so_and_returns_more_than_its_limit(tmp_path):
    folder = _chats(tmp_path / "inbox")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([folder])
        plain = await memory.search("groceries eggs", limit=1)
        listed = await memory.search("List every time Maya bought groceries", limit=1)
        assert len(plain) == 1 and not plain[0].exhaustive_list and "hint" not in plain[0].to_json()
        assert len(listed) > 1
        item = json.loads(json.dumps(listed[0].to_json()))
        assert item["exhaustive_list"] is True and "grep" in item["hint"]
        assert {"locator", "document", "kind", "text", "score", "time_start", "time_end", "speakers"} <= set(item)


async def test_only_the_hybrid_leaves_peoples_names_to_the_keyword_half_and_the_person_rules(tmp_path):
    folder = _chats(tmp_path / "inbox")
    embedder = HashEmbedder()
    async with memory_at(tmp_path / "data", embedder) as memory:
        await memory.ingest([folder])
        await memory.search("What is Teo's dog called, Ana?", limit=1)
        assert embedder.queries[-1] == "What is their dog called, I?"
        await memory.search("What is Teo's dog called, Ana?", limit=1, mode="semantic")
        assert embedder.queries[-1] == "What is Teo's dog called, I?"  # nothing else would keep Teo


def _teo_among_dog_people(folder: Path) -> Path:
    folder.mkdir()
    teo = [NOTICE]
    for day in range(1, 10):
        teo += [f"0{day}/03/2023, 10:0{m} - Teo: {text}" for m, text in enumerate(["ok Ana", "haha", "see you", "sure"])]
    teo.insert(12, "05/03/2023, 12:00 - Teo: we adopted a dog from the shelter in Braga, he is called Rex")
    whatsapp_export(folder / "WhatsApp Chat with Teo.txt", teo)
    whatsapp_export(folder / "WhatsApp Chat with Lia.txt",
                    [NOTICE, *[f"0{d}/04/2024, 10:00 - Lia: the dog park, dog walk {d}" for d in range(1, 10)]])
    whatsapp_export(folder / "WhatsApp Chat with Maya.txt",
                    [NOTICE, *[f"0{d}/05/2024, 10:00 - Maya: groceries {d}" for d in range(1, 10)]])
    return folder


async def test_a_person_who_speaks_in_few_chunks_has_their_own_round(tmp_path, monkeypatch):
    from core.memory import search
    from storage.chunks import ChunkFilter

    folder = _teo_among_dog_people(tmp_path / "inbox")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([folder])
        # keyword search alone: a bag of hashed words would find his line by "dog" and "from" anyway
        memory.searcher.embedder = None
        understood = await memory.searcher.understand("Where is Teo's dog from?")
        assert understood.intent.people == ("Teo",) and understood.apart == ("Teo",)
        # the store's keyword half holds only its first few: Lia's dog walks fill it, as it leaves
        # Teo's name to his round; his line reaches the results through that round
        monkeypatch.setattr(search, "HYBRID_DEPTH", 1)
        keyword = await memory.searcher.keyword("Where is Teo's dog from?", depth=5, where=ChunkFilter(), rounds=True)
        teos = await memory.searcher.keyword("Teo", depth=100, where=ChunkFilter())
        assert not {cid for cid, _ in keyword} & {cid for cid, _ in teos}
        hits = await memory.search("Where is Teo's dog from?", limit=1)
        assert "shelter in Braga" in hits[0].text
        monkeypatch.setattr(search, "PERSON_SHARE", 0.0)  # everyone speaks in more than that
        assert (await memory.searcher.understand("Where is Teo's dog from?")).apart == ()


async def test_a_person_in_most_of_the_store_has_no_round(tmp_path):
    folder = tmp_path / "inbox"
    folder.mkdir()
    whatsapp_export(folder / "WhatsApp Chat with Maya.txt", [
        NOTICE, *[f"0{d}/02/2024, 10:00 - Maya: groceries again, {d} eggs" for d in range(1, 9)]])
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([folder])
        understood = await memory.searcher.understand("What did Maya buy?")
        assert understood.intent.people == ("Maya",) and understood.apart == ()


async def test_bio_md_and_saved_contact_names_tell_who_the_owners_relatives_are(tmp_path):
    from storage import profile as profile_store

    folder = _chats(tmp_path / "inbox")
    whatsapp_export(folder / "WhatsApp Chat with Mum.txt", [
        NOTICE, "02/01/2024, 11:00 - Mum: the cat had kittens"])
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([folder])
        assert (await memory.searcher.understand("What did my mother say about the cat?")).intent.people == ("Mum",)
        assert (await memory.searcher.understand("What does my brother do?")).intent.people == ()
        async with memory.conn.transaction():
            await profile_store.write_profile(
                memory.conn, before="", after="# bio.md\n\n## People & Relationships\n- Teo: my brother, a vet\n",
                at="2024-05-01T00:00:00Z", kind="edit", section=None, old_text="", new_text="x",
                run_id=None, locators=[])
        # read again once the store has changed
        assert (await memory.searcher.understand("What does my brother do?")).intent.people == ("Teo",)


async def test_a_question_that_combines_two_facts_ranks_each_by_its_own_meaning(tmp_path, monkeypatch):
    from core.memory import ranking, search

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "2020.md").write_text("## 2020-05-12\n\nThirty years old today, I was spoiled.\n", encoding="utf-8")
    (inbox / "2023.md").write_text("## 2023-03-15\n\nMoved to Lisbon today.\n", encoding="utf-8")
    for d in range(1, 16):  # notes with a little of both facts
        (inbox / f"note {d}.md").write_text(f"## 2023-04-{d:02d}\n\nOld trams of Lisbon again, ride {d}.\n",
                                           encoding="utf-8")
    question = "How old was Ana when she moved to Lisbon?"
    embedder = HashEmbedder()
    given: list = []
    real_rank = ranking.rank

    def rank(*args, **kwargs):
        given.append(kwargs.get("clause_rounds", ()))
        return real_rank(*args, **kwargs)

    monkeypatch.setattr(ranking, "rank", rank)
    async with memory_at(tmp_path / "data", embedder) as memory:
        await memory.ingest([inbox])
        await memory.search(question, limit=2)
        # each fact embedded beside the whole question (the owner as "I"), in one call of the model
        assert embedder.queries == ["How old was I when she moved to Lisbon?", "How old was I", "she moved to Lisbon?"]
        texts = {cid: row.text for cid, row in (await memory.searcher.vector_index()).chunks(range(1, 18)).items()}
        monkeypatch.setattr(search, "CLAUSE_ROUNDS", False)
        embedder.queries.clear()
        await memory.search(question, limit=2)
        assert embedder.queries == ["How old was I when she moved to Lisbon?"] and given[1] == []
    # each fact ranked by its own meaning: the birthday first by the one, the move by the other
    first, second = given[0]
    assert "Thirty years old" in texts[first[0][0]] and "Moved to Lisbon today" in texts[second[0][0]]


async def test_a_question_for_things_in_the_plural_gets_more_than_its_limit_and_the_lists_hint(tmp_path):
    folder = _chats(tmp_path / "inbox")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([folder])
        one = await memory.search("What did Maya buy at the groceries?", limit=1)
        many = await memory.search("What groceries has Maya bought?", limit=1)
    assert len(one) == 1 and len(many) == 2  # search.MANY_FACTOR, rounded up
    # its answer is a list too, unsaid: the hits say so, and point at grep
    assert not one[0].exhaustive_list and one[0].hint is None
    assert all(h.exhaustive_list and "grep" in h.hint for h in many)


def _reminders_among_outings(folder: Path) -> Path:
    """Two dentist reminders the question finds by its words, a third in German that shares none
    of them but the reminders' other words, and outings that share some of the question's small
    words (nearer to it by meaning than the third reminder); each a chat of its own (adjacent
    windows would be shown as one passage)."""
    folder.mkdir()
    for n, (what, day) in enumerate((("dentist", "Tuesday"), ("dentist", "Friday"), ("Zahnarzttermin", "Montag"))):
        whatsapp_export(folder / f"WhatsApp Chat with Clinic {n}.txt", [
            NOTICE, f"1{n}/0{n + 1}/2024, 08:00 - Clinic {n}: {what} reminder, Rua Azul clinic, {day} morning"])
    outings = ["did I walk to the beach", "I ran to the gym", "the market", "the ferry"]
    for n, text in enumerate(outings):
        whatsapp_export(folder / f"WhatsApp Chat with Friend {n}.txt", [NOTICE, f"1{n}/05/2024, 10:00 - Friend {n}: {text}"])
    return folder


async def test_a_list_question_also_ranks_what_is_nearest_its_best_passages(tmp_path, monkeypatch):
    from core.memory import search

    folder = _reminders_among_outings(tmp_path / "inbox")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([folder])
        question = "How many times did I go to the dentist?"
        monkeypatch.setattr(search, "LIST_EXAMPLE_ROUND", False)
        without = " ".join(hit.text for hit in await memory.search(question, limit=2))
        monkeypatch.setattr(search, "LIST_EXAMPLE_ROUND", True)
        listed = await memory.search(question, limit=2)
        assert "Zahnarzttermin" not in without and "dentist" in without
        assert len(listed) == 6 and "Zahnarzttermin" in " ".join(hit.text for hit in listed)
        # a question for one instance has no example round
        rounds = []
        monkeypatch.setattr(search.Searcher, "_example_round", lambda self, *a, **k: rounds.append(a))
        await memory.search("When did I go to the dentist?", limit=1)
        assert rounds == []


async def test_an_age_question_finds_the_birth_date_that_shares_nothing_with_it(tmp_path, monkeypatch):
    # "How old was Ana when she moved to Lisbon?": the CV's birth line shares no word with the
    # question ("old" is a question word), and notes about the move crowd it out of both halves
    from core.memory import search

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "CV Ana.md").write_text("# Ana Costa\n\nTranslator. Born 3 March 1990 in Faro.\n", encoding="utf-8")
    (inbox / "2023.md").write_text("## 2023-03-15\n\nMoved to Lisbon today.\n", encoding="utf-8")
    for d in range(1, 16):
        (inbox / f"note {d}.md").write_text(f"## 2023-04-{d:02d}\n\nLisbon trams again, ride {d}, moved seats.\n",
                                           encoding="utf-8")
    (inbox / "wishes.md").write_text("## 2023-03-03\n\nHappy birthday from the whole office!\n", encoding="utf-8")
    question = "How old was Ana when she moved to Lisbon?"

    def texts(hits) -> str:
        return "\n".join(hit.text for hit in hits)

    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([inbox])
        found = texts(await memory.search(question, limit=3))
        assert "Born 3 March 1990" in found and "Moved to Lisbon today" in found
        assert "Happy birthday" not in found  # a wish tells no birth
        monkeypatch.setattr(search, "BIRTH_DEPTH", 0)
        assert "Born 3 March 1990" not in texts(await memory.search(question, limit=3))
        # a question about something else runs no birth list
        monkeypatch.setattr(search, "BIRTH_DEPTH", 40)
        assert "Born 3 March 1990" not in texts(await memory.search("When did Ana move to Lisbon?", limit=3))
