"""The owner's words in the chat become ledger items through the agent's tools, with the chat
message as the source; questions are answered from the whole ledger."""

from __future__ import annotations

from tests.ledger.conftest import whatsapp


def tool_reply(server, n: int = -1) -> str:
    """What the n-th tool call of the last request returned to the model."""
    return [m for m in server.requests[-1]["messages"] if m["role"] == "tool"][n]["content"]


async def told_documents(service) -> list[int]:
    return [s.id for s in await service.sources() if s.kind == "biographer_chat"]


async def test_remind_me_to_send_ana_the_deck_on_friday(service, fake_openai, tmp_path):
    await service.memory.ingest([whatsapp(tmp_path, "Ana", ["18/05/2024, 10:00 - Ana: see you next week!"])])
    fake_openai.call("ledger_save", {"kind": "commitment", "text": "Send Ana the deck", "person": "Ana",
                                     "due": "2024-05-24", "quote": "remind me to send Ana the deck on Friday"})
    fake_openai.reply("Done: I will remind you on Friday 24 May.")

    answer = await service.biographer.ask("Please remind me to send Ana the deck on Friday", conversation="telegram:1")

    assert answer.text == "Done: I will remind you on Friday 24 May."
    assert tool_reply(fake_openai).startswith("saved as #1: #1 Send Ana the deck · to Ana · due Fri 24 May 2024")
    [deck] = await service.ledger.items()
    assert (deck.kind, deck.origin, deck.due, deck.person) == ("commitment", "chat", "2024-05-24", "Ana")
    [source] = deck.sources
    assert source.quote == "remind me to send Ana the deck on Friday" and source.via == "chat"
    assert source.document == "Told to the biographer" and source.speaker == "Lena"
    said = await service.memory.read(source.locator)
    assert said.text.endswith("Lena: Please remind me to send Ana the deck on Friday")
    assert len(await told_documents(service)) == 1  # the message is stored once, as this item's source


async def test_a_recommendation_from_someone_new_then_finished(service, fake_openai):
    fake_openai.call("ledger_save", {"kind": "recommendation", "text": "Slow Horses", "title": "Slow Horses",
                                     "category": "show", "person": "Cono", "quote": "Cono recommended me Slow Horses"})
    fake_openai.call("ledger_save", {"kind": "recommendation", "text": "Slow Horses", "title": "Slow Horses",
                                     "category": "show", "person": "Cono", "quote": "Cono recommended me Slow Horses",
                                     "new_person": True})
    fake_openai.reply("Noted: Slow Horses, from Cono.")
    await service.biographer.ask("Cono recommended me Slow Horses", conversation="telegram:1")
    assert "no person is known as 'Cono'" in tool_reply(fake_openai, 0)

    fake_openai.call("ledger_query", {"kind": "recommendation", "words": "slow horses"})
    fake_openai.call("ledger_update", {"id": 1, "status": "done", "quote": "I finished Slow Horses"})
    fake_openai.reply("Marked Slow Horses as watched.")
    await service.biographer.ask("I finished Slow Horses, it was great", conversation="telegram:1")

    [show] = await service.ledger.items()
    assert (show.title, show.category, show.person, show.status) == ("Slow Horses", "show", "Cono", "done")
    assert [(s.role, s.quote) for s in show.sources] == [("stated", "Cono recommended me Slow Horses"),
                                                         ("done", "I finished Slow Horses")]
    assert len(await told_documents(service)) == 2
    assert (await service.person_page("Cono")).recommended == ()  # done: nothing open with Cono


async def test_words_the_owner_did_not_say_are_not_saved(service, fake_openai, tmp_path):
    await service.memory.ingest([whatsapp(tmp_path, "Ana", ["18/05/2024, 10:00 - Ana: hi"])])
    fake_openai.call("ledger_save", {"kind": "commitment", "text": "Pay Ana 100 euros", "person": "Ana",
                                     "quote": "I will pay Ana 100 euros"})
    fake_openai.reply("I could not save that.")
    fake_openai.reply("I could not save that.")  # no tool call ran: nudged once, then labelled unchecked
    await service.biographer.ask("Ana and I had lunch", conversation="telegram:1")
    assert "the owner's message does not say" in str(fake_openai.requests[1]["messages"][-1])
    assert await service.ledger.items() == []
    assert await told_documents(service) == []  # a message is no source unless something keeps it


async def test_which_books_was_i_recommended_that_i_have_not_read(service, fake_openai, tmp_path):
    await service.memory.ingest([whatsapp(tmp_path, "Rui", ["18/05/2024, 10:00 - Rui: hi"])])
    for n in range(25):
        await service.ledger.add("recommendation", f"Book number {n}", person="Rui", category="book")
    await service.ledger.add("recommendation", "A film", person="Rui", category="film")
    read, _ = await service.ledger.add("recommendation", "Book already read", person="Rui", category="book")
    await service.ledger.set_status(read.id, "done")
    fake_openai.call("ledger_query", {"kind": "recommendation", "category": "book",
                                      "status": ["open", "in_progress"]})
    fake_openai.reply("Twenty-five books, all from Rui.")

    await service.biographer.ask("What books was I recommended that I haven't read?", conversation="cli")

    listed = tool_reply(fake_openai)
    assert listed.startswith("25 items: the complete list")
    assert all(f"Book number {n} (book)" in listed for n in range(25))
    assert "A film" not in listed and "already read" not in listed
