"""What the person rounds cost (core/memory/search.py): hybrid search of the life archive's
questions in process, with their query vectors computed beforehand, the rounds on and off in
alternation (off: search.PERSON_SHARE 0, so no one is ranked apart), median milliseconds per
query over all questions and over those naming someone the rounds rank apart.

    python bench/person_rounds.py [--runs 5]   # needs bench/stores/life-eval (bench/life_eval.py)
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import life_eval  # noqa: E402
from bot.compose import build_embedder  # noqa: E402
from core.config import DEFAULT_EMBEDDING_MODEL, Settings  # noqa: E402
from core.memory import search as search_mod  # noqa: E402
from core.memory.query_understanding import semantic_query  # noqa: E402
from storage.db import open_database  # noqa: E402


async def measure(runs: int) -> None:
    embedder = build_embedder(Settings(), DEFAULT_EMBEDDING_MODEL)
    aliases = tuple(a.lower() for a in life_eval.OWNER_ALIASES.split(","))
    questions = [q[2] for q in life_eval.QUESTIONS]
    async with open_database(life_eval.STORE / "biographer.sqlite3") as conn:
        searcher = search_mod.Searcher(conn, embedder, owner_aliases=aliases)
        understood = [await searcher.understand(q) for q in questions]
        vectors = embedder.embed([semantic_query(q, u.intent, u.names) for q, u in zip(questions, understood)],
                                 query=True)
        apart = [bool(u.apart) for u in understood]
        times: dict[bool, list[list[float]]] = {True: [[] for _ in questions], False: [[] for _ in questions]}
        shipped = search_mod.PERSON_SHARE
        for _ in range(runs):
            for i, (question, vector) in enumerate(zip(questions, vectors)):
                for on in (True, False):
                    search_mod.PERSON_SHARE = shipped if on else 0.0
                    start = time.perf_counter()
                    await searcher.search(question, limit=10, query_vector=vector)
                    times[on][i].append(time.perf_counter() - start)
        search_mod.PERSON_SHARE = shipped
        searcher.close()
    for label, keep in (("all questions", [True] * len(questions)), ("naming someone ranked apart", apart)):
        row = []
        for on in (True, False):
            medians = [statistics.median(t) * 1000 for t, k in zip(times[on], keep) if k]
            row.append(statistics.median(medians))
        print(f"{label} ({sum(keep)}): rounds on {row[0]:.1f} ms, off {row[1]:.1f} ms per query (median)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    asyncio.run(measure(args.runs))


if __name__ == "__main__":
    main()
