"""Counts in words, the one way every front end and summary says them: "1 passage", "2 passages",
"1 match", "3 people". English plurals of the nouns this product counts; an irregular one is
passed in full."""

from __future__ import annotations

import re

_SIBILANT = ("s", "x", "z", "ch", "sh")
_IRREGULAR = {"people": "person", "copies": "copy", "entries": "entry", "batches": "batch"}
# the first word of a phrase named in the plural ("empty messages", "events without a readable
# date"), as the importers name what they left out
_PLURAL_WORD = re.compile(r"\b([A-Za-z-]+?)(e?s)\b")


def plural_of(noun: str) -> str:
    """The regular English plural of a noun or of a phrase's last word: match → matches."""
    if noun.endswith(_SIBILANT):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        return noun[:-1] + "ies"
    return noun + "s"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun it counts: `counted(1, "passage")` is "1 passage", `counted(2, "match")`
    "2 matches", `counted(3, "person", "people")` "3 people"; thousands are grouped (1,204)."""
    return f"{n:,} {noun if n == 1 else plural or plural_of(noun)}"


def singular_of(plural: str) -> str:
    """A phrase named in the plural, in the singular: its first plural word loses its ending
    ("empty messages" → "empty message", "spam e-mails" → "spam e-mail", "matches" → "match")."""
    first, _, rest = plural.partition(" ")
    if first in _IRREGULAR:
        return " ".join(filter(None, (_IRREGULAR[first], rest)))
    match = next((m for m in _PLURAL_WORD.finditer(plural) if not m.group(0).endswith("ss")), None)
    if match is None:
        return plural
    word, ending = match.groups()
    if ending == "es" and not word.endswith(_SIBILANT):  # "notices": the e is the word's own
        word += "e"
    return plural[:match.start()] + word + plural[match.end():]


def counted_plural(n: int, plural: str) -> str:
    """As counted, for a thing named in the plural ("empty messages", a reason a Counter keeps)."""
    return counted(n, singular_of(plural), plural)
