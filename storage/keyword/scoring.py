"""FTS5's bm25, computed with NumPy from the postings of storage/keyword/postings.py.

For an expression of plain terms joined by OR (what storage/keyword/query.py writes for a search),
each term's rows are read in one indexed range (a few dozen blobs at a million chunks), its
weight per chunk is computed for all of them at once, and the top k are taken with a partial sort.
The commonest terms are skipped where they cannot decide the top k (MaxScore: a chunk that
holds only them scores at most the sum of their bounds; when that sum is below the k-th best of
the chunks the other terms hold, only those chunks are scored, with every term), so a query's
cost follows its rarer words rather than the postings of its commonest.
The arithmetic is FTS5's (fts5_aux.c, fts5Bm25Function), in the same order and in doubles:

    idf(t)   = log((N - n(t) + 0.5) / (n(t) + 0.5)), at least 1e-6
    score(d) = sum over the query's terms, in order, of
               idf(t) * (tf * (k1 + 1)) / (tf + k1 * (1 - b + b * |d| / avgdl)),  k1 = 1.2, b = 0.75

so the scores are FTS5's to the last bit and the order differs only among equal scores (FTS5
leaves their order open; here the lower chunk id comes first). Anything else (a prefix, a phrase,
a filter on the chunks, or a change not yet folded into the postings) returns None: the caller
asks FTS5. Memory: each chunk's length and a score slot, 8 bytes each, and a mark, by chunk id
(17 MB at a million chunks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from storage.keyword.postings import PART_BITS, unsmall

K1, B = 1.2, 0.75
# how much a sum of bounds is raised before it is compared with a score: the bounds and the
# scores are rounded doubles, and a chunk must never be skipped that rounding could put in the top
PRUNE_MARGIN = 1 + 1e-9


@dataclass(frozen=True)
class _Postings:
    """One query term's postings: chunk ids ascending, how often each holds it, its idf."""

    ids: np.ndarray
    tf: np.ndarray
    idf: float
    more: int  # how many chunks hold it more than once


def fts5_totals(cur) -> tuple[int, int] | None:
    """The chunk count and term count bm25 reads, from FTS5's own "averages" record (row 1 of
    its data table: SQLite varints, the row count then each column's token count). They are
    not the live totals: a contentless index cannot tell what a deleted row held, so deletions
    leave both as they were; bm25 uses them all the same, and so does this."""
    row = cur.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
    if row is None or not row[0]:
        return None
    values, at = [], 0
    blob = row[0]
    while at < len(blob) and len(values) < 2:
        value = 0
        for i in range(9):
            byte = blob[at]
            at += 1
            if i == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        values.append(value)
    return (values[0], values[1]) if len(values) == 2 else None


class Bm25Arrays:
    """The chunk lengths of every part, kept in step with the store by the parts' versions; a
    reader connection's cursor is passed in by the caller, inside its read transaction."""

    def __init__(self) -> None:
        self._versions: dict[int, int] = {}
        self._lengths = np.zeros(0, dtype=np.float64)
        self._scores = np.zeros(0, dtype=np.float64)
        self._marks = np.zeros(0, dtype=bool)  # the chunks being scored
        self._shortest = 1.0  # the fewest terms a chunk holds (a chunk with none holds no term)
        self._rows = self._terms = 0
        self.weighed = 0  # postings the last `top` computed a weight for (what pruning saves)

    def _refresh(self, cur) -> None:
        listing = cur.execute("SELECT part, version, chunks, terms FROM keyword_lengths").fetchall()
        current = {part: version for part, version, _, _ in listing}
        self._rows = sum(chunks for _, _, chunks, _ in listing)
        self._terms = sum(terms for _, _, _, terms in listing)
        top = (max(current) + 1) << PART_BITS if current else 0
        if len(self._lengths) < top:
            grown = np.zeros(top, dtype=np.float64)
            grown[:len(self._lengths)] = self._lengths
            self._lengths, self._scores = grown, np.zeros(top, dtype=np.float64)
            self._marks = np.zeros(top, dtype=bool)
        changed = current != self._versions
        for part in set(self._versions) - set(current):
            self._lengths[part << PART_BITS:(part + 1) << PART_BITS] = 0
        for part, version in current.items():
            if self._versions.get(part) == version:
                continue
            ids, lengths = cur.execute("SELECT ids, lengths FROM keyword_lengths WHERE part = ?", (part,)).fetchone()
            offsets = np.frombuffer(ids, dtype="<u2")
            base = part << PART_BITS
            self._lengths[base:base + (1 << PART_BITS)] = 0
            self._lengths[base + offsets.astype(np.int64)] = unsmall(lengths, len(offsets))
        self._versions = current
        if changed:
            held = self._lengths[self._lengths > 0]
            self._shortest = float(held.min()) if len(held) else 1.0

    def top(self, cur, terms: list[str], limit: int, *, prune: bool = True) -> list[tuple[int, float]] | None:
        """(chunk id, bm25 as FTS5 gives it: lower is better) of the best `limit`, best first;
        None when the postings lag the store (the caller asks FTS5). `prune`: skip the chunks
        that only the commonest terms hold when they cannot reach the top (MaxScore, below);
        the result is the same either way."""
        if cur.execute("SELECT EXISTS (SELECT 1 FROM keyword_log)").fetchone()[0]:
            return None
        self._refresh(cur)
        total, tokens = fts5_totals(cur) or (self._rows, self._terms)
        if not total or not self._rows:
            return []
        avgdl = tokens / total
        lists = [found for term in terms if (found := self._postings(cur, term, total)) is not None]
        self.weighed = 0
        if not lists:
            return []
        # MaxScore (Turtle and Flood, 1995), with each term's postings in two tiers: the chunks
        # that hold it once, and those that hold it more often. A tier's weights are at most its
        # bound (its highest count in the shortest chunk); the tiers whose bounds add up to less
        # than the limit-th best score among the chunks of the other tiers cannot lift a chunk
        # of their own into the top, so only those chunks are scored, each with every term: the
        # scores are the exhaustive sum's, and so is the top
        tiers = [(self._bound(p.idf, 1.0, avgdl), i, ONCE) for i, p in enumerate(lists)]
        tiers += [(self._bound(p.idf, float(p.tf.max()), avgdl), i, MORE) for i, p in enumerate(lists) if p.more]
        tiers.sort(key=lambda tier: tier[0])  # a term's chunks holding it once come before the others
        skipped = _first_try(tiers, lists, limit) if prune else 0
        while True:
            found, scores = self._score(lists, tiers[:skipped], avgdl)
            if skipped == 0:
                break
            best = _kth_best(scores, limit) if len(found) >= limit else None
            if best is not None and _below(tiers[:skipped]) * PRUNE_MARGIN < best:
                break
            self._scores[found] = 0.0
            # the limit-th best can only rise as chunks are added: skipping fewer tiers, until
            # their bounds are below it, is sure to do
            skipped = (max((s for s in range(skipped) if _below(tiers[:s]) * PRUNE_MARGIN < best), default=0)
                       if best is not None else skipped - 1)
        self._scores[found] = 0.0
        self._marks[found] = False
        return _best(found, scores, limit)

    def _postings(self, cur, term: str, total: int) -> _Postings | None:
        rows = cur.execute("SELECT part, ids, tfs FROM keyword_postings WHERE term = ?", (term,)).fetchall()
        if not rows:
            return None
        counts = [len(blob) // 2 for _, blob, _ in rows]
        ids = np.frombuffer(b"".join(blob for _, blob, _ in rows), dtype="<u2").astype(np.int64)
        ids += np.repeat(np.array([part << PART_BITS for part, _, _ in rows], dtype=np.int64), counts)
        if all(len(tfs) == n for (_, _, tfs), n in zip(rows, counts)):  # one byte a count: the usual
            tf = np.frombuffer(b"".join(tfs for _, _, tfs in rows), dtype="<u1")
        else:
            tf = np.concatenate([unsmall(tfs, n).astype(np.uint32) for (_, _, tfs), n in zip(rows, counts)])
        hits = len(ids)
        idf = np.log((total - hits + 0.5) / (hits + 0.5))
        return _Postings(ids, tf, idf if idf > 0.0 else 1e-6, int(np.count_nonzero(tf > 1)))

    def _bound(self, idf: float, tf: float, avgdl: float) -> float:
        """The most a term's count `tf` weighs in any chunk (the shortest's)."""
        return float(_weights(idf, np.array([tf]), np.array([self._shortest]), avgdl)[0])

    def _score(self, lists: list[_Postings], skipped: list[tuple[float, int, int]],
               avgdl: float) -> tuple[np.ndarray, np.ndarray]:
        """The chunks of every tier not `skipped`, each scored with every term in query order."""
        left_out: dict[int, set[int]] = {}
        for _, i, tier in skipped:
            left_out.setdefault(i, set()).add(tier)
        for i, postings in enumerate(lists):
            out = left_out.get(i, set())
            if not out:
                self._marks[postings.ids] = True
            elif out == {ONCE} and postings.more:
                self._marks[postings.ids[postings.tf > 1]] = True
        for i, postings in enumerate(lists):
            ids, tf = postings.ids, postings.tf
            if i in left_out:
                held = self._marks[ids]
                ids, tf = ids[held], tf[held]
            # a term holds a chunk once: no id twice in one step
            self._scores[ids] += _weights(postings.idf, tf.astype(np.float64), self._lengths[ids], avgdl)
            self.weighed += len(ids)
        found = np.flatnonzero(self._marks)
        return found, self._scores[found]


ONCE, MORE = 0, 1  # a term's tiers: the chunks that hold it once, and more often


def _below(skipped: list[tuple[float, int, int]]) -> float:
    """The most a chunk can score from the `skipped` tiers (it is in one tier of each term)."""
    most: dict[int, float] = {}
    for bound, i, _ in skipped:
        most[i] = max(most.get(i, 0.0), bound)
    return sum(most.values())


def _first_try(tiers: list[tuple[float, int, int]], lists: list[_Postings], limit: int) -> int:
    """How many of the lowest tiers to skip first: as many as leave at least `limit` postings
    in the others (fewer chunks than that could not tell the limit-th best score)."""
    sizes = {(i, ONCE): len(p.ids) - p.more for i, p in enumerate(lists)}
    sizes.update({(i, MORE): p.more for i, p in enumerate(lists)})
    kept = 0
    for n in range(len(tiers), 0, -1):
        _, i, tier = tiers[n - 1]
        kept += sizes[(i, tier)]
        if kept >= limit:
            return n - 1
    return 0


def _weights(idf: float, tf: np.ndarray, lengths: np.ndarray, avgdl: float) -> np.ndarray:
    """FTS5's per-term bm25 weights (fts5Bm25Function's expression, in its order, in doubles)."""
    return idf * ((tf * (K1 + 1.0)) / (tf + K1 * ((1 - B) + (B * lengths) / avgdl)))


def _kth_best(scores: np.ndarray, k: int) -> float:
    return float(np.partition(scores, len(scores) - k)[len(scores) - k])


def _best(found: np.ndarray, scores: np.ndarray, limit: int) -> list[tuple[int, float]]:
    """The best `limit` of `found` (higher score first; the lower id first among equal scores),
    with bm25's sign (lower is better)."""
    if len(found) > limit:
        # everything tied with the k-th best stays in, so the lower ids win ties below
        keep = scores >= _kth_best(scores, limit)
        found, scores = found[keep], scores[keep]
    order = np.lexsort((found, -scores))[:limit]
    return list(zip(found[order].tolist(), (-scores[order]).tolist()))
