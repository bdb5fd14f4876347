"""The pure parts of the pictures: who came up, an event's kind, dates and bins."""

from __future__ import annotations

from datetime import date

import pytest

from core.pictures.canvas import shorten
from core.pictures.contact import bin_start, bins_between, unit_for
from core.pictures.mentions import count_mentions, name_forms
from core.pictures.timeline import KINDS, OTHER, event_span, kind_of
from core.dates import span_text

PEOPLE = {"Maya Costa": ["maya costa", "maya"], "Will Stone": ["will stone"], "Rose": ["rose"],
          "Ana Lind": ["ana lind"], "Ana Costa": ["ana costa"], "+44 7700 900124": ["+44 7700 900124"],
          "Дмитрий Иванов": ["дмитрий иванов"], "李雷": ["李雷"]}


def test_a_person_counts_once_per_text_by_any_name_or_a_first_name_only_they_have():
    counts = count_mentions([
        "Maya and Maya Costa and MAYA",  # once
        "Will Stone called; Will is back",
        "I will go; the rose bloomed",  # words, not names
        "Rose came",
        "Ana said hi",  # two people are Ana: no one is counted
        "Ana Lind said hi",
        "call +44 7700 900124",  # a number is no name in prose
        "Дмитрий приехал",
        "今天见了李雷",  # no spaces between Chinese words: a name inside a run is not found
        "李雷 来了",
    ], PEOPLE)
    assert counts == {"Maya Costa": 1, "Will Stone": 1, "Rose": 1, "Ana Lind": 1, "Дмитрий Иванов": 1, "李雷": 1}


def test_name_forms_leave_out_shared_first_names_and_numbers():
    forms = name_forms(PEOPLE)
    assert forms[("maya",)] == "Maya Costa" and forms[("will",)] == "Will Stone"
    assert ("ana",) not in forms
    assert not any(words[0].startswith("+") or words[0].isdigit() for words in forms)


@pytest.mark.parametrize("title, detail, kind", [
    ("Moved to Lisbon", "", "home"),
    ("Started a new job at the bakery", "", "work"),
    ("Graduated from university", "", "work"),
    ("Knee surgery at Santa Maria hospital", "", "health"),
    ("Married Maya", "", "people"),
    ("Daughter born", "", "people"),
    ("Ferry to Tavira", "", "other"),
    ("Trip to Madeira", "with the family", "people"),  # the detail counts when the title says nothing
    ("Moved in with Maya after the wedding", "", "people"),  # wedding (people) and moved (home): people first
    ("Hospital stay after moving house", "", "health"),
])
def test_an_event_s_kind_comes_from_its_words(title, detail, kind):
    assert kind_of(title, detail) == kind


def test_every_kind_has_its_own_colour_and_shape():
    kinds = (*KINDS, OTHER)
    assert len({k.colour for k in kinds}) == len({k.marker for k in kinds}) == len(kinds)


def test_event_dates_name_a_year_a_month_or_a_day():
    assert event_span("2019") == (date(2019, 1, 1), date(2019, 12, 31))
    assert event_span("2020-02") == (date(2020, 2, 1), date(2020, 2, 29))
    assert event_span("2019-12") == (date(2019, 12, 1), date(2019, 12, 31))
    assert event_span("2019-07-20") == (date(2019, 7, 20), date(2019, 7, 20))
    assert event_span("2019-13") is None and event_span("2019-02-30") is None and event_span("soon") is None


def test_bins_fit_the_period():
    assert unit_for(date(2024, 3, 1), date(2024, 3, 31)) == "day"
    assert unit_for(date(2024, 1, 1), date(2024, 5, 31)) == "week"
    assert unit_for(date(2020, 1, 1), date(2024, 12, 31)) == "month"
    assert unit_for(date(2015, 1, 1), date(2024, 12, 31)) == "quarter"
    assert unit_for(date(1990, 1, 1), date(2024, 12, 31)) == "year"
    assert bin_start(date(2024, 3, 31), "week") == date(2024, 3, 25)
    assert bin_start(date(2024, 8, 15), "quarter") == date(2024, 7, 1)
    assert bins_between(date(2023, 11, 20), date(2024, 2, 3), "month") == (
        date(2023, 11, 1), date(2023, 12, 1), date(2024, 1, 1), date(2024, 2, 1))
    assert bins_between(date(2023, 12, 31), date(2025, 1, 1), "year") == (
        date(2023, 1, 1), date(2024, 1, 1), date(2025, 1, 1))


def test_periods_and_labels_read_naturally():
    assert span_text(date(2024, 3, 4), date(2024, 3, 10)) == "4–10 Mar 2024"
    assert span_text(date(2024, 2, 28), date(2024, 3, 5)) == "28 Feb – 5 Mar 2024"
    assert span_text(date(2023, 12, 30), date(2024, 1, 5)) == "30 Dec 2023 – 5 Jan 2024"
    assert shorten("Opened my own bakery business on Rua Nova", 24) == "Opened my own bakery…"
    assert shorten("short", 24) == "short"
