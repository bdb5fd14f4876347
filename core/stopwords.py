"""Function words dropped from keyword queries: they match everything and rank nothing. English
always; the query's own language too when it can be told (storage/languages.py keeps the lists)."""

from __future__ import annotations

from collections.abc import Iterable

from storage.languages import FUNCTION_WORDS, UNKNOWN, detect_language

STOP_WORDS = FUNCTION_WORDS["en"]


def stop_words_for(query: str, languages: Iterable[str] = ()) -> frozenset[str]:
    """English function words and the query's language's; a query too short to tell its
    language by drops the function words of every language the store holds."""
    language = detect_language(query)
    if language != UNKNOWN:
        return STOP_WORDS | FUNCTION_WORDS.get(language, frozenset())
    return STOP_WORDS.union(*(FUNCTION_WORDS.get(held, frozenset()) for held in languages))
