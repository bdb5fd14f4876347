"""FTS5's bm25, computed with NumPy from the postings of storage/keyword/postings.py.

For an expression of plain terms joined by OR (what storage/keyword/query.py writes for a search),
each term's rows are read in one indexed range (a few dozen blobs at a million chunks), its
weight per chunk is computed for all of them at once, and the top k are taken with a partial sort.
The arithmetic is FTS5's (fts5_aux.c, fts5Bm25Function), in the same order and in doubles:

    idf(t)   = log((N - n(t) + 0.5) / (n(t) + 0.5)), at least 1e-6
    score(d) = sum over the query's terms, in order, of
               idf(t) * (tf * (k1 + 1)) / (tf + k1 * (1 - b + b * |d| / avgdl)),  k1 = 1.2, b = 0.75

so the scores are FTS5's to the last bit and the order differs only among equal scores (FTS5
leaves their order open; here the lower chunk id comes first). Anything else (a prefix, a phrase,
a filter on the chunks, or a change not yet folded into the postings) returns None: the caller
asks FTS5. Memory: each chunk's length and a score slot, 8 bytes each, by chunk id (16 MB at a
million chunks).
"""

from __future__ import annotations

import numpy as np

from storage.keyword.postings import PART_BITS, unsmall

K1, B = 1.2, 0.75


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
        self._rows = self._terms = 0

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

    def top(self, cur, terms: list[str], limit: int) -> list[tuple[int, float]] | None:
        """(chunk id, bm25 as FTS5 gives it: lower is better) of the best `limit`, best first;
        None when the postings lag the store (the caller asks FTS5)."""
        if cur.execute("SELECT EXISTS (SELECT 1 FROM keyword_log)").fetchone()[0]:
            return None
        self._refresh(cur)
        total, tokens = fts5_totals(cur) or (self._rows, self._terms)
        if not total or not self._rows:
            return []
        avgdl = tokens / total
        touched = []
        for term in terms:
            rows = cur.execute("SELECT part, ids, tfs FROM keyword_postings WHERE term = ?", (term,)).fetchall()
            if not rows:
                continue
            ids = np.concatenate([np.frombuffer(blob, dtype="<u2").astype(np.int64) + (part << PART_BITS)
                                  for part, blob, _ in rows])
            tf = np.concatenate([unsmall(tfs, len(blob) // 2) for _, blob, tfs in rows]).astype(np.float64)
            hits = len(ids)
            idf = np.log((total - hits + 0.5) / (hits + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            weight = idf * ((tf * (K1 + 1.0)) / (tf + K1 * ((1 - B) + (B * self._lengths[ids]) / avgdl)))
            self._scores[ids] += weight  # a term holds a chunk once: no id twice in one step
            touched.append(ids)
        if not touched:
            return []
        found = np.unique(np.concatenate(touched)) if len(touched) > 1 else touched[0]
        scores = self._scores[found]
        self._scores[found] = 0.0
        if len(found) > limit:
            # everything tied with the k-th best stays in, so the lower ids win ties below
            kth = np.partition(-scores, limit - 1)[limit - 1]
            keep = -scores <= kth
            found, scores = found[keep], scores[keep]
        order = np.lexsort((found, -scores))[:limit]
        return [(int(found[i]), -float(scores[i])) for i in order]
