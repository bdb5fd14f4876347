"""Time in questions and passages (core/memory/time_words.py): pure functions over text."""

from __future__ import annotations

import pytest

from core.memory.time_words import asks_when, tells_when, when_words


@pytest.mark.parametrize("query", [
    "When did Maya join the choir?", "when was my bike stolen", "So when is the wedding?",
    "How long has Teo had his cats?", "For how long did I work at the bakery?", "How long ago was her 18th birthday?",
    "What year did Teo start surfing?", "In which month did Ana travel?", "Since when do I live in Lyon?",
    "How many years did Teo live in Porto?",
    "Wann bin ich nach Wien gezogen?", "Seit wann wohnt Ana in Lyon?", "Quand est-ce que Teo est né ?",
    "¿Cuándo se casó Ana?", "Quando nasceu o Rui?", "Há quanto tempo moro em Lyon?", "Kiedy urodził się Jan?",
])
def test_a_question_that_asks_when(query: str) -> None:
    assert asks_when(query)


@pytest.mark.parametrize("query", [
    "How old was I when I moved to Vienna?",  # "when" joins two facts: it asks how old
    "Which city did I live in when Rui was born?", "Where do I live now?", "What is Maya's job?",
    "Who went to the wedding?", "How many times did I go to the dentist?",
])
def test_a_question_that_does_not_ask_when(query: str) -> None:
    assert not asks_when(query)


def test_the_words_that_ask_when():
    assert when_words("How long ago was her 18th birthday?") == ["how", "long"]
    assert when_words("What year did Teo start surfing?") == ["what", "year"]
    assert when_words("Where do I live?") == []


@pytest.mark.parametrize("text", [
    "I joined a choir yesterday", "I've had them for 3 years now", "we met two weeks ago",
    "Last Friday I went to a council meeting", "camping next month", "Moved to Lisbon today.",
    "the wedding is on 14 September 2024", "back in 2019", "We went in May", "see you on the 3rd of June",
    "Lost my job this month", "O gato morreu esta noite", "Ich war gestern beim Arzt",
    "je l'ai vu la semaine dernière", "llegué hace tres días", "Byłam tam wczoraj", "12/05/2023",
])
def test_a_passage_that_tells_when(text: str) -> None:
    assert tells_when(text)


@pytest.mark.parametrize("text", [
    "It was an awesome time", "May I ask you something?", "I just signed with a new team",
    "Sounds great, see you there!", "The pattern and colours are awesome", "I march with them",
])
def test_a_passage_that_does_not_tell_when(text: str) -> None:
    assert not tells_when(text)
