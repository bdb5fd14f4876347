"""core/memory/small_talk.py on its own, and through ranking.rank: pure functions, no store."""

from __future__ import annotations

import pytest

from core.memory import small_talk
from core.memory.ranking import fuse_scores, rank
from core.memory.small_talk import informed, less_small_talk, lines_said, measured, small_talk_shares, units_said
from tests.core.test_ranking import Row  # a chunk as ranking sees it


def chat(*lines: str, day: str = "2023-05-01") -> str:
    return "\n".join(f"[{day} 10:{i:02d}] {sender}: {text}" for i, (sender, text) in
                     enumerate(line.split(": ", 1) for line in lines))


def test_lines_said_leave_out_when_and_who_and_fold_case_and_spaces():
    text = chat("Clara: Long  day at WORK", "Inês: haha") + "\n\n"
    assert lines_said(text) == ["long day at work", "haha"]
    assert lines_said("# Journal\n\nMoved to Berlin today.") == ["# journal", "moved to berlin today."]


def test_prose_is_said_in_sentences_and_a_conversation_in_lines():
    assert units_said("## 2023-01-29\n\nTired but happy. Quiet day! Moved to Glasgow?  Yes.") == [
        "## 2023-01-29", "tired but happy.", "quiet day!", "moved to glasgow?", "yes."]
    # a message is one unit, whatever its sentences: "Thanks!" beside news is no small talk
    assert units_said(chat("Clara: Thanks! I got the job at Intel.")) == ["thanks! i got the job at intel."]


def test_a_journals_sentence_written_entry_after_entry_is_small_talk():
    # each entry's line is its own; two of its three sentences are said in every entry
    texts = {d: f"## 2023-01-{d:02d}\n\nTired but happy. {news} Slept badly." for d, news in
             ((1, "Rain again."), (2, "Cooked soup."), (3, "Walked an hour."))}
    texts[4] = "## 2023-01-04\n\nFirst night in my own place on rue Chabot. Tired but happy."
    shares = small_talk_shares(texts)
    assert 0.5 < shares[1] < 1.0 and shares[4] < 0.3  # its heading and its news are its own
    assert small_talk_shares({1: texts[1], 4: texts[4]}) == {1: 0.0, 4: 0.0}  # said twice: not yet


def test_a_line_said_in_several_chunks_is_small_talk_and_a_line_of_its_own_is_not():
    texts = {
        1: chat("Clara: Long day at work", "Inês: haha"),
        2: chat("Clara: Long day at work", "Inês: haha", day="2023-06-02"),
        3: chat("Clara: long day at work", "Inês: Haha", day="2024-01-09"),
        4: chat("Clara: I work as a midwife now!", "Inês: haha", day="2024-02-01"),
    }
    shares = small_talk_shares(texts)
    assert shares[1] == shares[2] == shares[3] == 1.0
    said = len("i work as a midwife now!")
    assert shares[4] == pytest.approx(len("haha") / (said + len("haha")))
    # below the count of repeats nothing is small talk: two chats saying the same are no pattern
    assert small_talk_shares({k: texts[k] for k in (1, 2)}) == {1: 0.0, 2: 0.0}
    assert small_talk_shares({5: ""}) == {5: 0.0}  # nothing said: nothing to weigh down


def test_a_line_repeated_within_one_chunk_counts_once():
    texts = {1: chat("A: ok", "B: ok", "A: ok"), 2: chat("A: see you", "B: ok")}
    assert small_talk_shares(texts) == {1: 0.0, 2: 0.0}


def test_each_document_is_measured_on_its_own():
    same = chat("A: good night")
    assert measured([{1: same, 2: same}, {3: same}]) == {1: 0.0, 2: 0.0, 3: 0.0}
    assert measured([{1: same, 2: same, 3: same}]) == {1: 1.0, 2: 1.0, 3: 1.0}


def test_informed_keeps_the_order_and_scores_of_a_list_without_small_talk():
    ranked = [(1, 9.0), (2, 7.0), (3, 5.0), (4, 1.0)]
    assert informed(ranked, {}, depth=3) == ranked[:3]
    assert informed(ranked, {2: 0.0}, depth=10) == ranked
    assert informed([], {}, depth=3) == []


def test_informed_lets_a_candidate_of_its_own_in_past_small_talk():
    ranked = [(1, 9.0), (2, 8.5), (3, 8.0), (4, 6.0)]  # normalised: 1, 0.83, 0.67, 0
    talk = {1: 1.0, 2: 1.0, 3: 1.0}
    assert informed(ranked, talk, depth=2, weight=1.2) == [(4, 6.0), (1, 9.0)]
    assert informed(ranked, talk, depth=2, weight=0.1) == ranked[:2]  # under the score gaps: no change


def test_less_small_talk_takes_off_the_weighted_share():
    assert less_small_talk({1: 1.0, 2: 0.5}, {1: 1.0}, weight=0.5) == {1: 0.5, 2: 0.5}


def test_rank_puts_the_window_of_its_own_above_small_talk_that_matches_better():
    small = [Row(i, i, 0, 60, "small talk", small_talk=1.0) for i in range(1, 7)]
    answer = Row(9, 9, 0, 60, "I work as a midwife at the Altona hospital", small_talk=0.3)
    rows = {r.id: r for r in [*small, answer]}
    # "work" in every window, and small talk nearest in meaning too
    keyword = [(r.id, 10.0 - r.id * 0.1) for r in small[:5]] + [(9, 9.0), (6, 5.0)]
    semantic = [(r.id, 0.40) for r in small[:5]] + [(9, 0.38), (6, 0.20)]
    assert rank("What is Clara's job?", keyword, semantic, rows, limit=3)[0][0] == [9]
    # the same lists where nothing is small talk: the better match wins
    plain = {cid: Row(cid, cid, 0, 60, row.text) for cid, row in rows.items()}
    assert rank("What is Clara's job?", keyword, semantic, plain, limit=3)[0][0] == [1]


def test_rank_without_small_talk_is_the_fusion_alone():
    rows = {i: Row(i, i, 0, 20, f"line {i} of its own") for i in range(1, 4)}
    keyword, semantic = [(1, 3.0), (2, 2.0), (3, 1.0)], [(3, 0.9), (1, 0.5)]
    groups, scores = rank("q", keyword, semantic, rows, limit=3)
    assert [g[0] for g in groups] == [1, 3, 2]
    assert scores == pytest.approx(fuse_scores(keyword, semantic))
    assert small_talk.WEIGHT > 0 and small_talk.KEYWORD_POOL > 1 and small_talk.SEMANTIC_POOL > 1


def test_informed_reads_bm25_as_lower_is_better():
    ranked = [(1, -9.0), (2, -8.5), (3, -8.0), (4, -6.0)]  # FTS5's bm25: the most negative is best
    talk = {1: 1.0, 2: 1.0, 3: 1.0}
    assert informed(ranked, talk, depth=2, weight=1.2, lower_is_better=True) == [(4, -6.0), (1, -9.0)]
    assert informed(ranked, {}, depth=2, lower_is_better=True) == ranked[:2]
