"""bench/agent_eval.py's scoring, run end to end against the scripted fake server: the corpus goes
through the real importers, the questions through the real agent and client."""

from __future__ import annotations

from pathlib import Path

from bench.agent_eval import (DATA, Question, evaluate, eval_settings, load_questions, run_eval, score, summary,
                              table_row)
from bot.compose import open_facets
from core.providers.openai_chat import OpenAIChat
from core.types import Answer, Citation, Locator
from tests.fakes.embedder import HashEmbedder
from tests.fakes.openai_server import FakeOpenAIServer

LEASE = Question("lease", "en", "When did I sign the lease?", ("11 march|march 11",), ("WhatsApp with Maya",))
CAR = Question("car", "en", "When did I buy my car?", (), ())


def cited(text: str, document: str = "WhatsApp with Maya", removed: int = 0) -> Answer:
    return Answer(text=text, citations=[Citation(1, Locator(1, 0, 10), document, None)], removed=removed)


def test_scoring_by_code() -> None:
    assert score(LEASE, cited("You signed it on 11 March 2024 [1].")) == (True, True)
    assert score(LEASE, cited("On 11 March [1].", document="Telegram with Oma Helga")) == (True, False)
    assert score(LEASE, Answer(text="On March 11.")) == (True, False)  # right, but cites nothing
    assert score(LEASE, cited("In April [1].")) == (False, False)
    for says_so in ("I couldn't find when you bought a car.", "Ich finde keine Informationen dazu.",
                    "Não encontrei nada sobre isso.", "Я не нашла информации об этом.",
                    "There is no mention of a car in your sources."):
        assert score(CAR, Answer(text=says_so))[0], says_so
    assert not score(CAR, cited("You bought a car in 2019 [1]."))[0]


def test_the_question_set_covers_languages_and_unanswerables() -> None:
    questions = load_questions()
    assert {q.lang for q in questions} >= {"en", "de", "pt", "ru"}
    assert sum(not q.answerable for q in questions) >= 3
    assert len({q.id for q in questions}) == len(questions)


async def test_a_scripted_run_is_scored(tmp_path: Path, fake_openai: FakeOpenAIServer) -> None:
    questions = {q.id: q for q in load_questions()}
    picked = [questions["lease"], questions["oma"], questions["car"], questions["cat"]]
    llm = OpenAIChat(base_url=fake_openai.base_url, api_key="k", models={"chat": "fake"}, max_retries=0)
    async with open_facets(eval_settings(tmp_path / "data"), llm=llm, embedder=HashEmbedder()) as facets:
        service = facets.admin
        await service.memory.ingest([DATA / "corpus"])  # run_eval's own import then skips it all
        [lease] = (await service.memory.grep("lease", page_size=1)).matches
        # lease: looked up and cited right; oma: an invented citation; car: says it cannot find it;
        # cat: never looks anything up (nudged, then labelled)
        fake_openai.call("grep", {"pattern": "lease"})
        fake_openai.reply(f"You signed the lease on 11 March 2024 [{lease.locator}].")
        fake_openai.call("search", {"query": "Oma Helga Geburtstag"})
        fake_openai.reply("Sie ist 80 geworden [doc99:0-10].")
        fake_openai.call("search", {"query": "car"})
        fake_openai.reply("I could not find anything about a car in your sources.")
        fake_openai.reply("Your cat is called Miso.").reply("Your cat is called Miso.")
        outcomes = await run_eval(service, picked)
    await llm.close()

    by_id = {o.id: o for o in outcomes}
    assert (by_id["lease"].correct, by_id["lease"].grounded, by_id["lease"].citations_kept) == (True, True, 1)
    assert (by_id["oma"].correct, by_id["oma"].grounded) == (True, False)
    assert (by_id["oma"].citations_kept, by_id["oma"].citations_written) == (0, 1)
    assert by_id["car"].correct and by_id["car"].steps == 1
    assert (by_id["cat"].correct, by_id["cat"].checked, by_id["cat"].steps) == (True, False, 0)
    assert all(o.prompt_tokens > 0 and o.seconds >= 0 for o in outcomes)
    result = summary(outcomes)
    assert (result["answerable_right"], result["grounded_right"], result["unanswerable_right"]) == (1.0, 0.33, 1.0)
    assert (result["citation_validity"], result["unchecked"]) == (0.5, 1)
    assert table_row("fake", result).startswith("| fake | 4 | 100% / 100% | 33% | 50% | 1 |")


async def test_the_whole_corpus_imports(tmp_path: Path) -> None:
    # evaluate() imports before asking; with no questions, nothing is sent
    assert await evaluate(eval_settings(tmp_path / "data", llm_base_url="http://127.0.0.1:9/v1"), [],
                          embedder=HashEmbedder()) == []
