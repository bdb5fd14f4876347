"""Age in questions and passages: whether a question asks how old someone was, is or will be
("How old was I when I moved to Berlin?", "¿Qué edad tenía la abuela?"), and the words a passage
that tells a birth holds ("Born 12 May 1994", "O Tomás nasceu às 4h20", "urodziłam się").

An age is never written where the question's other fact is: it is a birth date, told once (a
CV, a passport scan, a birth announcement in the family chat), subtracted from the date of the
event asked about. Neither the whole question's meaning nor its words ("old") lead to that
passage; the birth words do. Pure functions over text, per language as
core/memory/query_understanding.py's tables are: no model, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

# a question that asks someone's age; where "how many years" is also a duration ("¿Cuántos años
# vivió en Madrid?"), only with the verb that says an age ("tenía", "miał")
_ASKS_AGE = {
    "en": r"how old\b|(?:at )?what age\b",
    "de": r"wie alt\b|in welchem alter\b|welches alter\b",
    "fr": r"quel âge\b|à quel âge\b",
    "es": r"(?:a )?qué edad\b|cuántos años (?:tenía|tiene|tendrá|tengo|tenías|tienes|cumpl\w*)",
    "pt": r"(?:com )?que idade\b|quantos anos (?:tinha|tem|terá|tenho|tinhas|tens|fa\w+)",
    "it": r"(?:a )?che età\b|quanti anni (?:aveva|ha|avrà|avevo|ho|compi\w*)",
    "nl": r"hoe oud\b|welke leeftijd\b",
    "pl": r"w jakim wieku\b|ile lat (?:miał\w*|ma|mam|masz|będzie\w*|skończ\w*)",
}

# the words of a passage that tells a birth, per language as the keyword index stems them
# (a form of "born"); and of a birthday, whose wishes are many: one counts only beside a date
_BORN = {
    "en": "born birth",
    "de": "geboren geburt geburtsdatum",
    "fr": "né née naissance",
    "es": "nací nació nacido nacida nacimiento",
    "pt": "nasci nasceu nascido nascida nascimento",
    "it": "nato nata nacque nascita",
    "nl": "geboren geboorte geboortedatum",
    "pl": "urodziłam urodziłem urodził urodziła urodzony urodzona urodzenia",
}
_BIRTHDAY = {
    "en": "birthday", "de": "geburtstag", "fr": "anniversaire", "es": "cumpleaños", "pt": "aniversário",
    "it": "compleanno", "nl": "verjaardag", "pl": "urodziny urodzin",
}
# an age said outright: "he is 8 years old", "turned 30", "cumplí 84 años", "wird 60", "ma 90 lat";
# "old" and its like are searched by too, where the word is rare enough to (not "años", "lat")
_AGE_SAID = re.compile(r"(?<!\w)(?:\d{1,3}[\s-]*(?:years?|yrs?)[\s-]+old|turn(?:s|ed|ing)?\s+\d{1,3}"
                       r"|\d{1,3}\s+(?:jahre\s+alt|jaar\s+oud|ans|años|anos|anni|lat|lata)"
                       r"|(?:wird|wurde|cumpl\w*|fa\w*|compi\w*)\s+\d{1,3})(?!\w)")
_AGE_WORDS = {"en": "old", "de": "alt", "nl": "oud"}
_BORN_WORDS = frozenset(w for words in _BORN.values() for w in words.split())
_BIRTHDAY_WORDS = frozenset(w for words in _BIRTHDAY.values() for w in words.split())
# a year of birth or a day's date: "1994", "19.05.1995", "2023-06-17"
_DATED = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_WORD = re.compile(r"\w+")


@lru_cache(maxsize=1)
def _asks() -> re.Pattern[str]:
    return re.compile(r"(?<!\w)(?:" + "|".join(_ASKS_AGE.values()) + r")", re.I)


def asks_age(query: str) -> bool:
    """Whether a question asks how old someone was, is or will be, in any language of the table
    ("How old was Inês when she moved?", "Wie alt war Oma?", "Ile lat miała babcia?")."""
    return bool(_asks().search(" ".join(query.split())))


def birth_words(languages: Sequence[str]) -> str:
    """The birth and birthday words of English and `languages` (the store's), as one query's text."""
    return " ".join(dict.fromkeys(w for language in ("en", *languages) for table in (_BORN, _BIRTHDAY, _AGE_WORDS)
                                  for w in table.get(language, "").split()))


def tells_birth(text: str) -> int:
    """How surely a passage tells a birth or an age: 3 for a line with a form of "born" and a
    year ("Born 12 May 1994 in Porto"); 2 for one without ("O Tomás nasceu às 4h20": its message
    dates it) or an age said ("Max is 8 years old", "Cumplí 84 años"); 1 for a birthday beside a
    date (a calendar's yearly "Cumpleaños Abuela · 2023-06-17"); else 0 (birthday wishes: one a
    year from everyone)."""
    best = 0
    for line in text.lower().splitlines():
        words = set(_WORD.findall(line))
        dated = _DATED.search(line) is not None
        if not _BORN_WORDS.isdisjoint(words):
            best = max(best, 3 if dated else 2)
        elif _AGE_SAID.search(line):
            best = max(best, 2)
        elif dated and not _BIRTHDAY_WORDS.isdisjoint(words):
            best = max(best, 1)
        if best == 3:
            break
    return best


def birth_ranked(hits: Sequence[tuple[int, float, str]]) -> list[tuple[int, float]]:
    """Passages found by the birth words (id, score higher better, text), ranked by how surely
    each tells a birth (tells_birth), the score within a tier; the ones that tell none left out."""
    told = [(cid, tier, score) for cid, score, text in hits if (tier := tells_birth(text))]
    if not told:
        return []
    lo, hi = min(s for *_, s in told), max(s for *_, s in told)
    span = hi - lo or 1.0
    return sorted(((cid, tier + 0.5 * (score - lo) / span) for cid, tier, score in told), key=lambda x: -x[1])
