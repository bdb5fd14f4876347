"""Where LoCoMo's missed evidence is: for each question hybrid search misses at 10 (the CLI's own
path, in process: bot.compose.open_memory, Memory.search), each evidence turn not returned, and
where its chunk stood among the candidates the ranking had: its place in the keyword half, the
semantic half and the fused order (every candidate, after the boosts), absent from all, or split
across two chunks (in none whole).

    python bench/locomo_misses.py              # the tuning half, conversations 0-4
    python bench/locomo_misses.py --list       # and each missed turn, one a line

Tuning half only by default: the held-out conversations are for measuring, not for reading
their misses. Needs bench/stores (bench/locomo.py builds them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.locomo import EVAL, STORES  # noqa: E402
from bench.locomo_tune import load_recall  # noqa: E402
from core.memory import ranking  # noqa: E402

Missed = tuple[int, str, str, int | None, int | None, int | None, str]  # category, question, where, kw, sem, fused, turn


def place(rank: int | None, edges: tuple[int, ...]) -> str:
    """A rank as the first edge it is within ("-": not in the list)."""
    if rank is None:
        return "-"
    return next((f"<={e}" for e in edges if rank <= e), f">{edges[-1]}")


async def misses(sid: str, group: list[dict], recall) -> list[Missed]:
    from bot.compose import open_memory
    from core.config import Settings
    from storage import chunks as chunk_store

    calls: list[tuple] = []
    shipped = ranking.rank

    def recording(query, keyword, semantic, rows, **kw):
        groups, boosted = shipped(query, keyword, semantic, rows, **kw)
        calls.append((list(keyword), list(semantic), boosted))
        return groups, boosted

    out: list[Missed] = []
    ranking.rank = recording
    try:
        async with open_memory(Settings(data_dir=STORES / sid)) as memory:
            every = None
            for it in group:
                calls.clear()
                hits = await memory.search(it["question"], limit=10)
                score = recall.score(it, [h.text for h in hits], [10])[10]
                if score["all"] or not calls:
                    continue
                if every is None:
                    async with memory.conn.execute("SELECT id FROM chunks") as cur:
                        ids = [row[0] async for row in cur]
                    every = await chunk_store.get_chunks(memory.conn, ids)
                keyword, semantic, boosted = calls[-1]  # the last ranking (a list's example round re-ranks)
                kw = {cid: i + 1 for i, (cid, _) in enumerate(keyword)}
                sem = {cid: i + 1 for i, (cid, _) in enumerate(semantic)}
                fused = {cid: i + 1 for i, cid in enumerate(sorted(boosted, key=boosted.__getitem__, reverse=True))}
                for turn, found in zip(it["evidence_text"], score["found"]):
                    if found:
                        continue
                    needle = recall.needle(turn)
                    holders = [cid for cid, row in every.items() if needle in recall.norm(row.text)]
                    if not holders:
                        out.append((it["category"], it["question"], "split", None, None, None, needle[:60]))
                        continue
                    best = min(holders, key=lambda cid: fused.get(cid, 10**9))
                    where = "absent" if best not in fused else place(fused[best], (30,)).replace("<=30", "fused 11-30")
                    out.append((it["category"], it["question"], where, kw.get(best), sem.get(best), fused.get(best),
                                needle[:60]))
    finally:
        ranking.rank = shipped
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--convs", default="0-4")
    ap.add_argument("--list", action="store_true", help="print each missed turn")
    args = ap.parse_args()
    first, last = (int(n) for n in args.convs.split("-"))
    recall = load_recall()
    items = [json.loads(line) for line in (EVAL / "qa.jsonl").open() if line.strip()]
    items = [it for it in items if it.get("evidence_text") and first <= it["conv"] <= last]
    by_store: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        by_store[it["sample_id"]].append(it)
    found: list[Missed] = []
    for sid, group in by_store.items():
        found += asyncio.run(misses(sid, group, recall))
    if args.list:
        for row in found:
            print(row)
    questions: dict[tuple[int, str], list[Missed]] = defaultdict(list)
    for row in found:
        questions[(row[0], row[1])].append(row)
    print(f"{len(questions)} of {len(items)} questions missed at 10; {len(found)} evidence turns not returned")
    print("\n| turns: where | n |\n|---|---|")
    for where, n in sorted(Counter(row[2] for row in found).items()):
        print(f"| {where} | {n} |")
    print("\n| turns: keyword half / semantic half | n |\n|---|---|")
    for key, n in sorted(Counter(f"{place(r[3], (10, 30, 100))} / {place(r[4], (10, 30, 50))}"
                                 for r in found if r[2] not in ("split", "absent")).items()):
        print(f"| {key} | {n} |")
    # a question is as far as its worst missed turn
    worst = Counter()
    for (category, _), rows in questions.items():
        ranks = [r[5] if r[5] is not None else 10**9 for r in rows]
        worst[(category, place(max(ranks), (15, 20, 30, 60)) if max(ranks) < 10**9 else "absent")] += 1
    print("\n| questions: category, worst missed turn's fused place | n |\n|---|---|")
    for (category, where), n in sorted(worst.items()):
        print(f"| {category} {where} | {n} |")


if __name__ == "__main__":
    main()
