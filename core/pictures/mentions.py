"""Who came up: how many texts name each person, by any of their names or a first name only they
have. Counting only: no text leaves this module.

A name counts where its words appear whole and in order, each capitalised ("Will" the name, not
"will" the verb; "Rose" but not "rose"; scripts without case match as written), so a lower-cased
mention is missed rather than a common word miscounted. Names of letters only, two characters at least; phone
numbers and handles never match prose.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

_WORD = re.compile(r"\w+")


def _words(name: str) -> tuple[str, ...] | None:
    words = tuple(_WORD.findall(name))
    if not words or not all(w.isalpha() for w in words) or len("".join(words)) < 2:
        return None
    return words


def name_forms(people: Mapping[str, Sequence[str]]) -> dict[tuple[str, ...], str]:
    """The word sequences that name each person: every name they go by, and the first word of
    a longer name when no one else has it (so "Maya" counts for "Maya Costa")."""
    forms: dict[tuple[str, ...], str] = {}
    ambiguous: set[tuple[str, ...]] = set()
    firsts: dict[tuple[str, ...], set[str]] = {}
    for person, names in people.items():
        for name in names:
            words = _words(name)
            if words is None:
                continue
            if forms.get(words, person) != person:
                ambiguous.add(words)
            forms[words] = person
            if len(words) > 1:
                firsts.setdefault(words[:1], set()).add(person)
    for first, owners in firsts.items():
        if len(owners) == 1 and first not in forms and len(first[0]) >= 3:
            forms[first] = next(iter(owners))
    return {words: person for words, person in forms.items() if words not in ambiguous}


def count_mentions(texts: Iterable[str], people: Mapping[str, Sequence[str]]) -> Counter[str]:
    """For each person, the number of texts naming them at least once."""
    forms = name_forms(people)
    by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for words, person in forms.items():
        by_first.setdefault(words[0].casefold(), []).append((words, person))
    counts: Counter[str] = Counter()
    for text in texts:
        tokens = _WORD.findall(text)
        named: set[str] = set()
        for i, token in enumerate(tokens):
            for words, person in by_first.get(token.casefold(), ()):
                if person not in named and _matches(tokens[i:i + len(words)], words):
                    named.add(person)
        counts.update(named)
    return counts


def _matches(tokens: Sequence[str], words: tuple[str, ...]) -> bool:
    """The same words, none of them starting with a small letter."""
    return len(tokens) == len(words) and all(
        t.casefold() == w.casefold() and not t[0].islower() for t, w in zip(tokens, words))
