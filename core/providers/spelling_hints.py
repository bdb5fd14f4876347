"""Spelling hints for speech-to-text: the names a transcriber would otherwise get wrong.

Capitalised words of four or more letters from the owner's profile (bio.md) and from known
participant names, minus common words that are capitalised only because they start a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_CAPITALISED = re.compile(r"\b[A-ZÀ-ÖØ-Þ][\w'’-]{3,}\b")

COMMON_WORDS = frozenset("""
about above after again against also although always another anything around because been
before being below between both cannot could does doing down during each either every
everything first from have having here hers herself himself however into itself just last
later like many maybe more most much must myself never next none nothing once only other
ours ourselves over perhaps please really same says should since some something sometimes
still such than that their theirs them themselves then there these they this those though
through today tomorrow together under until very want well were what whatever when where
whether which while will with within without would year years yesterday your yours yourself
monday tuesday wednesday thursday friday saturday sunday january february march april june
july august september october november december note notes profile summary facts family
work home life people places events goals open questions timeline name names
""".split())


def spelling_hints(profile: str = "", names: Iterable[str] = (), *, limit: int = 60) -> list[str]:
    """Distinct hint words, most frequent first, names before profile words on ties."""
    counts: dict[str, int] = {}
    order: dict[str, int] = {}
    sources = [" ".join(n for n in names if n), profile]
    for text in sources:
        for word in _CAPITALISED.findall(text):
            word = word.strip("'’-")
            if len(word) < 4 or word.lower() in COMMON_WORDS or word.isupper() and len(word) > 5:
                continue
            counts[word] = counts.get(word, 0) + 1
            order.setdefault(word, len(order))
    ranked = sorted(counts, key=lambda w: (-counts[w], order[w]))
    return ranked[:limit]


def initial_prompt(hints: Iterable[str], *, max_chars: int = 200) -> str | None:
    """Whisper's initial prompt: a short comma-separated glossary (it reads at most ~224 tokens)."""
    prompt = ""
    for hint in hints:
        candidate = f"{prompt}, {hint}" if prompt else hint
        if len(candidate) > max_chars:
            break
        prompt = candidate
    return f"Names: {prompt}." if prompt else None
