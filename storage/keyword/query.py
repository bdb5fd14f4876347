"""The keyword index's query language: what a search or a grep asks FTS5 for.

The index holds each word as storage/keyword/terms.py turned it into terms (stemmed in the
chunk's language, or as pairs of letters for unspaced scripts); a query must be turned into the
same terms, quoted so that nothing the owner types is read as FTS5 syntax (`NEAR`, `-`, `"`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from storage.keyword.terms import ASCII_UPPER, FTS_SEPARATORS, is_unspaced, query_variants, tokens, word_terms
from storage.keyword.languages import FUNCTION_WORDS, UNKNOWN, detect_language
from storage.keyword.questions import question_words

#: English function words: dropped from every keyword query
ENGLISH_STOP_WORDS = FUNCTION_WORDS["en"]


def stop_words_for(query: str, languages: Iterable[str] = ()) -> frozenset[str]:
    """English function words and question words, and the query's language's; a query too
    short to tell its language by drops those of every language the store holds."""
    language = detect_language(query)
    held = (language,) if language != UNKNOWN else tuple(languages)
    return (ENGLISH_STOP_WORDS.union(*(FUNCTION_WORDS.get(h, frozenset()) for h in held))
            | question_words(held))


def keyword_query(query: str, languages: Sequence[str] = (), *, drop: Iterable[str] = (),
                  keep: Iterable[str] = ()) -> str | None:
    """An FTS5 expression: the query's words, stop words and question words dropped, any of
    them may match; each word as the keyword index would hold it in each of the store's
    `languages`. `drop`: more words that must not count (the owner's names, who is in every
    conversation); `keep`: words never dropped as stop words (names of people the store knows).
    A one-letter word of an unspaced script is a prefix: every letter of such text starts a term."""
    words = list(dict.fromkeys(tokens(query)))
    keep = frozenset(keep)
    stop = (stop_words_for(query, languages) - keep) | frozenset(drop)
    kept = [w for w in words if w not in stop] or [w for w in words if w not in drop] or words
    terms = dict.fromkeys(term for word in kept for variant in query_variants(word, languages)
                          for term in variant)
    return " OR ".join(_fts_term(term) for term in terms) if terms else None


def keyword_both(first: str, second: str) -> str:
    """An FTS5 expression a passage satisfies when it matches both expressions (keyword_query's)."""
    return f"({first}) AND ({second})"


def keyword_phrase(text: str, languages: Sequence[str] = ()) -> str | None:
    """An FTS5 expression every occurrence of `text` (whole words, or a run of unspaced
    letters) satisfies: its terms as a phrase, once per way the store's languages index them."""
    words = tokens(text)
    if not words:
        return None
    # a run of unspaced letters followed by another word holds, in the index, its last letter
    # alone after its pairs ("北京户口ah": 北京 京户 户口 口 ah): only the phrase's last word is
    # looked for as a query (its pairs only, so that it may continue)
    last = len(words) - 1
    phrases = dict.fromkeys(
        " ".join(term for n, word in enumerate(words)
                 for term in word_terms(word, language, query=n == last))
        for language in (*languages, ""))
    return " OR ".join(_fts_term(phrase) for phrase in phrases)


def _fts_term(term: str) -> str:
    """A quoted FTS5 string (terms hold letters, digits and marks only: no quote to escape); a
    lone letter of unspaced script as a prefix."""
    return f'"{term}"*' if len(term) == 1 and is_unspaced(term) else f'"{term}"'


_PLAIN_TERM = re.compile(r'"([^"*]+)"')


def plain_terms(match: str) -> list[str] | None:
    """The terms of an expression `keyword_query` wrote (`"a" OR "b" OR ...`) when each is one
    token of the index, in order, as FTS5 reads them; None for anything else (a prefix, a
    phrase, a term FTS5 would cut in two)."""
    terms = []
    for part in match.split(" OR "):
        m = _PLAIN_TERM.fullmatch(part)
        if m is None or FTS_SEPARATORS.search(m[1]):
            return None
        terms.append(m[1].translate(ASCII_UPPER))  # FTS5 folds ASCII letters only
    return terms
