"""Age in questions and passages (core/memory/ages.py): pure functions over text."""

from __future__ import annotations

import pytest

from core.memory.ages import asks_age, birth_ranked, birth_words, tells_birth


@pytest.mark.parametrize("query", [
    "How old was I when I moved to Berlin?", "how old will Zofia be on her wedding day", "At what age did Rui start school?",
    "Wie alt war Oma, als sie umgezogen ist?", "Quel âge avait Léa à son mariage ?", "¿Qué edad tenía la abuela?",
    "¿Cuántos años tenía yo cuando me mudé?", "Quantos anos tinha o Rui?", "Quanti anni aveva il nonno?",
    "Hoe oud was ik toen ik verhuisde?", "Ile lat miała babcia, gdy ją operowano?", "W jakim wieku zmarł dziadek?",
])
def test_a_question_that_asks_an_age(query: str) -> None:
    assert asks_age(query)


@pytest.mark.parametrize("query", [
    "When did I move to Berlin?", "How long did I live in Porto?", "¿Cuántos años vivió en Madrid?",  # a duration
    "Ile lat mieszkałam w Dublinie?", "What is the oldest photo I have?", "Who is older, Ana or Teo?",
])
def test_a_question_that_does_not_ask_an_age(query: str) -> None:
    assert not asks_age(query)


@pytest.mark.parametrize(("text", "tier"), [
    ("# Inês Duarte\n\nBackend engineer. Born 12 May 1994 in Porto, Portugal.", 3),
    ("Geboren am 19.05.1995 in Guadalajara", 3),
    ("O Tomás nasceu às 4h20, 3,2 kg", 2),  # its message dates it
    ("Antoś urodził się o 5:40", 2),
    ("Max is already old, he is 8 years old.", 2), ("we adopted a 2-year-old cat", 2),
    ("Cumplí 84 años y todavía bailo", 2), ("I turned 30 yesterday", 2),
    ("Cumpleaños Abuela Chela · all day 2023-06-17 · repeats FREQ=YEARLY", 1),
    ("Happy birthday!! 🎂", 0), ("Alles Gute zum Geburtstag!", 0), ("the flat has 3 rooms", 0),
])
def test_how_surely_a_passage_tells_a_birth_or_an_age(text: str, tier: int) -> None:
    assert tells_birth(text) == tier


def test_the_birth_list_puts_the_surest_first_and_leaves_wishes_out():
    hits = [(1, 9.0, "Happy birthday!"), (2, 8.0, "Cumpleaños Abuela · 2023-06-17"),
            (3, 2.0, "Validation engineer. Born 19 May 1995 in Guadalajara"), (4, 5.0, "Antoś urodził się o 5:40")]
    ranked = birth_ranked(hits)
    assert [cid for cid, _ in ranked] == [3, 4, 2]  # 1: a wish, no birth told
    assert birth_ranked([(1, 3.0, "happy birthday")]) == []


def test_the_birth_words_are_the_stores_languages_and_english():
    words = birth_words(["pl"]).split()
    assert "born" in words and "urodził" in words and "geboren" not in words
