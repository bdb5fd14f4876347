"""bench/ledger_eval.py's scoring, and its cases read through the real pipeline against servers that
speak the OpenAI protocol: a perfect one (every expected item found, nothing else) and a sloppy one
(one kind wrong, one item missed, one date wrong)."""

from __future__ import annotations

import copy

from bench import ledger_eval
from bench.ledger_eval import Expected, Extracted, oracle_proposals, score
from core.providers.openai_chat import OpenAIChat
from tests.fakes.openai_server import FakeOpenAIServer


def test_precision_recall_status_and_due_are_counted_one_to_one():
    expected = [Expected("commitment", "Maya", "send you the deck", due="2024-05-10"),
                Expected("recommendation", "Maya", "watch Slow Horses", title="Slow Horses"),
                Expected("owed", "Rui", "your umbrella back", status="done")]
    extracted = [Extracted("commitment", "Maya Costa", "open", "2024-05-11", ("Sure, I'll send you the deck",)),
                 Extracted("commitment", "Maya Costa", "open", None, ("Sure, I'll send you the deck",)),  # twice
                 Extracted("owed", "Maya", "open", None, ("you have to watch Slow Horses",)),  # wrong kind
                 Extracted("owed", "Rui", "done", None, ("I'll bring your umbrella back",))]
    result = score(expected, extracted, label="case")
    total = result.total
    assert (total.expected, total.extracted, total.matched) == (3, 4, 2)
    assert (total.precision, round(total.recall, 3)) == (0.5, 0.667)
    assert (result.status_right, result.due_right, result.due_expected) == (2, 0, 1)
    assert result.missed == ["case: recommendation Maya: 'watch Slow Horses'"]
    assert len(result.spurious) == 2


def test_two_items_on_one_line_are_told_apart_by_their_words():
    line = ("read The Left Hand of Darkness, and listen to the Radiolab episode on memory",)
    expected = [Expected("recommendation", "Sarah", "read The Left Hand", status="in_progress"),
                Expected("recommendation", "Sarah", "listen to the Radiolab")]
    extracted = [Extracted("recommendation", "Sarah Kim", "open", None, line, "Radiolab episode on memory"),
                 Extracted("recommendation", "Sarah Kim", "in_progress", None, line, "The Left Hand of Darkness")]
    assert score(expected, extracted).status_right == 2


class Scripted(FakeOpenAIServer):
    """Answers each window from the expected items, spoiled by `spoil`."""

    def __init__(self, spec: dict, spoil) -> None:
        super().__init__()
        self.spec, self.spoil = spec, spoil

    def _answer(self, body: dict):
        window = body["messages"][1]["content"]
        self.call("record_ledger", self.spoil(copy.deepcopy(oracle_proposals(window, self.spec))))
        return super()._answer(body)


async def run(spec: dict, spoil, cases=()) -> ledger_eval.Score:
    with Scripted(spec, spoil) as server:
        llm = OpenAIChat(base_url=server.base_url, api_key="k", models={"chat": "fake"}, max_retries=0)
        try:
            result, tokens, _ = await ledger_eval.evaluate(spec, llm=llm, only=cases)
        finally:
            await llm.close()
    assert tokens > 0
    return result


async def test_every_case_reads_back_exactly_when_the_model_is_right():
    spec = ledger_eval.load_expected()
    assert len(spec["cases"]) >= 20 and len({c["language"] for c in spec["cases"]}) >= 5
    result = await run(spec, lambda proposals: proposals)
    total = result.total
    assert (total.precision, total.recall, total.matched) == (1.0, 1.0, 39), result.missed + result.spurious
    assert result.status_right == 39 and result.due_right == result.due_expected == 21


async def test_a_sloppy_model_scores_what_it_got_right():
    def spoil(proposals: dict) -> dict:
        items = proposals["items"]
        if items and items[0]["evidence"][0]["quote"] == "I'll send you the deck on Friday":
            items[0]["due"] = "2024-05-11"  # a day late
            items[1]["kind"] = "owed"  # the recommended show as a debt
            del items[2]  # the umbrella missed
        return proposals

    result = await run(ledger_eval.load_expected(), spoil, cases=["01"])
    total = result.total
    assert (total.expected, total.extracted, total.matched) == (3, 2, 1)
    assert (total.precision, round(total.recall, 3)) == (0.5, 0.333)
    assert (result.due_right, result.due_expected) == (0, 1)
    assert result.by_kind["recommendation"].recall == 0.0 and result.by_kind["owed"].precision == 0.0
