"""Fusion variants tried by bench/locomo_tune.py. Each takes (question, keyword list, semantic
list, chunks by id) and returns the texts of the top results, best first."""

from __future__ import annotations

import numpy as np


def texts(ids, chunks):
    return [chunks[i].text.strip() for i in ids]


def rrf(lists, weights, k, depth):
    scores = {}
    for ranking, w in zip(lists, weights):
        for rank, (item, _) in enumerate(ranking[:depth]):
            scores[item] = scores.get(item, 0.0) + w / (k + rank + 1)
    return sorted(scores, key=scores.__getitem__, reverse=True)


def make_rrf(wk=1.0, ws=1.0, k=60, depth=50):
    return lambda q, kw, sem, ch: texts(rrf([kw, sem], [wk, ws], k, depth)[:10], ch)


def minmax(ranking, depth):
    if not ranking:
        return {}
    vals = np.array([s for _, s in ranking[:depth]])
    lo, hi = vals.min(), vals.max()
    span = (hi - lo) or 1.0
    return {i: (s - lo) / span for i, s in ranking[:depth]}


def make_linear(alpha=0.7, depth=50):
    """alpha * normalised keyword + (1 - alpha) * normalised semantic."""
    def fuse(q, kw, sem, ch):
        a, b = minmax(kw, depth), minmax(sem, depth)
        ids = set(a) | set(b)
        score = {i: alpha * a.get(i, 0.0) + (1 - alpha) * b.get(i, 0.0) for i in ids}
        return texts(sorted(score, key=score.__getitem__, reverse=True)[:10], ch)
    return fuse


def make_rel(alpha=0.7, depth=50):
    """Scores relative to each list's best (keyword bm25 / best bm25, cosine / best cosine)."""
    def fuse(q, kw, sem, ch):
        a = {i: s / kw[0][1] for i, s in kw[:depth]} if kw else {}
        b = {i: s / sem[0][1] for i, s in sem[:depth]} if sem else {}
        ids = set(a) | set(b)
        score = {i: alpha * a.get(i, 0.0) + (1 - alpha) * b.get(i, 0.0) for i in ids}
        return texts(sorted(score, key=score.__getitem__, reverse=True)[:10], ch)
    return fuse


VARIANTS = {
    "keyword": lambda q, kw, sem, ch: texts([i for i, _ in kw[:10]], ch),
    "semantic": lambda q, kw, sem, ch: texts([i for i, _ in sem[:10]], ch),
    "rrf60 1:1 d50": make_rrf(),
}
for ws in (0.7, 0.5, 0.3):
    VARIANTS[f"rrf60 1:{ws} d50"] = make_rrf(ws=ws)
for k in (5, 10, 20, 30):
    for ws in (1.0, 0.5):
        VARIANTS[f"rrf{k} 1:{ws} d50"] = make_rrf(ws=ws, k=k)
for d in (20, 100):
    VARIANTS[f"rrf60 1:0.5 d{d}"] = make_rrf(ws=0.5, depth=d)
for a in (0.5, 0.6, 0.7, 0.8):
    VARIANTS[f"minmax a{a}"] = make_linear(a)
    VARIANTS[f"relative a{a}"] = make_rel(a)


# ---------------------------------------------------------------- line-level keyword scores

import sqlite3  # noqa: E402
from functools import lru_cache  # noqa: E402

from core.search import keyword_query  # noqa: E402

_LINE_DB: dict[int, sqlite3.Connection] = {}


def line_db(chunks) -> sqlite3.Connection:
    key = id(chunks)
    if key not in _LINE_DB:
        db = sqlite3.connect(":memory:")
        db.execute("CREATE VIRTUAL TABLE l USING fts5(text, cid UNINDEXED, "
                   "tokenize='porter unicode61 remove_diacritics 2')")
        db.executemany("INSERT INTO l(text, cid) VALUES (?, ?)",
                       [(line, cid) for cid, r in chunks.items() for line in r.text.split("\n")])
        _LINE_DB[key] = db
    return _LINE_DB[key]


def line_ranking(q, chunks, depth=100):
    """Chunks ranked by their best line's bm25 (lines scored as their own documents)."""
    db = line_db(chunks)
    match = keyword_query(q)
    best: dict[int, float] = {}
    for cid, s in db.execute("SELECT cid, bm25(l) FROM l WHERE l MATCH ? ORDER BY bm25(l) LIMIT 400",
                             (match,)):
        best.setdefault(cid, -s)
    return sorted(best.items(), key=lambda x: -x[1])[:depth]


def make_lines(wk=1.0, wl=1.0, ws=0.5, k=10, depth=50):
    def fuse(q, kw, sem, ch):
        ln = line_ranking(q, ch)
        return texts(rrf([kw, ln, sem], [wk, wl, ws], k, depth)[:10], ch)
    return fuse


VARIANTS["lines only"] = lambda q, kw, sem, ch: texts([i for i, _ in line_ranking(q, ch)[:10]], ch)
for wk, wl, ws in ((1, 1, 0.5), (1, 1, 1), (0.5, 1, 0.5), (1, 0.5, 0.5), (0, 1, 0.5)):
    VARIANTS[f"rrf10 kw{wk} line{wl} sem{ws}"] = make_lines(wk, wl, ws)


# ---------------------------------------------------------------- dates named in the question

from datetime import timedelta  # noqa: E402

from core.search import parse_time, query_dates  # noqa: E402


def in_window(row, periods, slack):
    if not periods or row.time_start is None:
        return False
    a, b = parse_time(row.time_start).date(), parse_time(row.time_end or row.time_start).date()
    return any(a <= last + timedelta(days=slack) and b >= first - timedelta(days=slack)
               for first, last in periods)


def make_date_boost(base_alpha=0.6, beta=0.3, slack=1, depth=50):
    def fuse(q, kw, sem, ch):
        periods = query_dates(q)
        a, b = minmax(kw, depth), minmax(sem, depth)
        ids = set(a) | set(b)
        score = {i: base_alpha * a.get(i, 0.0) + (1 - base_alpha) * b.get(i, 0.0)
                 + (beta if in_window(ch[i], periods, slack) else 0.0) for i in ids}
        return texts(sorted(score, key=score.__getitem__, reverse=True)[:10], ch)
    return fuse


def make_date_rrf(wk=1.0, ws=0.5, wd=1.0, k=10, slack=1, depth=50):
    def fuse(q, kw, sem, ch):
        periods = query_dates(q)
        dated = [(i, s) for i, s in kw if in_window(ch[i], periods, slack)]
        return texts(rrf([kw, sem, dated], [wk, ws, wd], k, depth)[:10], ch)
    return fuse


for beta in (0.1, 0.2, 0.4):
    for slack in (0, 1, 3):
        VARIANTS[f"minmax a0.6 date+{beta} s{slack}"] = make_date_boost(beta=beta, slack=slack)
for wd in (0.5, 1.0, 2.0):
    for slack in (0, 1, 3):
        VARIANTS[f"rrf10 1:0.5 datekw{wd} s{slack}"] = make_date_rrf(wd=wd, slack=slack)


# ---------------------------------------------------------------- neighbours and diversity

VECTORS: dict[int, dict] = {}  # id(chunks) -> {chunk id: float vector}


def base_scores(q, kw, sem, ch, alpha=0.6, beta=0.4, slack=1, depth=50):
    periods = query_dates(q)
    a, b = minmax(kw, depth), minmax(sem, depth)
    return {i: alpha * a.get(i, 0.0) + (1 - alpha) * b.get(i, 0.0)
            + (beta if in_window(ch[i], periods, slack) else 0.0) for i in set(a) | set(b)}


def neighbours(ch):
    key = id(ch)
    if ("nb", key) not in _LINE_DB:
        order = sorted(ch, key=lambda i: (ch[i].document_id, ch[i].char_start))
        nb = {}
        for x, y in zip(order, order[1:]):
            if ch[x].document_id == ch[y].document_id:
                nb.setdefault(x, []).append(y)
                nb.setdefault(y, []).append(x)
        _LINE_DB[("nb", key)] = nb
    return _LINE_DB[("nb", key)]


def make_neighbour(gamma=0.2):
    def fuse(q, kw, sem, ch):
        s = base_scores(q, kw, sem, ch)
        nb = neighbours(ch)
        s2 = {i: v + gamma * max((s.get(j, 0.0) for j in nb.get(i, [])), default=0.0) for i, v in s.items()}
        return texts(sorted(s2, key=s2.__getitem__, reverse=True)[:10], ch)
    return fuse


def make_mmr(lam=0.8, pool=30):
    def fuse(q, kw, sem, ch):
        s = base_scores(q, kw, sem, ch)
        vec = VECTORS[id(ch)]
        cand = sorted(s, key=s.__getitem__, reverse=True)[:pool]
        chosen = []
        while cand and len(chosen) < 10:
            def value(i):
                sim = max((float(vec[i] @ vec[j]) for j in chosen if i in vec and j in vec), default=0.0)
                return lam * s[i] - (1 - lam) * sim
            best = max(cand, key=value)
            chosen.append(best)
            cand.remove(best)
        return texts(chosen, ch)
    return fuse


VARIANTS["best: minmax a0.6 date+0.4 s1"] = lambda q, kw, sem, ch: texts(
    sorted((s := base_scores(q, kw, sem, ch)), key=s.__getitem__, reverse=True)[:10], ch)
for g in (0.1, 0.2, 0.4):
    VARIANTS[f"best + neighbour {g}"] = make_neighbour(g)
for lam in (0.9, 0.8, 0.7):
    VARIANTS[f"best + mmr {lam}"] = make_mmr(lam)


def make_grid(alpha, beta, gamma, depth, agg="max", merge=False):
    def fuse(q, kw, sem, ch):
        s = base_scores(q, kw, sem, ch, alpha=alpha, beta=beta, depth=depth)
        nb = neighbours(ch)
        pick = max if agg == "max" else sum
        s2 = {i: v + gamma * pick([s.get(j, 0.0) for j in nb.get(i, [])] or [0.0]) for i, v in s.items()}
        order = sorted(s2, key=s2.__getitem__, reverse=True)
        if not merge:
            return texts(order[:10], ch)
        # adjacent hits become one passage; the freed place goes to the next candidate
        groups: list[list[int]] = []
        for i in order:
            home = next((g for g in groups if any(j in nb.get(i, []) for j in g)), None)
            if home is not None:
                home.append(i)
            elif len(groups) < 10:
                groups.append([i])
            if len(groups) >= 10 and home is None:
                break
        return ["\n".join(ch[i].text.strip() for i in sorted(g, key=lambda i: ch[i].char_start))
                for g in groups[:10]]
    return fuse


for alpha in (0.5, 0.6, 0.7):
    for beta in (0.2, 0.4):
        for gamma in (0.2, 0.3):
            VARIANTS[f"grid a{alpha} b{beta} g{gamma} d50"] = make_grid(alpha, beta, gamma, 50)
for depth in (30, 100):
    VARIANTS[f"grid a0.6 b0.4 g0.2 d{depth}"] = make_grid(0.6, 0.4, 0.2, depth)
VARIANTS["grid a0.6 b0.4 g0.2 d50 sum"] = make_grid(0.6, 0.4, 0.2, 50, agg="sum")
VARIANTS["grid a0.6 b0.4 g0.2 d50 merge"] = make_grid(0.6, 0.4, 0.2, 50, merge=True)


def make_budget(alpha=0.6, beta=0.4, gamma=0.2, depth=100, budget=9000):
    def fuse(q, kw, sem, ch):
        s = base_scores(q, kw, sem, ch, alpha=alpha, beta=beta, depth=depth)
        nb = neighbours(ch)
        s2 = {i: v + gamma * max([s.get(j, 0.0) for j in nb.get(i, [])] or [0.0]) for i, v in s.items()}
        order = sorted(s2, key=s2.__getitem__, reverse=True)
        groups: list[list[int]] = []
        used = 0
        for i in order:
            size = len(ch[i].text.strip())
            home = next((g for g in groups if any(j in nb.get(i, []) for j in g)), None)
            if home is None and len(groups) >= 10:
                break
            if used + size > budget:
                continue  # a hit that would overrun the budget is skipped; a smaller one may fit
            used += size
            (home.append(i) if home is not None else groups.append([i]))
        return ["\n".join(ch[i].text.strip() for i in sorted(g, key=lambda i: ch[i].char_start))
                for g in groups[:10]]
    return fuse


for budget in (7500, 8500, 9000):
    VARIANTS[f"budget merge {budget} d100"] = make_budget(budget=budget)
VARIANTS["budget merge 9000 d50"] = make_budget(budget=9000, depth=50)
VARIANTS["budget merge 9000 a0.7 g0.3"] = make_budget(alpha=0.7, gamma=0.3, budget=9000)
