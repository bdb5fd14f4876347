"""Where a query's words stand in a passage, for showing them marked: the words the keyword index
would look for (stop and question words left out), matched as the index matches them (stemmed, so
"knees" marks "knee"; accents folded), and runs of unspaced script wherever they occur. Character
spans only: whoever shows them escapes the text."""

from __future__ import annotations

from storage.keyword.languages import WORD
from storage.keyword.query import stop_words_for
from storage.keyword.terms import is_unspaced, script_parts, tokens, word_terms

Span = tuple[int, int]


def query_spans(text: str, query: str, *, languages: tuple[str, ...] = ()) -> list[Span]:
    """Sorted, non-overlapping (start, end) spans of `text` holding the query's words."""
    words = list(dict.fromkeys(tokens(query)))
    stop = stop_words_for(query, languages)
    kept = [w for w in words if w not in stop] or words
    unspaced = [w for w in kept if is_unspaced(w[0])]
    wanted = {term for w in kept if not is_unspaced(w[0]) for term in _terms(w, languages)}
    spans: list[Span] = []
    for match in WORD.finditer(text):
        start = match.start()
        for part in script_parts(match.group()):
            end = start + len(part)
            if is_unspaced(part[0]):
                spans += _runs_in(text, start, end, unspaced)
            elif _terms(part.lower(), languages) & wanted:
                spans.append((start, end))
            start = end
    return _merged(spans)


def _terms(word: str, languages: tuple[str, ...]) -> set[str]:
    return {term for language in (*languages, "") for term in word_terms(word, language, query=True)}


def _runs_in(text: str, start: int, end: int, runs: list[str]) -> list[Span]:
    """Each occurrence of a query's unspaced run inside text[start:end] (no word ends to go by)."""
    found = []
    for run in runs:
        at = text.find(run, start, end)
        while at != -1:
            found.append((at, at + len(run)))
            at = text.find(run, at + 1, end)
    return found


def _merged(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out
