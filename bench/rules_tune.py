"""Tunes the ranking rules that follow a question (core/memory/ranking.py: PERSON_BOOST,
NEAR_BOOST, SAID_BOOST, RECENCY_WEIGHT, PERSON_ROUND_WEIGHT: 0 runs no person rounds) on the tuning halves only: LoCoMo conversations 0-4 and
the life archive's tuning half, in process over cached candidate lists (as bench/locomo_tune.py
does for fusion). The held-out halves are printed beside them for the record, never chosen on.

    python bench/rules_tune.py          # needs bench/stores (bench/locomo.py, bench/life_eval.py)

The candidates are those of the real Searcher (its keyword half with the owner's names left out,
its semantic half at the shipped depth, its person rounds); a passage's text is its chunks joined, as the CLI
returns it. Scoring: LoCoMo's harness (`recall.score`) and life_eval's `found`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import life_eval  # noqa: E402
from bench.locomo import EVAL, STORES  # noqa: E402
from bench.locomo_tune import load_recall  # noqa: E402
from bot.compose import build_embedder  # noqa: E402
from core.config import DEFAULT_EMBEDDING_MODEL, Settings  # noqa: E402
from core.memory import ranking  # noqa: E402
from core.memory import search as search_mod  # noqa: E402
from storage import chunks as chunk_store  # noqa: E402
from storage.db import open_database  # noqa: E402

SEMANTIC_FIRST_PERSON = 1  # the semantic half embeds the question as search.OWNER_AS_I does (semantic_query)
RULES = ("SEMANTIC_FIRST_PERSON", "NAMES_AS_KEYWORDS", "PERSON_BOOST", "NEAR_BOOST", "SAID_BOOST", "RECENCY_WEIGHT",
         "PERSON_ROUND_WEIGHT")
GRID = {"SEMANTIC_FIRST_PERSON": (0, 1), "NAMES_AS_KEYWORDS": (1, 0), "PERSON_BOOST": (0.0, 0.1, 0.2), "NEAR_BOOST": (0.0, 0.1, 0.2, 0.3), "SAID_BOOST": (0.0, 0.2, 0.4),
        "RECENCY_WEIGHT": (0.0, 0.2, 0.4), "PERSON_ROUND_WEIGHT": (0.0, 0.3, 0.5, 0.8)}


async def cached(store: Path, questions: list[str], owner_aliases: tuple[str, ...]) -> dict:
    embedder = build_embedder(Settings(), DEFAULT_EMBEDDING_MODEL)  # what `auto` chose for these stores
    out = {"q": [], "chunks": {}}
    async with open_database(store / "biographer.sqlite3") as conn:
        searcher = search_mod.Searcher(conn, embedder, owner_aliases=owner_aliases)
        where = chunk_store.ChunkFilter()
        vectors = embedder.embed(questions, query=True)
        from core.memory.query_understanding import semantic_query

        rewritten = []
        for q in questions:
            understood = await searcher.understand(q)
            rewritten.append(semantic_query(q, understood.intent, understood.names))
        changed = [r != q for q, r in zip(questions, rewritten)]
        owner_vectors = embedder.embed([r for r, c in zip(rewritten, changed) if c], query=True) if any(changed) else []
        owner_vectors = iter(owner_vectors)
        for question, vector, change in zip(questions, vectors, changed):
            if change:
                vector_first = next(owner_vectors)
                sem_first, sem_first_rows = await searcher._semantic_rows(
                    question, depth=search_mod.SEMANTIC_DEPTH, where=where, query_vector=vector_first)
            lists = {}
            shipped = search_mod.NAMES_AS_KEYWORDS
            for names in (True, False):  # both ways of the keyword half (search.NAMES_AS_KEYWORDS)
                search_mod.NAMES_AS_KEYWORDS = names
                lists[names] = await searcher._keyword_rows(question, depth=search_mod.HYBRID_DEPTH, where=where)
            search_mod.NAMES_AS_KEYWORDS = shipped
            sem, sem_rows = await searcher._semantic_rows(question, depth=search_mod.SEMANTIC_DEPTH, where=where,
                                                          query_vector=vector)
            understood = lists[True][1]
            if not change:
                sem_first, sem_first_rows = sem, {}
            # the hybrid's keyword half beside its person rounds (names left to the rounds), and the rounds
            (kw_rounds, kw_rounds_rows), with_rounds = await searcher._keyword_rows(
                question, depth=search_mod.HYBRID_DEPTH, where=where, rounds=True)
            rounds, round_rows = await searcher._person_rounds(question, with_rounds, vector_first if change else vector,
                                                               where=where)
            rows = {**round_rows, **kw_rounds_rows, **lists[True][0][1], **lists[False][0][1], **sem_rows,
                    **sem_first_rows}
            keyword_lists = {**{n: lists[n][0][0] for n in lists}, "rounds": kw_rounds}
            out["q"].append((question, keyword_lists, {0: sem, 1: sem_first}, rows, understood, rounds))
        searcher.close()
    return out


def passages(question, lists, sems, rows, understood, rounds) -> list[str]:
    """PERSON_ROUND_WEIGHT 0: no person rounds, the keyword half as NAMES_AS_KEYWORDS says."""
    with_rounds = bool(rounds) and ranking.PERSON_ROUND_WEIGHT > 0
    kw = lists["rounds"] if with_rounds else lists[search_mod.NAMES_AS_KEYWORDS]
    sem = sems[int(SEMANTIC_FIRST_PERSON)]
    intent = understood.intent
    limit = 10 * (search_mod.LIST_FACTOR if intent.exhaustive else search_mod.MANY_FACTOR if intent.many else 1)
    groups, _ = ranking.rank(question, kw, sem, rows, limit=limit, intent=understood.intent,
                             owner=understood.names.owner, names_of=understood.names.names_of,
                             person_rounds=rounds if with_rounds else ())
    return ["\n".join(rows[i].text.strip() for i in sorted(g, key=lambda i: rows[i].char_start)) for g in groups]


def locomo_data() -> tuple[list[dict], list]:
    items = [json.loads(line) for line in (EVAL / "qa.jsonl").open() if line.strip()]
    items = [it for it in items if it.get("evidence_text")]
    by_conv = defaultdict(list)
    for it in items:
        by_conv[it["sample_id"]].append(it)
    cases = []
    for sid, group in by_conv.items():
        data = asyncio.run(cached(STORES / sid, [it["question"] for it in group], ()))
        cases += list(zip(group, data["q"]))
    return items, cases


def life_data() -> list:
    questions = life_eval.QUESTIONS
    place: dict[str, int] = defaultdict(int)
    halves = []
    for kind, *_ in questions:
        halves.append(life_eval.half(place[kind]))
        place[kind] += 1
    aliases = tuple(a.lower() for a in life_eval.OWNER_ALIASES.split(","))
    cases = []
    for column in (1, 2):
        data = asyncio.run(cached(life_eval.STORE, [q[column] for q in questions], aliases))
        cases += [(q, hv, c) for q, hv, c in zip(questions, halves, data["q"])]
    return cases


def measure(recall, locomo_cases, life_cases) -> dict[str, float]:
    out: dict[str, list] = defaultdict(list)
    for it, case in locomo_cases:
        sc = recall.score(it, passages(*case), [10])[10]
        half = "tune" if it["conv"] <= 4 else "held"
        out[f"locomo {half}"].append(sc["all"])
        out[f"locomo {half} chars"].append(sc["chars"])
        if it["category"] == 1:
            out[f"locomo {half} multi-hop"].append(sc["all"])
    for q, hv, case in life_cases:
        texts = passages(*case)
        out[f"life {hv}"].append(life_eval.found([{"text": t} for t in texts], q[3]))
    return {k: statistics.fmean(v) for k, v in out.items()}


def _home(name: str):
    """Where a rule's switch lives: this script, search.py or ranking.py."""
    return (sys.modules[__name__] if name == "SEMANTIC_FIRST_PERSON"
            else search_mod if name == "NAMES_AS_KEYWORDS" else ranking)


def main() -> None:
    os.environ.setdefault("BIOGRAPHER_OWNER_ALIASES", life_eval.OWNER_ALIASES)
    recall = load_recall()
    shipped = {name: getattr(_home(name), name) for name in RULES}
    _, locomo_cases = locomo_data()
    life_cases = life_data()
    columns = ["locomo tune", "locomo tune multi-hop", "life tune", "locomo held", "locomo held multi-hop",
               "life held", "locomo tune chars"]
    print("| " + " | ".join(RULES) + " | " + " | ".join(columns) + " |")
    print("|" + "---|" * (len(RULES) + len(columns)))
    # none, each rule alone at each weight, then the shipped weights together
    base = {n: (1 if n == "NAMES_AS_KEYWORDS" else 0.0) for n in RULES}
    trials = [tuple(base.values())]
    trials += [tuple(v if n == name else base[n] for n in RULES) for name in RULES for v in GRID[name]
               if v != base[name]]
    trials += [tuple(shipped[n] for n in RULES)]
    trials += [tuple(extra) for extra in itertools.product(*(GRID[n] for n in RULES)) if os.environ.get("TUNE_GRID")]
    if os.environ.get("TUNE_TRIALS"):  # "1,0.1,0.1,0.2,0.2;..." : only these
        trials = [tuple(float(v) for v in t.split(",")) for t in os.environ["TUNE_TRIALS"].split(";")]
    for values in trials:
        for name, value in zip(RULES, values):
            setattr(_home(name), name, value)
        figures = measure(recall, locomo_cases, life_cases)
        print("| " + " | ".join(f"{v:g}" for v in values) + " | "
              + " | ".join(f"{figures.get(c, 0):.3f}" if "chars" not in c else f"{figures.get(c, 0):,.0f}"
                           for c in columns) + " |", flush=True)
    for name, value in shipped.items():
        setattr(_home(name), name, value)


if __name__ == "__main__":
    main()
