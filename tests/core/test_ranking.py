"""core/memory/ranking.py on its own: pure functions, no store, no model."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import pytest

from core.memory.ranking import (DATE_BOOST, KEYWORD_WEIGHT, MIN_SHARE, MULTILINGUAL_WEIGHT, TRANSLATED_WEIGHT, fuse_scores,
                                 query_dates, rank, relevance)
from storage.keyword.query import keyword_query


@dataclass(frozen=True)
class Row:
    id: int
    document_id: int
    char_start: int
    char_end: int
    text: str
    time_start: str | None = None
    time_end: str | None = None
    small_talk: float = 0.0


def test_keyword_query_keeps_the_words_that_matter_and_quotes_each():
    assert keyword_query("What did Maya say about my knee?") == '"maya" OR "knee"'
    assert keyword_query("the and of") == '"the" OR "and" OR "of"'  # all stop words: keep them rather than nothing
    assert keyword_query('a "quoted" NEAR(x) -y') .count('"') % 2 == 0  # FTS5 syntax in the query is only text
    assert keyword_query("?!") is None


@pytest.mark.parametrize(("query", "period"), [
    ("what happened on 3 June, 2023?", (date(2023, 6, 3), date(2023, 6, 3))),
    ("October 13, 2023", (date(2023, 10, 13), date(2023, 10, 13))),
    ("my plans for August 2023", (date(2023, 8, 1), date(2023, 8, 31))),
    ("where did I live in 2022", (date(2022, 1, 1), date(2022, 12, 31))),
    ("December 2023", (date(2023, 12, 1), date(2023, 12, 31))),
])
def test_query_dates_names_the_period(query, period):
    assert query_dates(query) == [period]


def test_query_dates_does_not_guess_relative_or_impossible_dates():
    assert query_dates("what did I do last week?") == []
    assert query_dates("the 1850 census") == []
    assert query_dates("31 February, 2023") == [(date(2023, 2, 1), date(2023, 2, 28))]  # the month still holds


def test_fused_scores_normalise_each_list_and_weigh_keywords_more():
    fused = fuse_scores([(1, 10.0), (2, 5.0)], [(2, 0.9), (3, 0.1)])
    assert fused[1] == pytest.approx(KEYWORD_WEIGHT)  # best keyword, absent from meaning
    assert fused[2] == pytest.approx(1 - KEYWORD_WEIGHT)  # worst keyword (0), best meaning
    assert fused[3] == 0.0


def test_a_list_with_nothing_to_tell_apart_holds_only_its_best():
    # one keyword hit (the only passage with the word "office") is that list's best, not its
    # worst: min-max alone would give it nothing
    assert fuse_scores([(1, 3.1)], [(2, 0.30), (3, 0.25)])[1] == pytest.approx(KEYWORD_WEIGHT)
    assert fuse_scores([(1, 3.1)], [(2, 0.30), (3, 0.25)])[3] == 0.0  # a longer list keeps its worst
    tied = fuse_scores([(1, 2.0), (2, 2.0)], [])
    assert tied[1] == tied[2] == pytest.approx(KEYWORD_WEIGHT)


def test_the_multilingual_list_adds_its_normalised_scores_on_top_of_the_two_halves():
    keyword, semantic = [(1, 10.0), (2, 5.0)], [(2, 0.9), (3, 0.1)]
    assert fuse_scores(keyword, semantic, multilingual=[]) == fuse_scores(keyword, semantic)  # no space: as before
    fused = fuse_scores(keyword, semantic, multilingual=[(3, 0.85), (4, 0.80), (5, 0.75)])
    assert fused[1] == pytest.approx(KEYWORD_WEIGHT)  # not in the space: untouched
    assert fused[3] == pytest.approx(MULTILINGUAL_WEIGHT)  # the space's best (MiniLM's worst: 0)
    assert fused[4] == pytest.approx(MULTILINGUAL_WEIGHT / 2)  # found by the space alone, halfway down its list
    assert fused[5] == 0.0  # the list's worst, as in each half
    assert fuse_scores(keyword, semantic, multilingual=[(3, 0.9), (4, 0.1)], multilingual_weight=1.0)[3] == 1.0
    assert fuse_scores(keyword, semantic, multilingual=[(6, 0.7)])[6] == pytest.approx(MULTILINGUAL_WEIGHT)  # one: its best


def test_rank_lifts_a_line_only_the_multilingual_space_found():
    rows = {i: Row(i, i, 0, 100, f"{i:03d}" + "x" * 97) for i in range(1, 13)}
    keyword = [(i, 20.0 - i) for i in range(1, 11)]  # ten English passages, matched by their words
    semantic = [(i, 0.5 - i / 100) for i in range(1, 11)]
    groups, _ = rank("who told her to go", keyword, semantic, rows, limit=10)
    assert [12] not in groups  # keyword and MiniLM never saw it
    groups, _ = rank("who told her to go", keyword, semantic, rows, limit=10,
                     multilingual=[(12, 0.86), (11, 0.84), (3, 0.80)])
    assert [12] in groups and [10] not in groups  # the space's best took the place of the halves' tail
    assert len(groups) == 10 and groups[0] == [1]


def test_the_translated_list_adds_its_normalised_scores_beside_the_multilingual_one():
    keyword, semantic = [(1, 4.0), (2, 2.0)], [(1, 0.6), (2, 0.5)]
    assert fuse_scores(keyword, semantic, translated=[]) == fuse_scores(keyword, semantic)
    fused = fuse_scores(keyword, semantic, multilingual=[(3, 0.8), (4, 0.4)], translated=[(3, 9.0), (5, 3.0)])
    assert fused[3] == pytest.approx(MULTILINGUAL_WEIGHT + TRANSLATED_WEIGHT)  # the best of both extra lists
    assert fused[5] == pytest.approx(0.0) and fused[4] == pytest.approx(0.0)  # each list's worst
    assert fused[1] == pytest.approx(1.0)  # the halves' best, untouched


def test_relevance_is_between_zero_and_one_and_never_zero_for_a_match():
    shown = relevance([(1, 8.0), (2, 2.0), (3, 1e-9)], [(1, 0.8), (4, 1.7), (5, -0.3)])
    assert all(0.0 <= s <= 1.0 for s in shown.values())
    assert shown[1] == pytest.approx(KEYWORD_WEIGHT * 1.0 + (1 - KEYWORD_WEIGHT) * 0.8)
    assert shown[3] >= KEYWORD_WEIGHT * MIN_SHARE  # a keyword match is never shown as nothing
    assert shown[4] == pytest.approx(1 - KEYWORD_WEIGHT)  # cosine clamped to 1
    assert relevance([(7, 3.0), (8, 1.5)], []) == {7: 1.0, 8: 0.5}  # keyword mode: share of the best
    assert relevance([], [(9, 0.42)]) == {9: 0.42}  # semantic mode: the cosine itself


def test_rank_boosts_a_named_period_and_joins_neighbours_into_one_passage():
    rows = {
        1: Row(1, 10, 0, 100, "a" * 100, "2023-06-03T10:00:00Z"),
        2: Row(2, 10, 100, 200, "b" * 100, "2023-06-03T11:00:00Z"),
        3: Row(3, 11, 0, 100, "c" * 100, "2021-01-01T10:00:00Z"),
    }
    groups, scores = rank("what happened on 3 June, 2023", [(3, 5.0), (1, 4.0), (2, 1.0)], [], rows, limit=10)
    assert groups[0] == [1, 2]  # dated in the period, and adjacent: one passage
    assert scores[1] > scores[3] and scores[1] - DATE_BOOST < scores[3]  # the date boost decided it
    assert groups[1] == [3]


def test_rank_keeps_within_limit_and_budget():
    rows = {i: Row(i, i, 0, 900, f"{i:03d}" + "x" * 897) for i in range(1, 30)}
    groups, _ = rank("x", [(i, 30.0 - i) for i in rows], [], rows, limit=5)
    assert groups == [[1], [2], [3], [4], [5]]


def test_a_passage_that_says_only_what_was_shown_takes_no_place():
    def said(*lines: str, day: int = 1) -> str:
        return "\n".join(f"[2024-03-{day:02d} 10:0{i}] Clara: {line}" for i, line in enumerate(lines))

    rows = {
        1: Row(1, 10, 0, 60, said("Long day at work", "Alles gut?")),
        2: Row(2, 11, 0, 60, said("long day at  work", day=9)),  # the same small talk, another day
        3: Row(3, 12, 0, 60, said("Alles gut?", "I work as a midwife", day=20)),
        4: Row(4, 10, 60, 120, said("Alles gut?", day=2)),  # follows 1 in its document: joins it
    }
    groups, _ = rank("work", [(1, 4.0), (2, 3.0), (4, 2.5), (3, 2.0)], [], rows, limit=2)
    assert groups == [[1, 4], [3]]
