"""Small talk weighs little: a line said again and again ("haha", "Long day at work", "Boa
noite", "Call you tomorrow") carries no evidence, and a chat window made mostly of such lines is
no answer to a question, however well its words or its meaning match. In prose (a journal, notes)
the unit is the sentence: a diary says "Tired but happy." and "Slept badly." entry after entry,
each time among other words on the same line.

Measured within each document when it is indexed (small_talk_shares over its chunks: one chat
says its "haha" and "good night" hundreds of times), kept with each chunk, and used twice by the
hybrid search: each half chooses its candidates from a deeper pool with it
(`informed`, before any chunk row is read), and ranking takes it off the fused score
(`less_small_talk`). Pure functions: no I/O, no model.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

# a line said in this many of a document's chunks is small talk (3 and 5 measured the same on
# the life archive's tuning half; 2 would count a prose chunk's overlap with the next)
REPEATS = 3
# what a passage all of small talk loses against one all its own: in the fused score, and when
# each half chooses its candidates from a pool this many times as deep (README, "Small talk weighs
# little"); the semantic half ranks a short list of hundreds anyway, so its deeper pool costs nothing
WEIGHT = 0.7
KEYWORD_POOL = 3
SEMANTIC_POOL = 3

# the head of a conversation chunk's line, as core/memory/chunking.py renders a message
_STAMPED = re.compile(r"^\[[^\]\n]*\] [^:\n]{1,120}: ", re.M)
# where prose's sentences end: after a full stop, an exclamation or a question, before a space
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def lines_said(text: str) -> list[str]:
    """What a chunk says, line by line, without when and by whom (lower-cased, spaces collapsed,
    empty lines left out)."""
    return [line for raw in _STAMPED.sub("", text).split("\n") if (line := " ".join(raw.lower().split()))]


def units_said(text: str) -> list[str]:
    """What a chunk says in the units small talk is counted in: a conversation's lines (one
    message each: "Thanks! I got the job" is news, whatever "Thanks!" is), prose's sentences."""
    lines = lines_said(text)
    if _STAMPED.search(text):
        return lines
    return [sentence for line in lines for sentence in _SENTENCE_END.split(line) if sentence]


def small_talk_shares(texts: Mapping[int, str], *, repeats: int = REPEATS) -> dict[int, float]:
    """Each text's share of characters in lines (prose: sentences, units_said) that `repeats` or
    more of the texts say: 0.0 for a passage all its own, 1.0 for one made of lines the others
    say too."""
    said = {key: units_said(text) for key, text in texts.items()}
    seen = Counter(line for lines in said.values() for line in set(lines))
    out: dict[int, float] = {}
    for key, lines in said.items():
        total = sum(map(len, lines))
        out[key] = sum(len(line) for line in lines if seen[line] >= repeats) / total if total else 0.0
    return out


def informed(ranked: Sequence[tuple[int, float]], small_talk: Mapping[int, float], *, depth: int,
             weight: float | None = None, lower_is_better: bool = False) -> list[tuple[int, float]]:
    """The best `depth` of a candidate list (id, score; best first) once each score, min-max
    normalised within the list, loses `weight` (WEIGHT unless given) times the candidate's share
    of small talk; the scores are returned as they were. Without small talk the list keeps its
    order. `lower_is_better`: scores such as bm25's as FTS5 gives it."""
    if not small_talk or not ranked:
        return list(ranked[:depth])
    weight = WEIGHT if weight is None else weight
    values = [s for _, s in ranked]
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    if lower_is_better:
        def key(hit: tuple[int, float]) -> float:
            return (hi - hit[1]) / span - weight * small_talk.get(hit[0], 0.0)
    else:
        def key(hit: tuple[int, float]) -> float:
            return (hit[1] - lo) / span - weight * small_talk.get(hit[0], 0.0)
    return sorted(ranked, key=key, reverse=True)[:depth]


def less_small_talk(scores: Mapping[int, float], small_talk: Mapping[int, float], *,
                    weight: float | None = None) -> dict[int, float]:
    """Fused scores less `weight` (WEIGHT unless given) times each candidate's share of small talk."""
    weight = WEIGHT if weight is None else weight
    return {cid: s - weight * small_talk.get(cid, 0.0) for cid, s in scores.items()}


def measured(documents: Iterable[Mapping[int, str]]) -> dict[int, float]:
    """Every chunk's share of small talk, each document's chunks (id -> text) measured together."""
    out: dict[int, float] = {}
    for chunks in documents:
        out.update(small_talk_shares(chunks))
    return out
