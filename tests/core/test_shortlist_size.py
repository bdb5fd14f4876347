"""The short list grows with the store (bench/shortlist_real.py measured the share on real vectors)."""

from core.memory.search import BIT_OVERSAMPLE, SEMANTIC_DEPTH, SHORTLIST, shortlist_size


def test_a_small_store_keeps_the_floor_and_a_deep_search_its_oversample():
    assert shortlist_size(0) == shortlist_size(1_000) == max(SHORTLIST, SEMANTIC_DEPTH * BIT_OVERSAMPLE)
    assert shortlist_size(1_000, depth=200) == 200 * BIT_OVERSAMPLE


def test_a_large_store_gets_what_real_vectors_needed():
    # held-out fortunes kept 99% of their exact top 10 with 1,000 at 100k real vectors and with
    # 2,000 at 1M (the real ones and near neighbours of them); the list stays a sliver of the store
    assert 1_000 <= shortlist_size(100_000) <= 1_100
    assert 2_000 <= shortlist_size(1_000_000) <= 2_200
    sizes = [shortlist_size(n) for n in (10_000, 100_000, 1_000_000, 10_000_000)]
    assert sizes == sorted(sizes) and sizes[-1] < 10_000_000 // 1000
