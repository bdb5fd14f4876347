"""The ranking rules that follow what a question points at (core/memory/ranking.py,
intent_boosts and its parts): pure functions over candidates, no store, no model."""

from __future__ import annotations

import pytest

from core.memory.known_names import known_names
from core.memory.query_understanding import QueryIntent, understand
from core.memory.ranking import SAID_BOOST, intent_boosts, message_lines, person_evidence, rank, said_share
from tests.core.test_ranking import Row


NAMES = known_names({"ana": "Ana", "maya": "Maya", "teo": "Teo"}, owner_senders=["Ana"])
OWNER = NAMES.owner
NAMES_OF = NAMES.names_of


def chat(*lines: tuple[str, str]) -> str:
    return "\n".join(f"[2024-03-0{i + 1} 10:00] {who}: {text}" for i, (who, text) in enumerate(lines))


def test_message_lines_and_who_wrote_what_share():
    text = chat(("Ana", "hi"), ("Maya", "my dog Pipoca is sick"), ("Maya", "vet at 5"))
    lines = message_lines(text)
    assert lines[1] == ("maya", "my dog Pipoca is sick")
    assert said_share(lines, {"maya"}) == 2 / 3
    assert message_lines("Prose: no message here.\nNor: here") == []


def test_person_evidence_own_lines_mentions_and_topic_near_them():
    import re

    topic = re.compile(r"(?<!\w)dog", re.I)
    theirs = chat(("Maya", "my dog Pipoca is sick"), ("Ana", "oh no"))
    about_them = chat(("Teo", "Maya's dog bit me"), ("Ana", "ha"))
    elsewhere = chat(("Teo", "my dog is fine"), ("Ana", "Maya called"))
    assert person_evidence(theirs, message_lines(theirs), ["maya"], topic) == (True, True)
    assert person_evidence(about_them, message_lines(about_them), ["maya"], topic) == (True, True)
    assert person_evidence(elsewhere, message_lines(elsewhere), ["maya"], topic) == (True, False)
    prose = "We walked all day. Maya brought her dog along. Then rain."
    assert person_evidence(prose, [], ["maya"], topic) == (True, True)
    assert person_evidence("Nothing of hers.", [], ["maya"], topic) == (False, False)


def test_the_persons_passage_about_the_topic_outranks_an_equal_one_elsewhere():
    rows = {1: Row(1, 1, 0, 50, chat(("Teo", "my dog is called Rex"), ("Ana", "cute"))),
            2: Row(2, 2, 0, 50, chat(("Maya", "my dog is called Pipoca"), ("Ana", "cute"))),
            3: Row(3, 3, 0, 50, chat(("Teo", "called you"), ("Ana", "sorry")))}
    intent = understand("What is Maya's dog called?", NAMES)
    flat = {1: 1.0, 2: 1.0}
    boosted = intent_boosts(intent, flat, rows, owner=OWNER, names_of=NAMES_OF)
    assert boosted[2] > boosted[1]
    groups, _ = rank("What is Maya's dog called?", [(1, 5.0), (2, 4.9), (3, 1.0)], [], rows, limit=1,
                     intent=intent, owner=OWNER, names_of=NAMES_OF)
    assert groups == [[2]]


def test_the_owners_words_are_preferred_when_asked_for():
    rows = {1: Row(1, 1, 0, 50, chat(("Maya", "the knee hurts"), ("Maya", "knee again"))),
            2: Row(2, 2, 0, 50, chat(("Ana", "my knee is better"), ("Maya", "good")))}
    intent = understand("What did I say about my knee?", NAMES)
    assert intent.owner_words
    # half of passage 2's lines are the owner's: it gains SAID_BOOST / 2 over passage 1
    boosted = intent_boosts(intent, {1: 1.0, 2: 1.0 - SAID_BOOST / 4}, rows, owner=OWNER, names_of=NAMES_OF)
    assert boosted[2] > boosted[1]


def test_present_states_prefer_the_newest_and_keep_the_oldest_reachable():
    rows = {1: Row(1, 1, 0, 50, "I live in Porto", "2022-01-01T00:00:00Z", "2022-01-01T00:00:00Z"),
            2: Row(2, 2, 0, 50, "I moved to Lyon", "2024-06-01T00:00:00Z", "2024-06-01T00:00:00Z"),
            3: Row(3, 3, 0, 50, "Unrelated", "2024-07-01T00:00:00Z", "2024-07-01T00:00:00Z")}
    intent = understand("Where do I live now?", NAMES)
    boosted = intent_boosts(intent, {1: 1.0, 2: 0.9, 3: 0.05}, rows, owner=OWNER, names_of=NAMES_OF)
    assert boosted[2] > boosted[1]  # the newer of two good matches wins
    assert boosted[3] < boosted[1]  # an irrelevant newest passage does not jump ahead
    groups, _ = rank("Where do I live now?", [(1, 5.0), (2, 4.6), (3, 0.1)], [], rows, limit=2,
                     intent=intent, owner=OWNER, names_of=NAMES_OF)
    assert groups == [[2], [1]]


def test_no_rule_changes_nothing():
    rows = {1: Row(1, 1, 0, 50, "a"), 2: Row(2, 2, 0, 50, "b")}
    assert intent_boosts(QueryIntent(), {1: 0.3, 2: 0.7}, rows, owner=OWNER, names_of=NAMES_OF) == {1: 0.3, 2: 0.7}


def test_a_persons_own_round_lifts_their_line_that_answers_over_everyones_small_talk():
    from core.memory.ranking import with_person_round

    # 1, 2: windows of small talk the whole store ranks first; 3: Maya's line that answers, far
    # down the whole store's lists but first among her own chunks
    scores = {1: 0.9, 2: 0.8, 3: 0.2}
    lifted = with_person_round(scores, [([(3, 4.0), (2, 1.0)], [(3, 0.6), (1, 0.5), (2, 0.4)])], weight=1.0)
    assert lifted[3] == 0.2 + 1.0 and lifted[3] > lifted[1] > lifted[2]
    # a chunk only the round found enters with what the round gave it
    assert with_person_round({}, [([], [(7, 0.5), (8, 0.1)])], weight=0.5) == {7: 0.5, 8: 0.0}
    # of two people's rounds a chunk keeps its best; no round changes nothing
    both = with_person_round({}, [([], [(1, 0.9), (2, 0.1)]), ([], [(2, 0.9), (1, 0.1)])], weight=1.0)
    assert both == {1: 1.0, 2: 1.0}
    assert with_person_round(scores, []) == scores


def test_rank_takes_the_person_rounds_into_fusion():
    rows = {1: Row(1, 1, 0, 50, chat(("Maya", "long day"), ("Ana", "same"))),
            2: Row(2, 2, 0, 50, chat(("Maya", "I work as a nurse now"), ("Ana", "wow"))),
            9: Row(9, 3, 0, 50, chat(("Teo", "the weather"), ("Ana", "yes")))}
    intent = understand("What is Maya's job?", NAMES)
    keyword, semantic = [(1, 5.0), (2, 4.8), (9, 1.0)], [(1, 0.5), (2, 0.45), (9, 0.1)]
    plain, _ = rank("What is Maya's job?", keyword, semantic, rows, limit=1, intent=intent,
                    owner=OWNER, names_of=NAMES_OF)
    rounds, _ = rank("What is Maya's job?", keyword, semantic, rows, limit=1, intent=intent,
                     owner=OWNER, names_of=NAMES_OF, person_rounds=[([], [(2, 0.45), (1, 0.3)])])
    assert plain == [[1]] and rounds == [[2]]


def test_each_fact_of_a_combined_question_lifts_its_own_passage():
    from core.memory.ranking import with_clauses

    # 1: the move, first in the whole question's lists; 2, 3: passages with a little of both;
    # 4: the birthday, low in the whole question's lists but first by its own clause's meaning
    scores = {1: 1.0, 2: 0.5, 3: 0.45, 4: 0.1}
    lifted = with_clauses(scores, [[(4, 0.6), (3, 0.3), (2, 0.2)], [(1, 0.7), (3, 0.1)]], weight=0.5)
    assert lifted[4] == 0.1 + 0.5 and lifted[4] > lifted[3] > lifted[2] == 0.5
    assert lifted[1] == 1.5
    assert with_clauses(scores, []) == scores
    # a chunk only a clause found enters with that alone
    assert with_clauses({}, [[(7, 0.5), (8, 0.1)]], weight=0.3) == {7: 0.3, 8: 0.0}


def test_rank_takes_the_clauses_into_fusion():
    rows = {i: Row(i, i, 0, 50, chat(("Maya", text), ("Ana", "ok"))) for i, text in (
        (1, "moved to Berlin today"), (2, "Berlin birthday cake"), (3, "born in May 1994"), (4, "rain"))}
    keyword, semantic = [(1, 5.0), (2, 4.0), (3, 3.5), (4, 1.0)], [(1, 0.6), (2, 0.5), (3, 0.45), (4, 0.1)]
    plain, _ = rank("How old was I when I moved to Berlin?", keyword, semantic, rows, limit=2)
    both, _ = rank("How old was I when I moved to Berlin?", keyword, semantic, rows, limit=2,
                   clause_rounds=[[(3, 0.5), (2, 0.3)], [(1, 0.6), (2, 0.4)]])  # 3 first by "How old was I"
    assert plain == [[1], [2]] and both == [[1], [3]]


def test_a_list_questions_examples_are_its_best_passages_first_chunks():
    from core.memory.ranking import example_seeds

    assert example_seeds([[4, 5], [2], [9, 8, 7], [1]], 3) == [4, 2, 9]
    assert example_seeds([[4]], 3) == [4] and example_seeds([], 3) == []


def test_the_example_query_is_the_unit_mean_of_the_examples_unit_vectors():
    from core.memory.ranking import example_query

    # lengths do not weigh: (3, 0) and (0, 1) count alike, so the mean points halfway
    assert example_query([[3.0, 0.0], [0.0, 1.0]]) == pytest.approx([2 ** -0.5, 2 ** -0.5])
    assert example_query([[0.0, 2.0]]) == pytest.approx([0.0, 1.0])
    assert example_query([]) is None
    assert example_query([[1.0, 0.0], [-1.0, 0.0]]) is None  # nothing in common
    assert example_query([[0.0, 0.0], [0.0, 5.0]]) == pytest.approx([0.0, 1.0])  # an empty vector says nothing


def test_the_example_round_lifts_an_instance_the_question_does_not_reach():
    from core.memory.ranking import with_examples

    # 1, 2: two reminder mails the question finds; 3: a third, in another language, that only the
    # round (nearest to the first two) ranks well; 4: small talk
    scores = {1: 1.0, 2: 0.9, 4: 0.3, 3: 0.05}
    lifted = with_examples(scores, [(1, 0.95), (2, 0.93), (3, 0.9), (4, 0.2)], weight=0.4)
    assert lifted[3] > lifted[4] and lifted[1] == pytest.approx(1.4)
    assert with_examples(scores, []) == scores
    assert with_examples({}, [(7, 0.5), (8, 0.1)], weight=0.4) == {7: 0.4, 8: 0.0}  # found by the round alone


def test_rank_takes_the_example_round_into_fusion():
    rows = {i: Row(i, i, 0, 50, chat(("Clinic", text), ("Ana", "ok"))) for i, text in (
        (1, "dentist reminder Tuesday"), (2, "dentist reminder Friday"), (3, "Zahnarzt Erinnerung Montag"),
        (4, "the weather again"))}
    keyword, semantic = [(1, 5.0), (2, 4.8)], [(1, 0.6), (2, 0.55), (4, 0.3), (3, 0.1)]
    plain, _ = rank("How many times did I go to the dentist?", keyword, semantic, rows, limit=3)
    examples, _ = rank("How many times did I go to the dentist?", keyword, semantic, rows, limit=3,
                       examples=[(1, 0.9), (2, 0.9), (3, 0.8), (4, 0.1)])
    assert plain == [[1], [2], [4]] and examples == [[1], [2], [3]]


def test_a_question_about_when_prefers_the_passage_that_tells_when():
    from core.memory.ranking import with_when

    # 1: the event without a time; 2: the event "yesterday" (its timestamp is no time told); 3: a
    # weak match that tells a time stays weak
    rows = {1: Row(1, 1, 0, 50, chat(("Maya", "the choir was lovely"))),
            2: Row(2, 2, 0, 50, chat(("Maya", "I joined a choir yesterday"))),
            3: Row(3, 3, 0, 50, chat(("Teo", "rain all last week")))}
    scores = {1: 1.0, 2: 0.8, 3: 0.1}
    lifted = with_when(scores, rows, weight=0.4)
    assert lifted == pytest.approx({1: 1.0, 2: 1.12, 3: 0.14})
    assert with_when(scores, rows, weight=0.0) == scores


def test_rank_prefers_the_passage_that_tells_when_only_for_a_question_about_when():
    rows = {1: Row(1, 1, 0, 50, chat(("Maya", "signed up for a pottery class"), ("Ana", "nice"))),
            2: Row(2, 2, 0, 50, chat(("Maya", "pottery class again yesterday"), ("Ana", "cool"))),
            3: Row(3, 3, 0, 50, chat(("Teo", "rain"), ("Ana", "ok")))}
    keyword, semantic = [(1, 5.0), (2, 4.6), (3, 1.0)], [(1, 0.6), (2, 0.55), (3, 0.1)]
    for query, first in (("When did Maya sign up for a pottery class?", 2), ("Did Maya sign up for pottery?", 1)):
        intent = understand(query, NAMES)
        groups, _ = rank(query, keyword, semantic, rows, limit=1, intent=intent, owner=OWNER, names_of=NAMES_OF)
        assert groups == [[first]], query


def test_a_month_named_without_a_year():
    from core.memory.ranking import query_months

    assert query_months("When did Maya go camping in June?") == {6}
    assert query_months("Which outdoor spot did Ana visit in May?") == {5}
    assert query_months("May I ask what Teo did in the second week of November?") == {11}  # "May" asks here
    assert query_months("What happened in June 2023?") == set()  # a date: query_dates reads it
    assert query_months("Where was the picture shared on December 1,2023 taken?") == set()


def test_a_chunk_dated_in_the_month_named_is_preferred_in_any_year():
    rows = {1: Row(1, 1, 0, 50, "camping with the kids", "2023-07-20T10:00:00Z", "2023-07-20T11:00:00Z"),
            2: Row(2, 2, 0, 50, "camping again", "2022-06-27T10:00:00Z", "2022-06-27T11:00:00Z"),
            3: Row(3, 3, 0, 50, "camping all year", "2023-01-01T10:00:00Z", "2023-12-01T11:00:00Z"),
            4: Row(4, 4, 0, 50, "rain", "2022-06-10T10:00:00Z", "2022-06-10T11:00:00Z")}
    keyword = [(1, 5.0), (3, 4.9), (2, 4.8), (4, 1.0)]
    plain, _ = rank("When did Maya go camping in June?", keyword, [], rows, limit=1, month_boost=0.0)
    boosted, _ = rank("When did Maya go camping in June?", keyword, [], rows, limit=1)
    assert plain == [[1]] and boosted == [[2]]  # a span of months is dated by none of them


def test_a_date_written_with_a_comma_and_no_space():
    from datetime import date

    from core.memory.ranking import query_dates

    assert query_dates("shared by Teo on December 1,2023") == [(date(2023, 12, 1), date(2023, 12, 1))]
    assert query_dates("on 3 June,2023") == [(date(2023, 6, 3), date(2023, 6, 3))]


def test_an_age_questions_birth_passage_is_lifted_into_the_results():
    from core.memory.ranking import with_births

    rows = {i: Row(i, i, 0, 50, chat(("Maya", text), ("Ana", "ok"))) for i, text in (
        (1, "moved to Berlin today"), (2, "Berlin flat keys"), (3, "Born 12 May 1994 in Porto"), (4, "rain"))}
    keyword, semantic = [(1, 5.0), (2, 4.0), (4, 1.0)], [(1, 0.6), (2, 0.5), (4, 0.2), (3, 0.1)]
    plain, _ = rank("How old was I when I moved to Berlin?", keyword, semantic, rows, limit=2)
    births, _ = rank("How old was I when I moved to Berlin?", keyword, semantic, rows, limit=2,
                     births=[(3, 3.0), (2, 1.0)])
    assert plain == [[1], [2]] and births == [[1], [3]]
    assert with_births({1: 0.5}, [], weight=0.8) == {1: 0.5}
    # the surest birth gets the whole weight, a chunk only this list found enters with its share alone
    assert with_births({1: 0.5}, [(3, 3.0), (2, 1.0)], weight=0.8) == {1: 0.5, 3: 0.8, 2: 0.0}


def test_the_oldest_passage_naming_the_person_met_is_lifted():
    from core.memory.ranking import with_meetings

    rows = {i: Row(i, i, 0, 50, chat(("Ana", text), ("Maya", "ok"))) for i, text in (
        (1, "pub with Callum again"), (2, "Callum says hi"), (3, "danced with a teacher called Callum"), (4, "rain"))}
    keyword, semantic = [(1, 5.0), (3, 4.8), (2, 4.7), (4, 1.0)], [(1, 0.6), (3, 0.58), (2, 0.57), (4, 0.1)]
    plain, _ = rank("When did I meet Callum?", keyword, semantic, rows, limit=1)
    met, _ = rank("When did I meet Callum?", keyword, semantic, rows, limit=1, meetings=[(3, 3.0), (2, 2.0), (1, 1.0)])
    assert plain == [[1]] and met == [[3]]
    assert with_meetings({1: 0.5}, [(3, 3.0), (1, 1.0)], weight=0.5) == {1: 0.5, 3: 0.5}
