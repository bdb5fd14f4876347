"""The ledger's pure pieces: when two items are one, due dates as typed, the proposal schema."""

from __future__ import annotations

from datetime import date

import pytest

from core.errors import UserFacingError
from core.ledger.book import parse_due
from core.ledger.matching import name_words, same_task, same_title
from core.ledger.proposals import BadProposal, parse


@pytest.mark.parametrize("a, b, same", [
    ("Send Maya the deck", "send the slide deck to Maya by Friday", True),
    ("Send Maya the deck", "Send Maya the photos", False),
    ("Bring the cake", "Bake the cake", False),
    ("Call mum", "call Mum", True),
    ("Call mum", "Call mum about the flat", True),
    ("Call mum", "Visit mum", False),
    ("Devolver o livro", "devolver o livro à Ana", True),
    ("Enviar as fotos", "Enviar o contrato", False),
    ("Mandar la presentación", "mandar la presentacion el viernes", True),
])
def test_same_task(a, b, same):
    assert same_task(a, b, names=name_words(["Maya", "Ana"])) is same


@pytest.mark.parametrize("a, b, same", [
    ("Slow Horses", "Slow Horses (Apple TV)", True),
    ("slow horses", "Slow  Horses", True),
    ("Dune", "Dune Messiah", False),
    ("The Wire", "Wire", True),
    ("Piranesi", "Pachinko", False),
    ("Cem Anos de Solidão", "Cem anos de solidao", True),
])
def test_same_title(a, b, same):
    assert same_title(a, b) is same


def test_due_dates_as_the_owner_types_them():
    monday = date(2024, 5, 20)
    assert parse_due("friday", today=monday) == date(2024, 5, 24)
    assert parse_due("Mon", today=monday) == date(2024, 5, 27)  # the coming one, not today
    assert parse_due("tomorrow", today=monday) == date(2024, 5, 21)
    assert parse_due("in 2 weeks", today=monday) == date(2024, 6, 3)
    assert parse_due("2024-07-01", today=monday) == date(2024, 7, 1)
    with pytest.raises(UserFacingError, match="not a due date") as error:
        parse_due("someday", today=monday)
    assert "YYYY-MM-DD" in error.value.hint


def test_proposals_are_checked_against_their_schema():
    good = parse('{"items": [{"kind": "owed", "text": "The tent", "person": "Ana", "due": "2024-05-26",'
                 ' "evidence": [{"locator": "doc1:0-40", "quote": "your tent"}]}], "updates": []}')
    assert good.items[0].evidence[0].quote == "your tent" and good.items[0].status == "open"
    for raw, problem in (("{not json", "not valid JSON"),
                         ('{"items": [{"kind": "owed", "text": "x", "evidence": []}]}', "items/0/evidence"),
                         ('{"items": [{"kind": "gift", "text": "x", "evidence": [{"locator": "a", "quote": "b"}]}]}',
                          "items/0/kind"),
                         ('{"items": [], "extra": 1}', "Additional properties"),
                         ('{"updates": [{"id": 1, "due": "Friday", "evidence": [{"locator": "a", "quote": "b"}]}]}',
                          "updates/0/due")):
        with pytest.raises(BadProposal, match=problem):
            parse(raw)


def test_what_small_models_write_for_left_out_fields_and_due_times_is_read():
    """Seen from Qwen2.5-Coder-1.5B in the ledger evaluation: `null` for optional fields, a due
    date with a time of day, and the call's envelope repeated inside its arguments."""
    raw = ('{"function": "record_ledger", "arguments": {"items": [{"kind": "owed", "text": "The tent",'
           ' "person": "Mark", "title": null, "same_as": null, "due": "2024-04-27T10:00:00",'
           ' "evidence": [{"locator": "doc1:0-40", "quote": "my tent"}]}], "updates": null}}')
    [item] = parse(raw).items
    assert (item.title, item.same_as, item.due) == (None, None, "2024-04-27")
    with pytest.raises(BadProposal, match="items/0/due"):
        parse('{"items": [{"kind": "owed", "text": "x", "due": "next Saturday",'
              ' "evidence": [{"locator": "a", "quote": "b"}]}]}')
