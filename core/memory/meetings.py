"""First meetings in questions: whether a question asks when or how the owner met someone, or
how long they have known them ("When did I meet Lukas?", "How long had I known Callum when he met
my parents?", "¿Cuándo conocí a Lukas?").

How two people met is told where one of them first appears: the journal's "Met a tall guy called
Lukas at the climbing gym", a chat's first line "it's Callum from the ceilidh last night". Those
passages share the name with the question and little else, and a name is in every later chat
too; the oldest passages naming the person are the ones that tell it (search.py's meeting
round). A pure function over text, per language as core/memory/query_understanding.py's tables
are: no model, no I/O.
"""

from __future__ import annotations

import re
from functools import lru_cache

_ASKS_MEETING = {
    "en": r"meet|met|meeting|first time|(?:have|has|had) (?:\w+ )?known|get to know|got to know",
    "de": r"kennengelernt|kennen gelernt|kennenlernen|getroffen|zum ersten mal|kenn\w* (?:\w+ )?(?:schon|seit)",
    "fr": r"rencontr\w*|fait la connaissance|conna\w+|première fois",
    "es": r"conoc\w*|primera vez",
    "pt": r"conhec\w*|primeira vez",
    "it": r"conosc\w*|conosciut\w*|incontrat\w*|prima volta",
    "nl": r"ontmoet\w*|leren kennen|eerste keer",
    "pl": r"pozna\w*|pierwszy raz|po raz pierwszy",
}


@lru_cache(maxsize=1)
def _asks() -> re.Pattern[str]:
    return re.compile(r"(?<!\w)(?:" + "|".join(_ASKS_MEETING.values()) + r")(?!\w)", re.I)


def asks_meeting(query: str) -> bool:
    """Whether a question asks about meeting someone or knowing them: when, how, how long since
    ("When did I first meet Javi?", "How long after meeting Lukas did we move in?", "Wann habe
    ich Lukas kennengelernt?"). Whom it asks about is the question's people (QueryIntent.people)."""
    return bool(_asks().search(" ".join(query.split())))
