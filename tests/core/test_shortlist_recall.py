"""bench/shortlist_real.py counts the short list's recall of the exact top 10 right: checked against
a brute force written here (full cosine sort, Hamming distance from unpacked sign bits) on a small
clustered store, whose neighbourhoods are crowded like real text's."""

from __future__ import annotations

import numpy as np

from bench.shortlist_real import padding, recall, shortlist_hits
from storage.vectors.store import sign_words


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def _clustered(rng: np.random.Generator, n: int, dim: int = 384, centres: int = 40) -> np.ndarray:
    c = _unit(rng.standard_normal((centres, dim)))
    return _unit(c[rng.integers(0, centres, n)] + 0.6 * rng.standard_normal((n, dim)) / np.sqrt(dim) * 4)


def _bounds(store: np.ndarray, query: np.ndarray, k: int) -> tuple[int, int]:
    """How many of the exact top 10 the k nearest by Hamming distance hold, at least and at most
    (vectors tied with the k-th may fall either side)."""
    top = np.argsort(-(store @ query), kind="stable")[:10]
    hamming = ((store > 0) != (query > 0)).sum(axis=1)
    edge = np.sort(hamming)[k - 1]
    return int((hamming[top] < edge).sum()), int((hamming[top] <= edge).sum())


def test_hits_are_those_of_a_brute_force() -> None:
    rng = np.random.default_rng(3)
    store = _clustered(rng, 3000)
    queries = _clustered(rng, 25)
    top = np.argsort(-(store @ queries.T), axis=0, kind="stable")[:10]
    sizes = [10, 50, 200, 1000]
    found = shortlist_hits(sign_words(store), queries, top, sizes)
    assert found.shape == (25, 4)
    for qi, q in enumerate(queries):
        for i, k in enumerate(sizes):
            low, high = _bounds(store, q, k)
            assert low <= found[qi, i] <= high
    assert (np.diff(found, axis=1) >= 0).all()  # a longer list holds all a shorter one does
    assert found[:, 0].sum() < found[:, -1].sum()  # and here more: the bits are not exact


def test_recall_shares_over_a_padded_store() -> None:
    rng = np.random.default_rng(4)
    real = _clustered(rng, 2000)
    queries = {"a": _clustered(rng, 12), "b": _clustered(rng, 8)}
    out = recall(real, queries, 1500, "around")
    assert out["vectors"] == 3500 and out["padding"] == "around"
    # the same padding, regenerated, and the shares recounted over the whole store at once
    store = np.concatenate([real, *padding(real, 1500, "around", np.random.default_rng(7))])
    for name, q in queries.items():
        for k, share in out["recall"][name].items():
            bounds = [_bounds(store, v, int(k)) for v in q]
            assert sum(b[0] for b in bounds) <= round(share * 10 * len(q)) <= sum(b[1] for b in bounds)
    assert set(out["recall"]["a"]) >= {"100", "400", str(out["shortlist_size"])}


def test_around_padding_sits_near_real_vectors() -> None:
    rng = np.random.default_rng(5)
    real = _clustered(rng, 500)
    pad = np.concatenate(list(padding(real, 300, "around", np.random.default_rng(1))))
    assert pad.shape == (300, 384)
    assert np.allclose(np.linalg.norm(pad, axis=1), 1, atol=1e-5)
    nearest = (pad @ real.T).max(axis=1)
    assert (nearest >= 0.6 - 1e-4).all()
