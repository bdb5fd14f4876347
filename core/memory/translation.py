"""A question's words in the store's other languages, from bilingual dictionaries on this machine
(FreeDict's, core/memory/freedict.py), so that the keyword half can find evidence written in
another language than the question ("Who took Dani to the airport?" / "Te llevo al aeropuerto").

Why a dictionary: no translation model ships in any package these machines reach, and the
multilingual model's cross-lingual ranks are 40-200 deep on the life archives (README, "Other
languages"). Dictionary-based query translation is the classic way to search across languages;
its noise (a word's rarer senses) is held down by preferring translations both directions of a
pair agree on, by taking a word's first few that the store holds (`chosen`), and by searching
only the chunks not told in the question's language (core/memory/search.py `_translated_now`).

The dictionaries are compiled once into the lexicon file (storage/lexicon.py), then each word is
one indexed lookup. Nothing here loads a model or reaches a network.
"""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # made with every store; read on a search's first translation only
    from core.memory.freedict import Dictionary
    from storage.lexicon import LexiconReader

log = logging.getLogger(__name__)

#: translations looked for per question word (measured on the life archives' tuning sets:
#: README, "Words in the store's other languages")
TRANSLATIONS_PER_WORD = 4
#: a language whose chunks are fewer than this share of the store's told chunks is detection
#: noise (a French-looking chat line in a Spanish and German life), not worth a search
LANGUAGE_SHARE = 0.05


def lookup_key(word: str, language: str) -> str:
    """What a word is filed under besides itself (exact_key): its stem in its language, as the
    keyword index holds it, so that "pets" finds the entry for "pet" and "mudamos" the one for
    "mudar"."""
    from storage.keyword.terms import word_terms

    terms = word_terms(word.lower(), language)
    return terms[0] if terms else word.lower()


def exact_key(word: str) -> str:
    """What a headword is filed under as itself, looked up before its stem: "wedding" and the
    abbreviation "wed" (Wednesday) share the stem "wed"."""
    return "=" + word.lower()


def ordered_translations(forward: Mapping[str, Sequence[str]], reverse: Mapping[str, Sequence[str]],
                         language: str) -> dict[str, list[str]]:
    """Each source word's translations, best first, from the dictionary from its language
    (`forward`: headword -> translations) and the one into it (`reverse`: headword in the other
    language -> its translations into this one), filed by lookup_key in `language`:
    - first the translations both dictionaries agree on (forward's order),
    - then the reverse dictionary's, those that give the word as their first sense first
      ("Hund" gives "dog" first; Ding's English-German gives "dog" a tool's senses before it),
    - then the rest of the forward dictionary's.
    Each headword is filed as itself (exact_key) and under its stem, where headwords that
    share one are merged, the shorter first."""
    inverse: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for other, meanings in reverse.items():
        for place, meaning in enumerate(meanings):
            if " " not in meaning:
                inverse[meaning].append((place, other))
    by_key: dict[str, list[str]] = defaultdict(list)
    for word in sorted(set(forward) | set(inverse), key=lambda w: (len(w), w)):
        given = list(dict.fromkeys(forward.get(word, ())))
        back = list(dict.fromkeys(other for _, other in sorted(inverse.get(word, ()), key=lambda p: p[0])))
        agreed = [t for t in given if t in back]
        ranked = agreed + [t for t in back if t not in agreed] + [t for t in given if t not in agreed]
        ranked = [t for t in ranked if t != word]
        by_key[exact_key(word)] = ranked
        kept = by_key[lookup_key(word, language)]
        kept.extend(t for t in ranked if t not in kept)
    return {key: found for key, found in by_key.items() if found}


def _merged(dictionary: Dictionary) -> dict[str, list[str]]:
    """A dictionary's entries, a headword's several entries as one list."""
    from core.memory.freedict import entries

    merged: dict[str, list[str]] = defaultdict(list)
    for headword, meanings in entries(dictionary):
        kept = merged[headword]
        kept.extend(m for m in meanings if m not in kept)
    return dict(merged)


class Translator:
    """The question's words in another language, from the FreeDict dictionaries in `folders`,
    compiled into the lexicon file at `path` after an import (`prepare`) or on first use, in a
    child process (under a second for most pairs, about 40 s for English-German both ways at
    load 1; once a machine, again only when a dictionary changes). Thread-safe: searches call it
    from worker threads."""

    def __init__(self, folders: Iterable[Path], path: Path) -> None:
        self.folders = tuple(folders)
        self.path = path
        self._lock = threading.Lock()
        self._dictionaries: dict[tuple[str, str], Dictionary] | None = None
        self._ready: set[tuple[str, str]] = set()
        self._broken: set[tuple[str, str]] = set()  # pairs that could not be compiled (logged once)
        self._reader: LexiconReader | None = None

    @property
    def lexicon(self) -> LexiconReader:
        if self._reader is None:
            from storage.lexicon import LexiconReader

            self._reader = LexiconReader(self.path)
        return self._reader

    def _found(self) -> dict[tuple[str, str], Dictionary]:
        if self._dictionaries is None:
            from core.memory.freedict import find_dictionaries

            self._dictionaries = {(d.source, d.target): d for d in find_dictionaries(self.folders)}
        return self._dictionaries

    def can_translate(self, source: str, target: str) -> bool:
        """Whether a dictionary of this pair, either way round, is on this machine."""
        found = self._found()
        return (source, target) in found or (target, source) in found

    def _stamp(self, source: str, target: str) -> str:
        found = self._found()
        return " | ".join(d.stamp() for d in (found.get((source, target)), found.get((target, source))) if d)

    def _current(self, pair: tuple[str, str]) -> bool:
        """Whether the lexicon holds the pair, compiled from the dictionary files there now."""
        return self.lexicon.stamp(*pair) == self._stamp(*pair)

    def _ensure(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Compile those of `pairs` the lexicon does not hold from the same files, in a child
        process: English-German holds about 380 MB while it compiles, which a long-running bot
        or server would keep (Python seldom gives freed memory back), and 40 s of Python would
        hold the interpreter lock from its event loop. A pair that cannot be compiled (a damaged
        dictionary file, a cache that cannot be written) is left out of searches, said once."""
        wanted = [pair for pair in pairs if pair not in self._ready and pair not in self._broken]
        if not wanted:
            return
        with self._lock:
            try:
                stale = [pair for pair in wanted if pair not in self._broken and not self._current(pair)]
                failed = _compile_elsewhere(self.folders, self.path, stale) if stale else ""
                missing = {pair for pair in stale if not self._current(pair)}
            except (OSError, sqlite3.Error) as error:  # the lexicon cannot even be read or made
                failed, missing = f"{type(error).__name__}: {error}", set(wanted)
            for pair in wanted:
                if pair not in missing:
                    self._ready.add(pair)
                elif pair not in self._broken:
                    self._broken.add(pair)
                    log.warning("cannot use the %s-%s dictionaries (%s); searches go on without them: "
                                "reinstall the dictionary or check that %s can be written",
                                *pair, failed or "the lexicon does not hold it after compiling", self.path)

    def compile(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Compile `pairs` here (the child process's work): a pair's two files are read once for
        both its ways."""
        from storage import lexicon as lexicon_store

        found = self._found()
        parsed: dict[Dictionary, dict[str, list[str]]] = {}
        for source, target in pairs:
            parsed = {d: words for d, words in parsed.items()
                      if d in (found.get((source, target)), found.get((target, source)))}
            for dictionary in (found.get((source, target)), found.get((target, source))):
                if dictionary is not None and dictionary not in parsed:
                    parsed[dictionary] = _merged(dictionary)
            words = ordered_translations(parsed.get(found.get((source, target))) or {},
                                         parsed.get(found.get((target, source))) or {}, source)
            lexicon_store.write_pair(self.path, source, target, words, stamp=self._stamp(source, target))

    def prepare(self, counts: Mapping[str, int]) -> None:
        """Compile, if not yet, the pairs between English and each language of a store holding
        `counts` chunks per language: both ways, for questions in either, in one child process."""
        self._ensure([pair for language in target_languages(counts, "en", self)
                      for pair in (("en", language), (language, "en")) if self.can_translate(*pair)])

    def translate(self, words: Sequence[str], source: str, target: str) -> list[list[str]]:
        """The translations of each of `words` (lower case, in `source`) into `target`, best
        first; a word the dictionaries do not hold has none."""
        if not words or not self.can_translate(source, target):
            return [[] for _ in words]
        self._ensure([(source, target)])
        if (source, target) in self._broken:
            return [[] for _ in words]
        keys = [(exact_key(w), lookup_key(w, source)) for w in words]
        try:
            found = self.lexicon.lookup(source, target, [k for pair in keys for k in pair])
        except sqlite3.Error as error:  # the cache file damaged or removed since: no translation this time
            log.warning("cannot read the lexicon %s (%s); searching without translation", self.path, error)
            return [[] for _ in words]
        # the word's own entry first, then its stem-mates'
        return [list(dict.fromkeys([*found.get(exact, []), *found.get(stem, [])])) for exact, stem in keys]


def _compile_elsewhere(folders: Sequence[Path], path: Path, pairs: Sequence[tuple[str, str]]) -> str:
    """Run Translator.compile in a child process; what it said on failure, "" on success."""
    command = [sys.executable, "-m", "core.memory.translation", str(path), ",".join(map(str, folders)),
               *(f"{source}-{target}" for source, target in pairs)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode == 0:
        return ""
    said = [line for line in (done.stderr or "").splitlines() if line.strip()]
    return said[-1] if said else f"exit status {done.returncode}"


def chosen(translations: Sequence[Sequence[str]], held: Callable[[str], bool], *,
           per_word: int = TRANSLATIONS_PER_WORD) -> list[str]:
    """Each word's first `per_word` translations that the store holds (`held`): one the store
    never uses finds nothing, and skipping it lets a commoner sense in (Ding's English-German
    gives "dog" seven tools' names before "Hund")."""
    out: list[str] = []
    for found in translations:
        out.extend([t for t in found if held(t)][:per_word])
    return out


def language_names(languages: Iterable[str]) -> str:
    """"Spanish, German": the languages' names in English, for the owner."""
    from storage.keyword.languages import NAMES

    return ", ".join(NAMES.get(language, language) for language in languages)


def other_languages(counts: Mapping[str, int], question_language: str) -> list[str]:
    """The store's languages besides `question_language` worth translating into: each holding at
    least LANGUAGE_SHARE of the chunks told a language (`counts`: chunks per language, ""
    undetermined), the most chunks first."""
    told = sum(n for language, n in counts.items() if language)
    return [language for language, n in sorted(counts.items(), key=lambda item: -item[1])
            if language and language != question_language and n / told >= LANGUAGE_SHARE]


def target_languages(counts: Mapping[str, int], question_language: str, translator: Translator) -> list[str]:
    """The store's languages a question in `question_language` is translated into: its other
    languages for which a dictionary is on this machine."""
    return [language for language in other_languages(counts, question_language)
            if translator.can_translate(question_language, language)]


def _main(argv: Sequence[str]) -> int:
    """`python -m core.memory.translation LEXICON FOLDERS PAIR...` (FOLDERS comma-separated, a
    PAIR such as en-de): compile the pairs, as Translator._ensure asks in a child process."""
    path, folders, *named = argv
    translator = Translator([Path(f) for f in folders.split(",") if f], Path(path))
    # a language's two ways together (they read the same files); one language's damaged file
    # does not keep the others from compiling
    together: dict[frozenset[str], list[tuple[str, str]]] = defaultdict(list)
    for pair in named:
        source, target = pair.split("-", 1)
        together[frozenset((source, target))].append((source, target))
    failed = 0
    for pairs in together.values():
        try:
            translator.compile(pairs)
        except Exception as error:  # noqa: BLE001 - the child's one job: any failure is its line to the parent
            print(f"{type(error).__name__}: {error}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
