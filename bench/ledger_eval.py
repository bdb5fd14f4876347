"""Ledger extraction quality: precision and recall of what the model proposes and the code keeps,
against hand-written expectations (bench/ledger_eval/expected.json) over 22 short conversations in
six languages, written as the exports the importers read (bench/ledger_eval/cases/).

    python -m bench.ledger_eval              # the model in BIOGRAPHER_LLM_* (env or .env), role "analysis"
    python -m bench.ledger_eval --oracle     # a scripted server answering with the expected items
    python -m bench.ledger_eval --json --cases 01 05

Each case is imported into a fresh store (owner: Lena) and read by the CLI facet's `extract_ledger`, exactly
as the nightly job does. An extracted item matches an expected one when the kind and the person
agree and one of its sources is the line holding the expected quote; each expected item matches
at most one extracted item. Precision = matched / extracted, recall = matched / expected; among
the matches, how often the status and (where one is expected) the due date are right.

`--oracle` answers every window with the expected items whose quotes it shows: it measures what
the pipeline itself loses (validation, people, merging), not a model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, time as clock_time
from pathlib import Path
from zoneinfo import ZoneInfo

from core.agent.citations import quote_occurs
from core.ledger.matching import fold

ROOT = Path(__file__).resolve().parent / "ledger_eval"
KINDS = ("commitment", "owed", "recommendation", "fact")
_WORDS = re.compile(r"\w+")


# ---------------------------------------------------------------- scoring (pure)

@dataclass(frozen=True)
class Expected:
    kind: str
    person: str
    quote: str  # words of the line that states it
    status: str = "open"
    due: str | None = None
    title: str | None = None


@dataclass(frozen=True)
class Extracted:
    kind: str
    person: str | None
    status: str
    due: str | None
    lines: tuple[str, ...]  # the text of the lines it rests on
    words: str = ""  # its text, title and quotes: which of two items on one line is which


@dataclass
class Tally:
    expected: int = 0
    extracted: int = 0
    matched: int = 0

    @property
    def precision(self) -> float | None:
        return self.matched / self.extracted if self.extracted else None

    @property
    def recall(self) -> float | None:
        return self.matched / self.expected if self.expected else None


@dataclass
class Score:
    by_kind: dict[str, Tally] = field(default_factory=lambda: {k: Tally() for k in KINDS})
    status_right: int = 0
    due_expected: int = 0  # matches whose expected item has a due date
    due_right: int = 0
    missed: list[str] = field(default_factory=list)
    spurious: list[str] = field(default_factory=list)

    @property
    def total(self) -> Tally:
        return Tally(*(sum(getattr(t, f) for t in self.by_kind.values()) for f in ("expected", "extracted", "matched")))

    def add(self, other: Score) -> None:
        for kind, tally in other.by_kind.items():
            mine = self.by_kind[kind]
            mine.expected, mine.extracted, mine.matched = (mine.expected + tally.expected,
                                                           mine.extracted + tally.extracted,
                                                           mine.matched + tally.matched)
        self.status_right += other.status_right
        self.due_expected += other.due_expected
        self.due_right += other.due_right
        self.missed += other.missed
        self.spurious += other.spurious


def same_person(expected: str, found: str | None) -> bool:
    """"Maya" and "Maya Costa" are one person (one name's words within the other's)."""
    if not found:
        return False
    a, b = set(_WORDS.findall(fold(expected))), set(_WORDS.findall(fold(found)))
    return bool(a and b) and (a <= b or b <= a)


def matches(expected: Expected, found: Extracted) -> bool:
    return (expected.kind == found.kind and same_person(expected.person, found.person)
            and any(quote_occurs(fold(expected.quote), fold(line)) for line in found.lines))


def score(expected: Sequence[Expected], extracted: Sequence[Extracted], *, label: str = "") -> Score:
    result = Score()
    for item in expected:
        result.by_kind[item.kind].expected += 1
    for item in extracted:
        result.by_kind[item.kind].extracted += 1
    unused = list(extracted)
    for item in expected:
        candidates = [x for x in unused if matches(item, x)]
        # two items may rest on one line (a mail recommending two books): the one that says the same words
        wanted = set(_WORDS.findall(fold(f"{item.quote} {item.title or ''}")))
        found = max(candidates, key=lambda x: len(wanted & set(_WORDS.findall(fold(x.words)))), default=None)
        if found is None:
            result.missed.append(f"{label}: {item.kind} {item.person}: {item.quote!r}")
            continue
        unused.remove(found)
        result.by_kind[item.kind].matched += 1
        result.status_right += found.status == item.status
        if item.due:
            result.due_expected += 1
            result.due_right += found.due == item.due
    result.spurious += [f"{label}: {x.kind} {x.person}: {x.lines[0][:80]!r}" for x in unused]
    return result


# ---------------------------------------------------------------- running the cases

def load_expected(path: Path = ROOT / "expected.json") -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def expected_items(case: dict) -> list[Expected]:
    return [Expected(i["kind"], i["person"], i["quote"], i["status"], i.get("due"), i.get("title"))
            for i in case["items"]]


async def run_case(case: dict, *, spec: dict, llm, folder: Path) -> tuple[Score, int]:
    """Import one case into a fresh store under `folder`, extract, score; returns the score and
    the tokens used."""
    from bot.compose import open_facets
    from core.config import Settings
    from core.service.admin import AdminFacet
    from core.service.parts import Parts
    from tests.fakes.embedder import HashEmbedder

    zone = ZoneInfo(spec["timezone"])
    now = datetime.combine(datetime.fromisoformat(spec["today"]).date(), clock_time(12), tzinfo=zone)
    settings = Settings(data_dir=folder, timezone=spec["timezone"], owner_aliases=spec["owner"])
    async with open_facets(settings, llm=llm, embedder=HashEmbedder()) as built:
        service = AdminFacet(Parts(memory=built.admin.memory, llm=llm, config=built.admin.biographer.config,
                                   clock=lambda: now, ledger_window_chars=settings.ledger_window_chars))
        files = sorted(p for p in (ROOT / "cases" / case["case"]).iterdir() if p.is_file())
        report = await service.memory.ingest(files, index=False)
        if report.errors or not report.messages_added:
            raise SystemExit(f"{case['case']}: could not be imported: {report.errors}")
        result = await service.extract_ledger()
        found = []
        for item in await service.ledger.items():
            lines = [(await service.memory.read(s.locator)).text for s in item.sources if s.role == "stated" and s.locator]
            words = " ".join([item.text, item.title or "", *(s.quote for s in item.sources)])
            found.append(Extracted(item.kind, item.person, item.status, item.due, tuple(lines) or ("",), words))
    return score(expected_items(case), found, label=case["case"]), result.usage.total


async def evaluate(spec: dict, *, llm, only: Sequence[str] = ()) -> tuple[Score, int, float]:
    total, tokens = Score(), 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ledger-eval-") as tmp:
        for case in spec["cases"]:
            if only and not any(case["case"].startswith(prefix) for prefix in only):
                continue
            case_score, used = await run_case(case, spec=spec, llm=llm, folder=Path(tmp) / case["case"])
            total.add(case_score)
            tokens += used
    return total, tokens, time.perf_counter() - started


# ---------------------------------------------------------------- the oracle: the expected items, as proposals

_LINE = re.compile(r"^(doc\d+:\d+-\d+) \| [^|]+ \| (.*?): (.*)$")


def oracle_proposals(window: str, spec: dict) -> dict:
    """What a perfect model would propose for a window: every expected item whose quote is on one
    of the new lines, cited there (and its status line, when shown)."""
    lines: list[list[str]] = []  # [locator, sender, text]; a message may run over several lines (a mail)
    for raw in window.split("New lines to read", 1)[-1].splitlines():
        if match := _LINE.match(raw):
            lines.append(list(match.groups()))
        elif lines and raw != "</conversation>":
            lines[-1][2] += "\n" + raw

    def where(quote: str) -> str | None:
        return next((loc for loc, _sender, text in lines if quote_occurs(fold(quote), fold(text))), None)

    items = []
    for case in spec["cases"]:
        for item in case["items"]:
            stated = where(item["quote"])
            if stated is None:
                continue
            proposal = {"kind": item["kind"], "text": item.get("title") or item["quote"], "person": item["person"],
                        "evidence": [{"locator": stated, "quote": item["quote"]}]}
            for key in ("due", "title", "category"):
                if item.get(key):
                    proposal[key] = item[key]
            status_line = where(item["status_quote"]) if item.get("status_quote") else None
            if status_line:
                proposal["status"] = item["status"]
                proposal["status_evidence"] = [{"locator": status_line, "quote": item["status_quote"]}]
            items.append(proposal)
    return {"items": items, "updates": []}


def oracle_server(spec: dict):
    from tests.fakes.openai_server import FakeOpenAIServer

    class Oracle(FakeOpenAIServer):
        def _answer(self, body: dict):
            window = body["messages"][1]["content"] if len(body.get("messages", [])) > 1 else ""
            self.call("record_ledger", oracle_proposals(window, spec))
            return super()._answer(body)

    return Oracle()


# ---------------------------------------------------------------- output

def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def table(result: Score) -> str:
    rows = ["| kind | expected | extracted | matched | precision | recall |", "|---|---:|---:|---:|---:|---:|"]
    for kind, tally in [*result.by_kind.items(), ("**all**", result.total)]:
        rows.append(f"| {kind} | {tally.expected} | {tally.extracted} | {tally.matched} | {_pct(tally.precision)} | "
                    f"{_pct(tally.recall)} |")
    matched = result.total.matched
    rows.append("")
    rows.append(f"status right in {result.status_right}/{matched} matches; due date right in "
                f"{result.due_right}/{result.due_expected} matches that expect one")
    return "\n".join(rows)


def as_json(result: Score, tokens: int, seconds: float) -> dict:
    total = result.total
    return {"precision": total.precision, "recall": total.recall, "expected": total.expected,
            "extracted": total.extracted, "matched": total.matched,
            "by_kind": {k: vars(t) for k, t in result.by_kind.items()},
            "status_right": result.status_right, "due_right": result.due_right, "due_expected": result.due_expected,
            "missed": result.missed, "spurious": result.spurious, "tokens": tokens, "seconds": round(seconds, 1)}


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--oracle", action="store_true", help="answer with the expected items (pipeline ceiling)")
    parser.add_argument("--cases", nargs="*", default=[], help="only the cases whose names start with these")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    spec = load_expected()

    from bot.compose import build_llm
    from core.config import Settings, env_files
    from core.providers.openai_chat import OpenAIChat

    server = None
    if args.oracle:
        server = oracle_server(spec).start()
        llm = OpenAIChat(base_url=server.base_url, api_key="oracle", models={"chat": "oracle"}, max_retries=0)
        label = "oracle (expected items replayed by a scripted server)"
    else:
        settings = Settings(_env_file=env_files())
        llm = build_llm(settings)
        if llm is None:
            print("no model configured: set BIOGRAPHER_LLM_BASE_URL / BIOGRAPHER_LLM_API_KEY / BIOGRAPHER_LLM_MODEL "
                  "(or use --oracle)", file=sys.stderr)
            return 2
        label = f"{llm.model_for('analysis')} at {settings.llm_base_url}"
    try:
        result, tokens, seconds = await evaluate(spec, llm=llm, only=args.cases)
    finally:
        await llm.close()
        if server is not None:
            server.stop()
    if args.json:
        print(json.dumps({"model": label, **as_json(result, tokens, seconds)}, ensure_ascii=False, indent=1))
        return 0
    print(f"model: {label}; {seconds:.1f} s, {tokens:,} tokens\n")
    print(table(result))
    for title, lines in (("missed", result.missed), ("spurious", result.spurious)):
        if lines:
            print(f"\n{title}:\n" + "\n".join(f"  {line}" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
