"""What the keyword index holds for a text, and what a query looks for in it: the index's
tokenizer, run in Python because FTS5 offers no stemmer but English Porter and no way to split
text written without spaces.

- Words are lower-cased and stemmed in the chunk's own language (Snowball stemmers, through
  PyStemmer): "работу" and "работы" meet at "работ", "casas" and "casa" at "cas". A word in
  another script than the chunk's language (an English word in a Russian chat) gets that
  script's usual stemmer: Porter for Latin letters, as the index always did.
- Text written without spaces (Chinese, Japanese, Thai, Lao, Khmer, Burmese) and Korean, whose
  particles stick to words, becomes overlapping pairs of letters ("東京タワー": 東京 京タ タワ
  ワー): a word of two or more letters is then found wherever it stands, with no dictionary.
  (FTS5's trigram tokenizer cannot find two-letter words, the commonest in Chinese and Japanese.)

Latin and Greek letters lose their accents after stemming ("été" and "ete" meet), as FTS5's
unicode61 tokenizer did; other scripts keep their combining marks, which unicode61 took for
separators (it cut "हमने" and Thai syllables apart). The result is words separated by spaces,
which FTS5's ascii tokenizer (every non-ASCII character a letter) reads as is. A query word is looked for under every way the store's
languages would have indexed it (`query_variants`), so a word is found whichever language its
chunk was taken for.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

import Stemmer

from storage.keyword.languages import (LANGUAGE_SCRIPT, UNKNOWN, UNSPACED_CLASS, UNSPACED_SCRIPTS, WORD,
                                       script_of, token_script)

#: Snowball stemmer per language (PyStemmer's names); languages not here are left unstemmed.
#: English keeps the original Porter algorithm, which FTS5's porter tokenizer ran before.
STEMMERS = {"en": "porter", "de": "german", "fr": "french", "es": "spanish", "pt": "portuguese",
            "it": "italian", "nl": "dutch", "id": "indonesian", "tr": "turkish", "pl": "polish",
            "cs": "czech", "sv": "swedish", "da": "danish", "no": "norwegian", "fi": "finnish",
            "ro": "romanian", "hu": "hungarian", "ca": "catalan", "ru": "russian", "sr": "serbian",
            "el": "greek", "ar": "arabic", "fa": "persian", "hi": "hindi", "ne": "nepali",
            "ta": "tamil", "hy": "armenian"}
#: a word in a script its chunk's language is not written in (or of a chunk of unknown language)
SCRIPT_STEMMERS = {"Latin": "porter", "Cyrillic": "russian", "Greek": "greek", "Arabic": "arabic",
                   "Devanagari": "hindi", "Armenian": "armenian", "Tamil": "tamil"}

_FOLDED_SCRIPTS = frozenset({"Latin", "Greek"})
_TERMS: dict[str, dict[str, str]] = {}  # language -> word -> its terms, space-separated
MAX_CACHED_WORDS = 200_000  # per language; then the cache starts afresh
_WORD_CHAR = re.compile(WORD.pattern)


@lru_cache(maxsize=None)
def _unspaced() -> re.Pattern[str]:
    """A letter of an unspaced script, compiled on first use: a few milliseconds (the class names
    every such script's ranges) that `grep`, `read` and `stats` need not pay."""
    return re.compile(rf"[{UNSPACED_CLASS}]")


@lru_cache(maxsize=None)
def _stemmer(algorithm: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(algorithm, 20_000)  # PyStemmer keeps a cache of this many words


def letter_pairs(run: str) -> list[str]:
    """Overlapping pairs of letters of a run of unspaced text (the letter itself if alone)."""
    return [run] if len(run) < 2 else [run[i:i + 2] for i in range(len(run) - 1)]


def _run_terms(run: str) -> list[str]:
    """What the index keeps of a run of unspaced text: its pairs of letters, then its last letter
    alone, so that every letter starts a term and one letter is found as a prefix ("猫"*)."""
    return letter_pairs(run) + ([run[-1]] if len(run) > 1 else [])


def _folded(word: str) -> str:
    """Latin and Greek letters without their accents ("été" -> "ete"), as people often type them;
    other scripts' marks are letters of the word and stay."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _algorithm(script: str, language: str) -> str | None:
    if LANGUAGE_SCRIPT.get(language) == script:
        return STEMMERS.get(language)
    return SCRIPT_STEMMERS.get(script)


def word_terms(word: str, language: str, *, query: bool = False) -> list[str]:
    """The index terms of one token (lower case) of a text in `language`; with `query`, what a
    query looks for (a run of unspaced text: its pairs of letters only)."""
    if _unspaced().match(word):
        return letter_pairs(word) if query else _run_terms(word)
    if word.isdigit():
        return [word]
    script = token_script(word)
    algorithm = _algorithm(script, language)
    term = _stemmer(algorithm).stemWord(word) if algorithm else word
    return [_folded(term) if script in _FOLDED_SCRIPTS and not term.isascii() else term]


def _script_class(char: str) -> str:
    """The script a letter counts in for word ends: the unspaced scripts are one (Japanese mixes
    Han and Kana inside its words); "Other" (digits, marks, the underscore, scripts not told
    apart) belongs to whatever it stands beside."""
    script = script_of(char)
    return "unspaced" if script in UNSPACED_SCRIPTS else script


def script_parts(word: str) -> list[str]:
    """A word cut wherever its script changes: "app更新ui" is app, 更新, ui; "covidом" is covid,
    ом (people glue words of two scripts: product names in Chinese, Russian endings on Latin
    names); digits and marks stay with the letters before them."""
    parts: list[str] = []
    start, current = 0, None
    for i, char in enumerate(word):
        kind = _script_class(char)
        if kind == "Other":
            continue
        if current is not None and kind != current:
            parts.append(word[start:i])
            start = i
        current = kind
    parts.append(word[start:])
    return parts


def same_word(before: str, after: str) -> bool:
    """Whether two adjacent characters belong to one word as the index cuts words: both word
    characters, and not where the script changes."""
    if not (_WORD_CHAR.match(before) and _WORD_CHAR.match(after)):
        return False
    a, b = _script_class(before), _script_class(after)
    return a == b or "Other" in (a, b)


def tokens(text: str) -> list[str]:
    """The words of a text, lower case, each cut where its script changes (runs of unspaced
    script so stand apart from the rest)."""
    words = WORD.findall(text.lower())
    if text.isascii():
        return words
    return [part for word in words for part in (script_parts(word) if not word.isascii() else (word,))]


def index_text(text: str, language: str) -> str:
    """What the keyword index stores for a chunk of `language` (UNKNOWN: by script alone).
    Each word's terms are remembered per language (words recur: a chunk is analysed in about
    20 µs once its words have been seen)."""
    words = tokens(text)
    cache = _TERMS.setdefault(language, {})
    try:
        return " ".join(map(cache.__getitem__, words))
    except KeyError:
        if len(cache) > MAX_CACHED_WORDS:
            cache.clear()
        for word in set(words).difference(cache):
            cache[word] = " ".join(word_terms(word, language))
        return " ".join(map(cache.__getitem__, words))


#: what FTS5's ascii tokenizer takes for a separator: every ASCII character but letters and digits
FTS_SEPARATORS = re.compile(r"[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+")
ASCII_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fts_tokens(indexed: str) -> list[str]:
    """The tokens FTS5's ascii tokenizer (which the index is built with) reads in `indexed`:
    runs of ASCII letters and digits and of non-ASCII characters, ASCII letters lower-cased
    (an underscore, which `WORD` keeps inside a word, parts it)."""
    if "_" not in indexed and indexed.islower():  # most text: terms of letters and digits, spaced
        return indexed.split()
    return [t for t in FTS_SEPARATORS.split(indexed.translate(ASCII_UPPER)) if t]


def query_variants(word: str, languages: Iterable[str]) -> list[list[str]]:
    """The ways a query word may have been indexed in a store holding `languages`: one list of
    terms per way (pairs of letters make a list of several), distinct, in a stable order."""
    variants: dict[tuple[str, ...], None] = {}
    for language in (*languages, UNKNOWN):
        variants[tuple(word_terms(word, language, query=True))] = None
    return [list(v) for v in variants]


def is_unspaced(char: str) -> bool:
    return bool(_unspaced().match(char))


def register(conn) -> None:
    """Make `keyword_terms(text, language)` callable in SQL on `conn`: the keyword index's
    trigger fills the index through it (storage/schema/languages.py)."""
    conn.create_function("keyword_terms", 2, lambda text, language: index_text(text or "", language or UNKNOWN),
                         deterministic=True)
