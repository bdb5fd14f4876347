"""Citations are checked by code: invented locators and misquotes never reach the owner as evidence."""

from __future__ import annotations

from core.agent.citations import MISQUOTE_MARK, REMOVED_MARK, quote_occurs
from core.service.admin import AdminFacet
from tests.agent.test_loop import locator_of
from tests.fakes.openai_server import FakeOpenAIServer


def test_quotes_match_verbatim_up_to_spacing_and_ellipses() -> None:
    source = "Ana: Yes, I signed the lease   for the flat\nin Porto yesterday!"
    assert quote_occurs("I signed the lease for the flat in Porto", source)
    assert quote_occurs("I signed the lease ... yesterday", source)
    assert not quote_occurs("I signed the lease for the house", source)
    assert not quote_occurs("yesterday ... I signed", source)


async def test_invented_locator_and_misquote_are_removed(seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    loc = await locator_of(seeded, "bakery April")
    fake_openai.call("search", {"query": "bakery"})
    fake_openai.reply(
        f'You start at the bakery in April [{loc}]. You said "I am terrified of Porto" [{loc}]. '
        "You also lived in Berlin [doc99:0-40]."
    )

    answer = await seeded.biographer.ask("When do I start the new job?")

    assert answer.text == (
        "You start at the bakery in April [1]. "
        f'You said "I am terrified of Porto" {MISQUOTE_MARK}. '
        f"You also lived in Berlin {REMOVED_MARK}."
    )
    assert [str(c.locator) for c in answer.citations] == [loc]
    assert answer.removed == 2
    assert "doc99" not in answer.render()


async def test_a_range_inside_what_was_read_counts_as_seen(seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    loc = await locator_of(seeded, "lease Porto")
    doc = loc.split(":")[0]
    fake_openai.call("read_source", {"locator": loc, "window": 2000})
    fake_openai.reply(f'"Amazing." [{doc}:0-5] — and a range never read [{doc}:5000-5100].')
    answer = await seeded.biographer.ask("What did Maya say?")
    assert answer.removed == 1
    assert answer.text.startswith('"Amazing." [1]') and len(answer.citations) == 1
