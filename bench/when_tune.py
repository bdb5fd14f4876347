"""Questions about when (issue 21): LoCoMo's temporal category and the life archive's dates and
combinations, measured in process with the real Searcher (its own embedding of each question, as
the CLI searches), for variants of the rules that read a question about time. Chosen on the
tuning sets only; the held-out ones are measured once a variant is chosen.

    python bench/when_tune.py --sets locomo-tune,life --variants base,NAME   # choose on these
    python bench/when_tune.py --sets locomo-held --variants base,CHOSEN      # once chosen
    python bench/when_tune.py --sets locomo-tune --misses                    # where the evidence ranks

Sets: locomo-tune (conversations 0-4), locomo-held (5-9), life (bench/life_eval/archive, both
phrasings, both halves: its date and combine kinds reported apart). Scoring: LoCoMo's harness
(`recall.score`, recall@10, multi-hop, temporal, chars) and life_eval's `found`.

Variants are module switches (NAME=VALUE pairs joined by '+', e.g. `ranking.WHEN_WEIGHT=0.2+ranking.MONTH_BOOST=0.0`);
`base` is what ships.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import life_eval  # noqa: E402
from bench.locomo import EVAL, STORES  # noqa: E402
from bench.locomo_tune import load_recall  # noqa: E402
from functools import partial  # noqa: E402

from bot.compose import build_embedder, multilingual_embedder  # noqa: E402
from core.memory.facade import _names_of  # noqa: E402
from core.config import DEFAULT_EMBEDDING_MODEL, Settings  # noqa: E402
from core.memory import query_understanding, ranking  # noqa: E402
from core.memory import search as search_mod  # noqa: E402
from storage.db import open_database  # noqa: E402

# a question about time, for --misses: LoCoMo's temporal category and any asked so in another
TIME_WORDS = re.compile(r"\b(?:when|how long|what (?:year|month|day|date)|which (?:year|month|day))\b", re.I)
DUMP: dict[str, tuple] = {}  # per question of the last variant: (found, category, question), for --dump
MULTILINGUAL = multilingual_embedder(Settings())
MODULES = {"ranking": ranking, "search": search_mod, "query_understanding": query_understanding}


def apply(variant: str) -> dict:
    """Set a variant's switches; returns what they were, to put back."""
    before = {}
    if variant == "base":
        return before
    for part in variant.split("+"):
        name, value = part.split("=")
        module, attr = name.split(".")
        home = MODULES[module]
        before[(home, attr)] = getattr(home, attr)
        setattr(home, attr, type(getattr(home, attr))(eval(value)))  # numbers and booleans
    return before


def restore(before: dict) -> None:
    for (home, attr), value in before.items():
        setattr(home, attr, value)


class Capture:
    """ranking.rank wrapped: the last call's inputs and scores, for --misses."""

    def __init__(self) -> None:
        self.real = ranking.rank
        self.last: dict = {}

    def __call__(self, query, keyword, semantic, rows, **kw):
        groups, scores = self.real(query, keyword, semantic, rows, **kw)
        self.last = {"keyword": list(keyword), "semantic": list(semantic), "rows": rows, "scores": scores,
                     "groups": groups}
        return groups, scores


async def run_store(store: Path, questions: list[str], owner_aliases: tuple[str, ...], capture: Capture | None,
                    embedder) -> list[tuple[list[str], dict]]:
    out = []
    async with open_database(store / "biographer.sqlite3") as conn:
        # as the CLI's Memory makes it: every name of a person, the multilingual space where it has vectors
        searcher = search_mod.Searcher(conn, embedder, owner_aliases=owner_aliases,
                                       person_names=partial(_names_of, conn), multilingual=MULTILINGUAL)
        for q in questions:
            hits = await searcher.search(q, limit=10)
            out.append(([h.text for h in hits], dict(capture.last) if capture else {}))
        searcher.close()
    return out


def locomo_items(convs: range) -> list[dict]:
    items = [json.loads(line) for line in (EVAL / "qa.jsonl").open() if line.strip()]
    return [it for it in items if it.get("evidence_text") and it["conv"] in convs]


def where_ranked(needle: str, ranked: list[tuple[int, float]], rows: dict) -> int | None:
    for place, (cid, _) in enumerate(ranked, 1):
        row = rows.get(cid)
        if row is not None and needle in " ".join(row.text.lower().split()):
            return place
    return None


def measure_locomo(recall, convs: range, embedder, misses: bool) -> dict[str, float]:
    by_conv = _by_conv(locomo_items(convs))
    out: dict[str, list] = defaultdict(list)
    capture = Capture() if misses else None
    if capture:
        ranking.rank = capture
    try:
        for sid, group in by_conv.items():
            results = asyncio.run(run_store(STORES / sid, [it["question"] for it in group], (), capture, embedder))
            for it, (texts, seen) in zip(group, results):
                both = recall.score(it, texts, [5, 10])
                sc = both[10]
                out[f"cat{it['category']}@5"].append(both[5]["all"])
                out["all@5"].append(both[5]["all"])
                out["all"].append(sc["all"])
                DUMP[it["qid"]] = (sc["all"], it["category"], it["question"])
                out["chars"].append(sc["chars"])
                out[f"cat{it['category']}"].append(sc["all"])
                if misses and (it["category"] == 2 or TIME_WORDS.search(it["question"])) and not sc["all"]:
                    print(f"MISS {sid} cat{it['category']} {it['question']!r} answer={it.get('answer')!r}")
                    for needle, ok in zip(it["evidence_text"], sc["found"]):
                        nd = recall.needle(needle)
                        if ok:
                            continue
                        fused = sorted(seen["scores"], key=seen["scores"].__getitem__, reverse=True)
                        print(f"   evidence {needle[:90]!r}\n     kw {where_ranked(nd, seen['keyword'], seen['rows'])}"
                              f" sem {where_ranked(nd, seen['semantic'], seen['rows'])}"
                              f" fused {where_ranked(nd, [(c, 0) for c in fused], seen['rows'])}")
    finally:
        if capture:
            ranking.rank = capture.real
    return {k: statistics.fmean(v) for k, v in out.items()}


def measure_life(embedder, misses: bool) -> dict[str, float]:
    questions = life_eval.QUESTIONS
    halves = life_eval.halves()
    aliases = tuple(a.lower() for a in life_eval.OWNER_ALIASES.split(","))
    out: dict[str, list] = defaultdict(list)
    for column, person in ((1, "first"), (2, "third")):
        results = asyncio.run(run_store(life_eval.STORE, [q[column] for q in questions], aliases, None, embedder))
        for q, hv, (texts, _) in zip(questions, halves, results):
            ok = life_eval.found([{"text": t} for t in texts], q[3])
            out[f"{person} {q[0]}@5"].append(life_eval.found([{"text": t} for t in texts[:5]], q[3]))
            out[f"{person} {q[0]}@3"].append(life_eval.found([{"text": t} for t in texts[:3]], q[3]))
            out[f"{person} {hv}"].append(ok)
            DUMP[f"life {person} {q[column]}"] = (ok, q[0], q[column])
            out[f"{person} {q[0]}"].append(ok)
            out[f"{person} all"].append(ok)
            out["chars"].append(sum(len(t) for t in texts))
            if misses and not ok:
                print(f"MISS life {person} {hv} [{q[0]}] {q[column]}")
    return {k: (sum(v) if k != "chars" else statistics.fmean(v)) for k, v in out.items()}


def costs(embedder) -> None:
    """What with_when costs a question that asks when, over the candidates ranking had for it
    (LoCoMo 0-4), best of 5 runs each; and how many candidates that is."""
    import timeit

    from core.memory.time_words import asks_when

    capture = Capture()
    ranking.rank = capture
    taken, sizes = [], []
    try:
        for sid, group in _by_conv(locomo_items(range(0, 5))).items():
            asked = [it["question"] for it in group if asks_when(it["question"])]

            async def each(store=STORES / sid, asked=asked) -> None:
                async with open_database(store / "biographer.sqlite3") as conn:
                    searcher = search_mod.Searcher(conn, embedder, person_names=partial(_names_of, conn))
                    for q in asked:
                        await searcher.search(q, limit=10)
                        scores, rows = capture.last["scores"], capture.last["rows"]
                        taken.append(min(timeit.repeat(lambda: ranking.with_when(scores, rows), number=1, repeat=5)))
                        sizes.append(len(scores))
                    searcher.close()
            asyncio.run(each())
    finally:
        ranking.rank = capture.real
    taken.sort()
    print(f"{len(taken)} questions that ask when: with_when p50 {taken[len(taken) // 2] * 1e3:.2f} ms, "
          f"p95 {taken[int(len(taken) * 0.95)] * 1e3:.2f} ms over {statistics.fmean(sizes):.0f} candidates "
          f"(load {os.getloadavg()[0]:.1f})")


def _by_conv(items: list[dict]) -> dict[str, list[dict]]:
    by_conv = defaultdict(list)
    for it in items:
        by_conv[it["sample_id"]].append(it)
    return by_conv


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="locomo-tune")
    ap.add_argument("--variants", default="base")
    ap.add_argument("--misses", action="store_true")
    ap.add_argument("--costs", action="store_true", help="time the when rule over each when-question's candidates")
    ap.add_argument("--dump", default="", help="a folder: each variant's per-question results as JSON")
    args = ap.parse_args()
    os.environ.setdefault("BIOGRAPHER_OWNER_ALIASES", life_eval.OWNER_ALIASES)
    recall = load_recall()
    embedder = build_embedder(Settings(), DEFAULT_EMBEDDING_MODEL)  # what `auto` chose for these stores
    if args.costs:
        costs(embedder)
        return
    for variant in args.variants.split(","):
        before = apply(variant)
        try:
            for name in args.sets.split(","):
                if name == "life":
                    f = measure_life(embedder, args.misses)
                    cells = " ".join(f"{k}={v:g}" if k != "chars" else f"chars={v:,.0f}" for k, v in sorted(f.items())
                                     if k == "chars" or k.split()[1] in ("tune", "held", "date", "combine", "all", "date@5",
                                                                            "combine@5", "date@3", "combine@3"))
                else:
                    convs = range(0, 5) if name == "locomo-tune" else range(5, 10)
                    f = measure_locomo(recall, convs, embedder, args.misses)
                    cells = (f"all={f['all']:.3f} multi-hop={f['cat1']:.3f} temporal={f['cat2']:.3f} "
                             f"@5: all={f['all@5']:.3f} mh={f['cat1@5']:.3f} temporal={f['cat2@5']:.3f} "
                             f"open={f['cat3']:.3f} single={f['cat4']:.3f} adv={f['cat5']:.3f} chars={f['chars']:,.0f}")
                print(f"{variant} | {name} | {cells}", flush=True)
        finally:
            restore(before)
        if args.dump:
            Path(args.dump).mkdir(parents=True, exist_ok=True)
            (Path(args.dump) / f"{variant}.json").write_text(json.dumps(DUMP))
            DUMP.clear()


if __name__ == "__main__":
    main()
