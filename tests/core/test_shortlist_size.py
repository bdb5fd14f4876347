"""The short list grows with the store (bench/shortlist_real.py measured the share on real vectors)."""

from core.memory.search import BIT_OVERSAMPLE, SEMANTIC_DEPTH, SHORTLIST, SHORTLIST_SHARE, shortlist_size


def test_a_small_store_keeps_the_floor_and_a_deep_search_its_oversample():
    assert shortlist_size(0) == shortlist_size(1_000) == max(SHORTLIST, SEMANTIC_DEPTH * BIT_OVERSAMPLE)
    assert shortlist_size(1_000, depth=200) == 200 * BIT_OVERSAMPLE


def test_a_large_store_gets_its_share():
    assert shortlist_size(1_000_000) == round(1_000_000 * SHORTLIST_SHARE)
    sizes = [shortlist_size(n) for n in (10_000, 100_000, 1_000_000, 10_000_000)]
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0]
