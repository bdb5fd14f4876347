"""Fusion variants tried by bench/locomo_tune.py. Each takes (question, keyword list, semantic
list, chunks by id) and returns the texts of the top results, best first."""

from __future__ import annotations

import numpy as np


def texts(ids, chunks):
    return [chunks[i].text.strip() for i in ids]


def rrf(lists, weights, k, depth):
    scores = {}
    for ranked, w in zip(lists, weights):
        for rank, (item, _) in enumerate(ranked[:depth]):
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

from storage.keyword.query import ENGLISH_STOP_WORDS, keyword_query  # noqa: E402

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

from core.memory.ranking import query_dates  # noqa: E402
from core.times import parse_utc as parse_time  # noqa: E402


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


# ---------------------------------------------------------------- the shipped ranking (core/memory/ranking.py)

from core import ranking  # noqa: E402

FTS: dict[int, sqlite3.Connection] = {}  # id(chunks) -> read-only connection to that store


def passages(groups, ch):
    return ["\n".join(ch[i].text.strip() for i in sorted(g, key=lambda i: ch[i].char_start))
            for g in groups]


def candidates(kw, sem, ch):
    """The chunk rows the shipped search reads: those of the two candidate lists."""
    return {i: ch[i] for i in dict.fromkeys([i for i, _ in kw] + [i for i, _ in sem])}


def shipped(q, kw, sem, ch):
    groups, _ = ranking.rank(q, kw, sem, candidates(kw, sem, ch), limit=10)
    return passages(groups, ch)


VARIANTS["shipped"] = shipped


# ---------------------------------------------------------------- beyond the shipped ranking

import math  # noqa: E402
import re  # noqa: E402

QVEC: dict[str, np.ndarray] = {}  # question -> its embedding


def sem_all(q, kw, sem, ch):
    """Cosine of every candidate (keyword hits outside the semantic list included)."""
    vec, qv = VECTORS[id(ch)], QVEC[q]
    return [(i, float(vec[i] @ qv)) for i in dict.fromkeys([i for i, _ in kw] + [i for i, _ in sem]) if i in vec]


def norm_against(ranked, ref):
    """Min-max normalised against `ref`'s range, clipped to [0, 1]."""
    if not ref:
        return {}
    vals = [s for _, s in ref]
    lo, span = min(vals), (max(vals) - min(vals)) or 1.0
    return {i: min(1.0, max(0.0, (s - lo) / span)) for i, s in ranked}


def fts_terms(q):
    words = list(dict.fromkeys(w.lower() for w in re.findall(r"\w+", q)))
    return [w for w in words if w not in ENGLISH_STOP_WORDS] or words


def term_hits(ch, terms, ids):
    """{term: set of ids among `ids` the term matches} through FTS5 (porter, as the index)."""
    db = FTS[id(ch)]
    marks = ",".join(str(i) for i in ids)
    return {t: {r[0] for r in db.execute(
        f"SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN ({marks})", (f'"{t}"',))}
        for t in terms}


def df(ch, term):
    db = FTS[id(ch)]
    return db.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (f'"{term}"',)).fetchone()[0]


def window_key(row, gap_minutes=30):
    return row.document_id, (row.time_start or "")[:10]


def pipeline(q, kw, sem, ch, *, alpha=0.6, semall=False, div=0.0, cover=0.0, prf=0, prf_w=0.3,
             prf_terms=5, gamma=ranking.NEIGHBOUR_BOOST, beta=ranking.DATE_BOOST, budget=9000,
             kwdepth=100, day_div=True):
    kw = kw[:kwdepth]
    if prf:
        kw = prf_expand(q, kw, ch, fb=prf, weight=prf_w, nterms=prf_terms)
    semlist = sem_all(q, kw, sem, ch) if semall else sem
    a = ranking._normalised(kw)
    b = norm_against(semlist, sem) if semall else ranking._normalised(sem)
    scores = {i: alpha * a.get(i, 0.0) + (1 - alpha) * b.get(i, 0.0) for i in dict.fromkeys([*a, *b])}
    rows = {i: ch[i] for i in scores}
    periods = ranking.query_dates(q)
    if periods:
        for i in scores:
            if ranking._within(rows[i], periods):
                scores[i] += beta
    nb = ranking._adjacent(rows)
    boosted = {i: s + gamma * max((scores.get(n, 0.0) for n in nb.get(i, ())), default=0.0)
               for i, s in scores.items()}
    order = sorted(boosted, key=boosted.__getitem__, reverse=True)
    if div or cover:
        order = greedy(q, order, boosted, rows, nb, ch, div=div, cover=cover)
    groups = ranking._passages(order, rows, nb, limit=10, budget=budget)
    return passages(groups, ch)


def greedy(q, order, s, rows, nb, ch, *, div, cover, pool=40):
    """Re-order the top `pool`: a chunk from a conversation window (document and day) already
    taken loses `div` per taken chunk there (adjacent ones excepted: they merge); a chunk holding a
    query term no taken chunk holds gains `cover` × that term's idf share."""
    cand = order[:pool]
    rest = order[pool:]
    hits = {}
    weights = {}
    if cover:
        terms = fts_terms(q)
        hits = term_hits(ch, terms, cand)
        n = len(ch)
        idf = {t: math.log(1 + n / (1 + df(ch, t))) for t in terms}
        tot = sum(idf.values()) or 1.0
        weights = {t: idf[t] / tot for t in terms}
    taken: list[int] = []
    covered: set[str] = set()
    win_count: dict = {}
    while cand:
        def value(i):
            v = s[i]
            if div and not any(n in taken for n in nb.get(i, ())):
                v -= div * win_count.get(window_key(rows[i]), 0)
            if cover:
                v += cover * sum(w for t, w in weights.items() if i in hits[t] and t not in covered)
            return v
        best = max(cand, key=value)
        cand.remove(best)
        taken.append(best)
        win_count[window_key(rows[best])] = win_count.get(window_key(rows[best]), 0) + 1
        covered |= {t for t in weights if best in hits[t]}
    return taken + rest


def prf_expand(q, kw, ch, *, fb=3, weight=0.3, nterms=5):
    """RM3-style: the `nterms` highest-idf words of the top `fb` keyword hits, not in the query,
    searched as a second keyword list whose normalised scores join the first at `weight`."""
    db = FTS[id(ch)]
    qterms = set(fts_terms(q))
    n = len(ch)
    tf: dict[str, float] = {}
    for rank_, (i, _) in enumerate(kw[:fb]):
        text = re.sub(r"^\[[^\]]*\] [^:]*: ", "", ch[i].text, flags=re.M)
        words = [w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)]
        for w in set(words) - qterms - ENGLISH_STOP_WORDS:
            tf[w] = tf.get(w, 0.0) + 1.0 / (rank_ + 1)
    scored = []
    for w, f in tf.items():
        d = df(ch, w)
        if d == 0 or d > n * 0.2:
            continue
        scored.append((f * math.log(n / d), w))
    extra = [w for _, w in sorted(scored, reverse=True)[:nterms]]
    if not extra:
        return kw
    rows = db.execute("SELECT rowid, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ? "
                      "ORDER BY 2 LIMIT 100", (" OR ".join(f'"{w}"' for w in extra),)).fetchall()
    a = ranking._normalised(kw)
    b = ranking._normalised([(i, -s) for i, s in rows])
    lo = min(s for _, s in kw) if kw else 0.0
    hi = max(s for _, s in kw) if kw else 1.0
    mixed = {i: (1 - weight) * a.get(i, 0.0) + weight * b.get(i, 0.0) for i in dict.fromkeys([*a, *b])}
    # back on the keyword list's own scale so the fusion treats it as before
    return sorted(((i, lo + v * (hi - lo)) for i, v in mixed.items()), key=lambda x: -x[1])


def make_pipeline(**kw_):
    return lambda q, kw, sem, ch: pipeline(q, kw, sem, ch, **kw_)


VARIANTS["pipe base"] = make_pipeline()
for w in (0.5, 0.6, 0.7):
    VARIANTS[f"pipe semall a{w}"] = make_pipeline(semall=True, alpha=w)
for d in (0.05, 0.1, 0.2, 0.3):
    VARIANTS[f"pipe div{d}"] = make_pipeline(div=d)
for c in (0.1, 0.2, 0.4):
    VARIANTS[f"pipe cover{c}"] = make_pipeline(cover=c)
for fb, w, n in ((3, 0.2, 5), (3, 0.3, 5), (5, 0.3, 10), (2, 0.2, 3)):
    VARIANTS[f"pipe prf fb{fb} w{w} t{n}"] = make_pipeline(prf=fb, prf_w=w, prf_terms=n)


def make_density(lam=0.3, **kw_):
    """Budget spent by score per character: value = score - lam × size / 900."""
    def fuse(q, kw, sem, ch):
        s = dict(zip(*zip(*[(i, v) for i, v in ranking.rank(q, kw, sem, candidates(kw, sem, ch), limit=10)[1].items()])))
        rows = candidates(kw, sem, ch)
        nb = ranking._adjacent(rows)
        order = sorted(s, key=lambda i: s[i] - lam * len(rows[i].text.strip()) / 900, reverse=True)
        return passages(ranking._passages(order, rows, nb, limit=10, budget=9000), ch)
    return fuse


def make_merge_gate(theta=0.5, budget=9000):
    """A neighbour joins a group only if its score is at least theta × the group's best."""
    def fuse(q, kw, sem, ch):
        rows = candidates(kw, sem, ch)
        _, s = ranking.rank(q, kw, sem, rows, limit=10)
        nb = ranking._adjacent(rows)
        order = sorted(s, key=s.__getitem__, reverse=True)
        groups, group_of, used = [], {}, 0
        for i in order:
            home = next((group_of[n] for n in nb.get(i, ()) if n in group_of), None)
            if home is not None and s[i] < theta * s[home[0]]:
                continue
            if home is None and len(groups) >= 10:
                break
            size = len(rows[i].text.strip())
            if used + size > budget and (groups or home is not None):
                continue
            used += size
            if home is None:
                home = []
                groups.append(home)
            home.append(i)
            group_of[i] = home
        return passages(groups, ch)
    return fuse


for lam in (0.1, 0.2, 0.4):
    VARIANTS[f"density {lam}"] = make_density(lam)
for th in (0.3, 0.5, 0.7, 0.9):
    VARIANTS[f"merge gate {th}"] = make_merge_gate(th)
for b in (9500, 10000, 11000):
    VARIANTS[f"pipe budget {b}"] = make_pipeline(budget=b)


# ---------------------------------------------------------------- passages trimmed to the lines that match

_PREFIX = re.compile(r"^\[[^\]]*\] [^:]{1,60}: ")


def stem_match(term, word):
    k = max(4, len(term) - 2) if len(term) > 4 else len(term)
    return word.startswith(term[:k]) if len(term) > 4 else word == term


def line_spans(text):
    """(start, end) of each line of `text`."""
    out, pos = [], 0
    for line in text.split("\n"):
        out.append((pos, pos + len(line)))
        pos += len(line) + 1
    return out


def matched_lines(text, terms):
    hits = []
    for k, (s, e) in enumerate(line_spans(text)):
        body = _PREFIX.sub("", text[s:e]).lower()
        words = re.findall(r"\w+", body)
        if any(stem_match(t, w) for t in terms for w in words):
            hits.append(k)
    return hits


def make_trim(ctx=2, maxdf=0.3, budget=9000, limit=10, **pkw):
    def fuse(q, kw, sem, ch):
        rows = candidates(kw, sem, ch)
        _, s = ranking.rank(q, kw, sem, rows, limit=10)
        n = len(ch)
        terms = [t for t in fts_terms(q) if df(ch, t) <= maxdf * n]
        nb = ranking._adjacent(rows)
        # each chunk's kept line range
        keep = {}
        for i in s:
            text = rows[i].text
            spans = line_spans(text)
            m = matched_lines(text, terms) if terms else []
            if not m:
                keep[i] = (0, len(text))
            else:
                a, b = max(0, min(m) - ctx), min(len(spans) - 1, max(m) + ctx)
                keep[i] = (spans[a][0], spans[b][1])
        order = sorted(s, key=s.__getitem__, reverse=True)
        groups, group_of = [], {}

        def span(g):
            """A passage runs from its first chunk's kept start to its last chunk's kept end."""
            mem = sorted(g, key=lambda i: rows[i].char_start)
            return rows[mem[0]].char_start + keep[mem[0]][0], rows[mem[-1]].char_start + keep[mem[-1]][1]

        def size(g):
            lo, hi = span(g)
            return hi - lo

        for i in order:
            home = next((group_of[x] for x in nb.get(i, ()) if x in group_of), None)
            if home is None and len(groups) >= limit:
                break
            trial = [g for g in groups if g is not home] + [(home or []) + [i]]
            if sum(size(g) for g in trial) > budget and groups:
                continue
            if home is None:
                home = []
                groups.append(home)
            home.append(i)
            group_of[i] = home
        out = []
        for g in groups:
            mem = sorted(g, key=lambda i: rows[i].char_start)
            doc_text = "\n".join(rows[i].text for i in mem)  # adjacent chunks: joined by newline
            lo = keep[mem[0]][0]
            hi = len(doc_text) - (len(rows[mem[-1]].text) - keep[mem[-1]][1])
            out.append(doc_text[lo:hi].strip())
        return out
    return fuse


for c in (1, 2, 3):
    for mdf in (0.1, 0.3):
        VARIANTS[f"trim ctx{c} df{mdf}"] = make_trim(ctx=c, maxdf=mdf)


# ---------------------------------------------------------------- message-level embeddings (max-pooled)

LINES: dict = {}  # id(chunks) -> (chunk id per line, line embeddings); filled by the tuner


def line_sem(q, ch, depth=50, mix=1.0):
    cids, mat = LINES[id(ch)]
    sims = mat @ QVEC[q]
    best: dict[int, float] = {}
    for c, v in zip(cids, sims):
        if v > best.get(c, -9):
            best[c] = float(v)
    if mix < 1.0:
        vec = VECTORS[id(ch)]
        best = {c: mix * v + (1 - mix) * float(vec[c] @ QVEC[q]) for c, v in best.items() if c in vec}
    return sorted(best.items(), key=lambda x: -x[1])[:depth]


def make_linesem(mix=1.0, alpha=0.6, depth=50):
    def fuse(q, kw, sem, ch):
        sem2 = line_sem(q, ch, depth, mix)
        old = ranking.KEYWORD_WEIGHT
        ranking.KEYWORD_WEIGHT = alpha
        try:
            groups, _ = ranking.rank(q, kw, sem2, candidates(kw, sem2, ch), limit=10)
        finally:
            ranking.KEYWORD_WEIGHT = old
        return passages(groups, ch)
    return fuse


VARIANTS["linesem only"] = lambda q, kw, sem, ch: texts([i for i, _ in line_sem(q, ch, 10)], ch)
for mix in (1.0, 0.7, 0.5):
    for a in (0.5, 0.6):
        VARIANTS[f"linesem mix{mix} a{a}"] = make_linesem(mix, a)


SEMDEEP: dict = {}  # (question, id(chunks)) -> semantic list of depth 100 (200 sign-bit candidates)


def make_deep(depth=100, **pkw):
    return lambda q, kw, sem, ch: pipeline(q, kw, SEMDEEP[(q, id(ch))][:depth], ch, **pkw)


VARIANTS["deep sem100"] = make_deep()
VARIANTS["deep sem75"] = make_deep(75)
for fb, w, n in ((5, 0.3, 10), (5, 0.2, 10), (5, 0.4, 10), (8, 0.3, 10), (5, 0.3, 15), (3, 0.3, 10)):
    VARIANTS[f"prf2 fb{fb} w{w} t{n}"] = make_pipeline(prf=fb, prf_w=w, prf_terms=n)
VARIANTS["prf2 fb5 w0.3 t10 div0.05"] = make_pipeline(prf=5, prf_w=0.3, prf_terms=10, div=0.05)
VARIANTS["deep sem100 prf fb5 w0.3 t10"] = make_deep(prf=5, prf_w=0.3, prf_terms=10)


def prf_local(q, kw, sem, ch, *, fb=5, weight=0.3, nterms=10, maxshare=0.2):
    """PRF with document frequencies estimated inside the candidate set (no extra lookups): the
    words of the top `fb` keyword hits, weighted by rank and by log(candidates / df there)."""
    db = FTS[id(ch)]
    qterms = set(fts_terms(q))
    cand = list(dict.fromkeys([i for i, _ in kw] + [i for i, _ in sem]))
    words_of = {i: set(w.lower() for w in re.findall(r"[A-Za-z]{4,}",
                                                      re.sub(r"^\[[^\]]*\] [^:]*: ", "", ch[i].text, flags=re.M)))
                for i in cand}
    n = len(cand)
    dfc: dict[str, int] = {}
    for ws in words_of.values():
        for w in ws:
            dfc[w] = dfc.get(w, 0) + 1
    tf: dict[str, float] = {}
    for r, (i, _) in enumerate(kw[:fb]):
        for w in words_of[i] - qterms - ENGLISH_STOP_WORDS:
            tf[w] = tf.get(w, 0.0) + 1.0 / (r + 1)
    scored = sorted(((f * math.log(n / dfc[w]), w) for w, f in tf.items() if dfc[w] <= maxshare * n),
                    reverse=True)
    extra = [w for _, w in scored[:nterms]]
    if not extra:
        return kw
    rows = db.execute("SELECT rowid, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ? "
                      "ORDER BY 2 LIMIT 100", (" OR ".join(f'"{w}"' for w in extra),)).fetchall()
    a = ranking._normalised(kw)
    b = ranking._normalised([(i, -s) for i, s in rows])
    lo, hi = min(s for _, s in kw), max(s for _, s in kw)
    mixed = {i: (1 - weight) * a.get(i, 0.0) + weight * b.get(i, 0.0) for i in dict.fromkeys([*a, *b])}
    return sorted(((i, lo + v * (hi - lo)) for i, v in mixed.items()), key=lambda x: -x[1])


def make_prf_local(**pkw):
    def fuse(q, kw, sem, ch):
        if not kw:
            return pipeline(q, kw, sem, ch)
        return pipeline(q, prf_local(q, kw, sem, ch, **pkw), sem, ch)
    return fuse


for fb, w, n, ms in ((5, 0.3, 10, 0.2), (5, 0.3, 10, 0.1), (5, 0.2, 10, 0.2), (8, 0.3, 10, 0.2), (5, 0.3, 5, 0.2)):
    VARIANTS[f"prfL fb{fb} w{w} t{n} ms{ms}"] = make_prf_local(fb=fb, weight=w, nterms=n, maxshare=ms)


def make_combo(depth=100, gamma=ranking.NEIGHBOUR_BOOST, **pkw):
    def fuse(q, kw, sem, ch):
        sem = SEMDEEP[(q, id(ch))][:depth]
        kw = prf_local(q, kw, sem, ch, **pkw) if kw else kw
        return pipeline(q, kw, sem, ch, gamma=gamma)
    return fuse


VARIANTS["combo sem100 prfL fb8 ms0.1"] = make_combo(fb=8, maxshare=0.1)
VARIANTS["combo sem100 prfL fb5 ms0.1 g0.3"] = make_combo(fb=5, maxshare=0.1, gamma=0.3)
