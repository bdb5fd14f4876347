"""Vectors at a byte per dimension, with what bounds each one's exact cosine (Bytes), and their
parts on disk (`vector_codes`: the rows of 2**CODE_BITS chunk ids each, written beside the sign
bits' parts by store.py in the same transactions).

Why on disk too: a process that does not keep the vectors (a one-shot command) can bound every
chunk a filter keeps from 400 bytes a chunk read in one pass per part, instead of reading and
comparing each one's 1,536-byte float vector; only the few whose bound reaches the top are ranked
exactly from the store (index.py).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

CODE_BITS = 10  # parts of 1,024 chunk ids (about 400 KB): a fold rewrites a quarter of a sign-bit part's ids
# what sqlite-vec's float32 cosine may differ from the exact one by (about 1e-6 over 384 terms),
# with room to spare; and rows widened at a time when bounding them (in cache, and below the size
# at which OpenBLAS starts threads: 4,096 rows took 10x longer on two busy cores)
BOUND_SLACK = 1e-4
BOUND_BLOCK = 1024


class Bytes:
    """Vectors at a byte per dimension: each row scaled so that its largest component is 127
    (rows are unit vectors, so the rounding moves a cosine by about 0.001), with each row's
    length and the length of what the rounding took off it, which bound its exact cosine."""

    def __init__(self, codes: np.ndarray, scales: np.ndarray, norms: np.ndarray, errors: np.ndarray) -> None:
        # (n, dim) int8; (n,) float32 each: scale, |v|, |v - scale * codes|
        self.codes, self.scales, self.norms, self.errors = codes, scales, norms, errors

    @classmethod
    def of(cls, matrix: np.ndarray) -> Bytes:
        matrix = np.asarray(matrix, dtype=np.float32)
        scales = np.abs(matrix).max(axis=1) / 127 if len(matrix) else np.zeros(0, dtype=np.float32)
        safe = np.where(scales > 0, scales, 1).astype(np.float32)
        codes = np.rint(matrix / safe[:, None]).astype(np.int8)
        rounded = codes.astype(np.float64) * scales[:, None]
        errors = np.linalg.norm(matrix - rounded, axis=1) if len(matrix) else np.zeros(0)
        norms = np.linalg.norm(matrix.astype(np.float64), axis=1) if len(matrix) else np.zeros(0)
        return cls(codes, scales.astype(np.float32), norms.astype(np.float32), errors.astype(np.float32))

    @classmethod
    def joined(cls, parts: Sequence[Bytes], dim: int) -> Bytes:
        if not parts:
            empty = np.zeros(0, dtype=np.float32)
            return cls(np.zeros((0, dim), dtype=np.int8), empty, empty, empty)
        return cls(*(np.concatenate([getattr(p, name) for p in parts]) for name in ("codes", "scales", "norms", "errors")))

    def rows(self, at: np.ndarray) -> Bytes:
        return Bytes(self.codes[at], self.scales[at], self.norms[at], self.errors[at])

    def widened(self) -> np.ndarray:
        return self.codes.astype(np.float32) * self.scales[:, None]

    def dots(self, query: np.ndarray, at: np.ndarray) -> np.ndarray:
        """Each of the rows `at`, widened (scale * codes), dotted with `query`: the rows are
        gathered and widened a block at a time, in cache, and scaled after the product, so no
        float32 copy of them all is made (a short list of 1,000: 2.2 ms against 0.6 measured)."""
        q = np.asarray(query, dtype=np.float32)
        return code_dots(self.codes, q, _run_of(at)) * self.scales[at]

    def bounds(self, query: np.ndarray, at: np.ndarray | slice) -> tuple[np.ndarray, np.ndarray]:
        """Each row's exact cosine with `query` lies between these (cosine_bounds). `at`: the
        rows wanted (a slice: one run of them)."""
        q = unit(query)
        rows = at if isinstance(at, slice) else _run_of(at)
        return cosine_bounds(q, code_dots(self.codes, q, rows), self.scales[rows], self.norms[rows], self.errors[rows])

    def blobs(self) -> tuple[bytes, bytes]:
        """As stored in a part: the codes row by row, then scale, length and error per row."""
        terms = np.stack([self.scales, self.norms, self.errors]).astype("<f4")
        return np.ascontiguousarray(self.codes, dtype=np.int8).tobytes(), terms.tobytes()

    @classmethod
    def from_blobs(cls, codes: bytes, terms: bytes) -> Bytes:
        scales, norms, errors = np.frombuffer(terms, dtype="<f4").reshape(3, -1)
        n = len(scales)
        return cls(np.frombuffer(codes, dtype=np.int8).reshape(n, -1 if n else 0), scales, norms, errors)


_buffers = threading.local()


def code_dots(codes: np.ndarray, q: np.ndarray, rows: np.ndarray | slice | None = None,
              out: np.ndarray | None = None) -> np.ndarray:
    """codes[rows] @ q in float32 (all of `codes` without `rows`), into `out` when given: the
    rows are gathered and widened BOUND_BLOCK at a time into buffers this thread keeps (1.5 MB
    at 384 dimensions), so that no fresh memory is written per block (a fresh block per code
    part faulted in up to 480 pages a one-shot search at 20% of 100k; these none)."""
    if rows is None:
        rows = slice(0, len(codes))
    n = len(range(*rows.indices(len(codes)))) if isinstance(rows, slice) else len(rows)
    dots = np.empty(n, dtype=np.float32) if out is None else out
    if not n:
        return dots
    dim = codes.shape[1]
    held = getattr(_buffers, "blocks", None)
    if held is None or held[0].shape != (BOUND_BLOCK, dim):
        held = _buffers.blocks = (np.empty((BOUND_BLOCK, dim), dtype=np.float32),
                                  np.empty((BOUND_BLOCK, dim), dtype=np.int8))
    wide, gathered = held
    for start in range(0, n, BOUND_BLOCK):
        stop = min(start + BOUND_BLOCK, n)
        m = stop - start
        if isinstance(rows, slice):
            block = codes[rows.start + start:rows.start + stop]
        else:
            block = np.take(codes, rows[start:stop], axis=0, out=gathered[:m])
        np.copyto(wide[:m], block, casting="unsafe")
        np.matmul(wide[:m], q, out=dots[start:stop])
    return dots


def unit(query: np.ndarray) -> np.ndarray:
    """The query at length 1, in float32, as the bounds take it."""
    return (query / max(float(np.linalg.norm(query)), 1e-30)).astype(np.float32)


def cosine_bounds(q: np.ndarray, dots: np.ndarray, scales: np.ndarray, norms: np.ndarray,
                  errors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of each row's exact cosine with `q` (a unit vector, float32), from `dots` (its
    codes @ q, summed in float32) and its terms (scale, length, rounding error). For a row
    v = scale * codes + e, q.v / |q||v| is q.(scale * codes) / |q||v| give or take |e| / |v|; the
    product is summed in float32, which moves it by at most n * eps * sum |codes * q| (n terms:
    the standard bound on a rounded dot product; |codes| <= 127), and sqlite-vec's own float32
    cosine by less than BOUND_SLACK, which also covers these bounds' own float32 arithmetic (a
    few roundings of numbers below 2: under 1e-6; in float64 the pass took 4x as long). A row
    of length 0 is never left out. The rows of every part a search reads are bounded in one
    pass here, not part by part."""
    n = len(q)
    eps = float(np.finfo(np.float32).eps)
    rounding = np.float32(n * eps / (1 - n * eps) * 127 * float(np.abs(q).astype(np.float64).sum()))
    empty = norms <= 0
    if empty.any():
        norms = np.where(empty, np.float32(1), norms)
    middle = dots * (scales / norms)
    spread = (errors + rounding * scales) / norms
    spread += np.float32(BOUND_SLACK)
    low, high = middle - spread, middle + spread
    low[empty], high[empty] = -np.inf, np.inf
    return low, high


def _run_of(at: np.ndarray) -> np.ndarray | slice:
    """`at` as a slice where it is one run of rows (a part read whole: views, no copies)."""
    if len(at) and int(at[-1]) - int(at[0]) == len(at) - 1 and bool(np.all(np.diff(at) == 1)):
        return slice(int(at[0]), int(at[0]) + len(at))
    return at
