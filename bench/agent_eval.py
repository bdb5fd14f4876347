"""The biographer agent, evaluated against any OpenAI-compatible endpoint.

A small corpus of real export formats (WhatsApp, Telegram, Discord, e-mail, a Markdown journal;
English, German, Portuguese, Russian) goes through the real importers into a fresh store; then
each question of bench/agent_eval_data/questions.json is asked in a conversation of its own, and
scored by code:

- accuracy: every expected fact (a regular expression) is in the answer; for a question the
  sources cannot answer, the answer says so (in any of the four languages);
- grounded: right, and citing a source that holds the fact, through a citation the citation
  checker kept;
- citation validity: citations kept by the checker / citations the model wrote;
- tool steps, tokens (as the endpoint reports them) and wall time per question.

    python -m bench.agent_eval --base-url http://127.0.0.1:8080/v1 --model qwen2.5:7b [--api-key K]
        [--context 8192] [--max-output 600] [--only lease,car] [--json results.json]

The suite runs it against the scripted fake server (tests/agent/test_agent_eval.py), which tests
the scoring, not a model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from bot.compose import open_facets
from core.config import Settings
from core.errors import UserFacingError
from core.ports import Embedder
from core.service.admin import AdminFacet
from core.types import Answer
from storage import runs as run_store

DATA = Path(__file__).with_name("agent_eval_data")
OWNER = ["Ana Sousa", "ana.sousa", "ana@example.com"]
TIMEZONE = "Europe/Lisbon"

# "I could not find it", in the corpus's languages
NOT_FOUND_RE = re.compile("|".join([
    r"(?:could ?n[o']t|can ?not|can't|unable to|did ?n[o']t|do ?n[o']t) (?:find|see|locate)",
    r"\bno (?:information|record|mention|sources?|passages?|details|evidence|data)\b",
    r"not (?:mentioned|found|recorded|in (?:your|the) (?:sources|records))", r"\bdo ?n[o']t (?:know|have)\b",
    r"\bnothing (?:about|on|in|of)\b", r"\bthere (?:is|are) no\b", r"\bno (?:results|matches)\b",
    r"\bkeine (?:informationen|angaben|hinweise|quellen|ergebnisse|treffer)\b", r"\bnicht (?:gefunden|erwähnt)\b",
    r"\bweiß (?:ich )?nicht\b", r"\bfinde (?:ich )?(?:nichts|keine)\b", r"\bnichts (?:gefunden|über)\b",
    r"\bnão (?:encontrei|há|sei|consta|foi possível|tenho)\b", r"\bnenhuma? (?:informação|registo|registro)\b",
    r"\bне (?:нашел|нашёл|нашла|найден|найдено|удалось|знаю|упоминается)\b",
    r"\bнет (?:информации|данных|сведений|упоминаний)\b",
]), re.IGNORECASE)


@dataclass(frozen=True)
class Question:
    id: str
    lang: str
    question: str
    facts: tuple[str, ...]  # regular expressions, all of which a right answer contains
    sources: tuple[str, ...]  # parts of the names of the documents that hold the facts

    @property
    def answerable(self) -> bool:
        return bool(self.facts)


@dataclass
class Outcome:
    id: str
    lang: str
    answerable: bool
    correct: bool
    grounded: bool  # correct, with a kept citation of a source that holds the fact
    checked: bool  # False: the model looked nothing up and the answer is labelled so
    citations_kept: int
    citations_written: int
    steps: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    answer: str
    error: str = ""


def load_questions(path: Path = DATA / "questions.json") -> list[Question]:
    return [Question(id=q["id"], lang=q["lang"], question=q["question"],
                     facts=tuple("|".join(alternatives) for alternatives in q["facts"]), sources=tuple(q["sources"]))
            for q in json.loads(path.read_text(encoding="utf-8"))]


def score(question: Question, answer: Answer) -> tuple[bool, bool]:
    """(correct, grounded) for one answer, by code alone."""
    text = answer.text.casefold()
    if not question.answerable:
        return bool(NOT_FOUND_RE.search(text)), True
    correct = all(re.search(fact, text, re.IGNORECASE) for fact in question.facts)
    on_target = any(source.casefold() in citation.document.casefold()
                    for citation in answer.citations for source in question.sources)
    return correct, correct and on_target


async def ask_one(service: AdminFacet, question: Question) -> Outcome:
    started = time.perf_counter()
    try:
        answer = await service.biographer.ask(question.question, conversation=f"eval:{question.id}")
    except UserFacingError as error:  # one question's failure (a timeout, a refused request) is scored as wrong
        return Outcome(question.id, question.lang, question.answerable, False, False, False, 0, 0, 0, 0, 0,
                       round(time.perf_counter() - started, 1), "", error=str(error))
    seconds = time.perf_counter() - started
    run = await run_store.get_run(service.memory.conn, answer.run_id)
    correct, grounded = score(question, answer)
    return Outcome(question.id, question.lang, question.answerable, correct, grounded, answer.checked,
                   citations_kept=len(answer.citations), citations_written=len(answer.citations) + answer.removed,
                   steps=run.steps, prompt_tokens=run.prompt_tokens, completion_tokens=run.completion_tokens,
                   seconds=round(seconds, 1), answer=answer.text)


async def run_eval(service: AdminFacet, questions: Sequence[Question], *,
                   progress: Callable[[Outcome], None] = lambda outcome: None) -> list[Outcome]:
    """Import the corpus into the service's (fresh) store, then ask every question in turn."""
    report = await service.memory.ingest([DATA / "corpus"])
    if report.errors:
        raise RuntimeError(f"the evaluation corpus did not import: {report.errors}")
    outcomes = []
    for question in questions:
        outcomes.append(await ask_one(service, question))
        progress(outcomes[-1])
    return outcomes


def summary(outcomes: Sequence[Outcome]) -> dict:
    answerable = [o for o in outcomes if o.answerable]
    unanswerable = [o for o in outcomes if not o.answerable]
    written = sum(o.citations_written for o in outcomes)

    def share(part: int, whole: int) -> float | None:
        return round(part / whole, 2) if whole else None

    return {
        "questions": len(outcomes),
        "accuracy": share(sum(o.correct for o in outcomes), len(outcomes)),
        "answerable_right": share(sum(o.correct for o in answerable), len(answerable)),
        "grounded_right": share(sum(o.grounded for o in answerable), len(answerable)),
        "unanswerable_right": share(sum(o.correct for o in unanswerable), len(unanswerable)),
        "unchecked": sum(not o.checked for o in outcomes),
        "errors": sum(bool(o.error) for o in outcomes),
        "citation_validity": share(sum(o.citations_kept for o in outcomes), written),
        "steps_median": statistics.median(o.steps for o in outcomes) if outcomes else 0,
        "prompt_tokens_median": statistics.median(o.prompt_tokens for o in outcomes) if outcomes else 0,
        "completion_tokens_median": statistics.median(o.completion_tokens for o in outcomes) if outcomes else 0,
        "seconds_median": statistics.median(o.seconds for o in outcomes) if outcomes else 0,
    }


TABLE_HEAD = ("| model | questions | right (answerable / unanswerable) | grounded right | citations kept | "
              "labelled unchecked | steps | tokens in / out | s per question |\n"
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|")


def table_row(model: str, s: dict) -> str:
    """One README table row (medians per question)."""
    def pct(value: float | None) -> str:
        return "–" if value is None else f"{value:.0%}"

    return (f"| {model} | {s['questions']} | {pct(s['answerable_right'])} / {pct(s['unanswerable_right'])} | "
            f"{pct(s['grounded_right'])} | {pct(s['citation_validity'])} | {s['unchecked']} | {s['steps_median']:g} | "
            f"{s['prompt_tokens_median']:,.0f} / {s['completion_tokens_median']:,.0f} | {s['seconds_median']:,.0f} |")


def eval_settings(data_dir: Path, **llm: object) -> Settings:
    return Settings(data_dir=data_dir, timezone=TIMEZONE, owner_aliases=OWNER, **llm)


async def evaluate(settings: Settings, questions: Sequence[Question], *, embedder: Embedder | None = None,
                   progress: Callable[[Outcome], None] = lambda outcome: None) -> list[Outcome]:
    async with open_facets(settings, embedder=embedder) as facets:
        return await run_eval(facets.admin, questions, progress=progress)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--context", type=int, default=None, help="the model's context window, in tokens")
    parser.add_argument("--max-output", type=int, default=None, help="max_tokens per reply")
    parser.add_argument("--timeout", type=float, default=None, help="seconds to wait for one reply")
    parser.add_argument("--only", default="", help="comma-separated question ids")
    parser.add_argument("--json", type=Path, help="write every outcome here")
    args = parser.parse_args(argv)
    questions = [q for q in load_questions() if not args.only or q.id in args.only.split(",")]
    llm = {"llm_base_url": args.base_url, "llm_model": args.model, "llm_api_key": args.api_key,
           "llm_context_tokens": args.context, "llm_timeout_seconds": args.timeout, "llm_max_retries": 1}
    if args.max_output:
        llm["llm_max_output_tokens"] = args.max_output

    def show(o: Outcome) -> None:
        mark = "right" if o.correct else "WRONG"
        print(f"{o.id:<9} {o.lang} {mark:<5} grounded={o.grounded!s:<5} checked={o.checked!s:<5} "
              f"citations {o.citations_kept}/{o.citations_written} steps {o.steps} "
              f"tokens {o.prompt_tokens}/{o.completion_tokens} {o.seconds:.0f}s {o.error}", file=sys.stderr)
        print("    " + " ".join(o.answer.split())[:300], file=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        outcomes = asyncio.run(evaluate(eval_settings(Path(tmp), **llm), questions, progress=show))
    result = summary(outcomes)
    if args.json:
        args.json.write_text(json.dumps({"summary": result, "outcomes": [asdict(o) for o in outcomes]},
                                        ensure_ascii=False, indent=1), encoding="utf-8")
    print(json.dumps(result, indent=1))
    print(TABLE_HEAD)
    print(table_row(args.model, result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
