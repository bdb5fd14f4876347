"""FreeDict bilingual dictionaries in the dictd format, as Debian's `dict-freedict-*` packages and
freedict.org's `.dictd` downloads install them: `freedict-eng-spa.index` (one line a headword:
the headword, then the entry's offset and length in the dictd base-64 digits, tab-separated) and
`freedict-eng-spa.dict.dz` (the entries' text, gzip-compressed; `.dict` when not).

Each entry's text is the headword line (with its pronunciation), then the translations, then
examples, notes and cross-references, written differently by each dictionary:

    airport /ɛəpɔːt/            cake /keɪk/ <N>              airport /ˈeəpɔːt/
    1. aeropuerto                1.  ciasto, ciastko          Flughafen <masc> [aviat.]
                                 4.  [nieform]  a piece of     "the island's airport" - ...
                                  - łatwizna                   see: {airports}, {hub airport}

`translations` keeps the translations of each sense in order: numbers, grammatical tags
(`<masc>`), labels (`[aviat.]`), glosses in brackets and pronunciations taken out; examples,
quoted phrases and cross-references left out.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

#: ISO 639-3 (FreeDict's file names) to ISO 639-1 (the keyword index's languages), for the
#: languages the index stems (storage/keyword/terms.py STEMMERS)
ISO_639_1 = {"eng": "en", "deu": "de", "fra": "fr", "spa": "es", "por": "pt", "ita": "it", "nld": "nl",
             "ind": "id", "tur": "tr", "pol": "pl", "ces": "cs", "swe": "sv", "dan": "da", "nor": "no",
             "nob": "no", "fin": "fi", "ron": "ro", "hun": "hu", "cat": "ca", "rus": "ru", "srp": "sr",
             "ell": "el", "ara": "ar", "fas": "fa", "hin": "hi", "nep": "ne", "tam": "ta", "hye": "hy"}

_DIGITS = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
# Debian's name (freedict-eng-spa.index), or freedict.org's (its .dictd.tar.xz holds
# eng-spa/eng-spa.index)
_FILE = re.compile(r"(?:freedict-)?([a-z]{3})-([a-z]{3})\.index")
# a line that is no translation: an example ("..."), a cross-reference (see: {..}), a synonym,
# a note, or the translation of an example (" - łatwizna")
_NOT_A_TRANSLATION = re.compile(r'^(?:"|see:|synonyms?:|antonyms?:|note:|-|\{|\()', re.IGNORECASE)
# "1. ", "I. 1. ", "II. " (Polish: parts of speech, then senses)
_SENSE_NUMBER = re.compile(r"^(?:[ivx]+\.\s+)?(?:\d+\.\s*)?", re.IGNORECASE)
_ASIDE = re.compile(r"<[^>]*>|\[[^\]]*\]|\([^)]*\)|\{[^}]*\}|/[^/]*/")
MAX_WORDS = 3  # a translation of more words is a gloss, not a word to look for


@dataclass(frozen=True)
class Dictionary:
    """One FreeDict dictionary file pair, from `source` to `target` (ISO 639-1)."""

    source: str
    target: str
    index: Path

    @property
    def body(self) -> Path:
        plain = self.index.with_suffix(".dict")
        return plain if plain.is_file() else self.index.with_suffix(".dict.dz")

    def stamp(self) -> str:
        """What changes when the dictionary does (a package update): its files' sizes and times."""
        parts = [self.index, self.body]
        return ";".join(f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in parts)


def find_dictionaries(folders: Iterable[Path]) -> list[Dictionary]:
    """The FreeDict dictionaries in `folders` (or in a folder of theirs, as freedict.org's
    downloads unpack) between languages the keyword index knows, whose entries file is there
    too; a folder that does not exist holds none."""
    found: dict[tuple[str, str], Dictionary] = {}
    for folder in folders:
        if not folder.is_dir():
            continue
        for index in sorted(folder.glob("*.index")) + sorted(folder.glob("*/*.index")):
            match = _FILE.fullmatch(index.name)
            if match is None:
                continue
            source, target = ISO_639_1.get(match[1]), ISO_639_1.get(match[2])
            dictionary = Dictionary(source or "", target or "", index)
            if source and target and source != target and dictionary.body.is_file():
                found.setdefault((source, target), dictionary)  # the first folder's wins
    return list(found.values())


def _number(digits: str) -> int:
    value = 0
    for char in digits:
        value = value * 64 + _DIGITS[char]
    return value


def entries(dictionary: Dictionary) -> Iterator[tuple[str, list[str]]]:
    """Each one-word headword (lower-cased) with its translations, in the dictionary's order; a
    headword with several entries comes once for each."""
    body = dictionary.body
    text = gzip.decompress(body.read_bytes()) if body.suffix == ".dz" else body.read_bytes()
    with dictionary.index.open(encoding="utf-8", errors="replace") as index:
        for line in index:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 3 or fields[0].startswith("00-database") or " " in fields[0].strip():
                continue
            start, length = _number(fields[1]), _number(fields[2])
            entry = text[start:start + length].decode("utf-8", errors="replace")
            yield fields[0].strip().lower(), translations(entry)


def translations(entry: str) -> list[str]:
    """The translations in one entry's text (see the module's docstring), lower-cased, each once."""
    found: list[str] = []
    for raw in entry.split("\n")[1:]:  # the first line is the headword's
        line = raw.strip()
        # examples and notes are indented deeper than the senses (Ding's German, six spaces)
        if not line or raw.startswith("     ") or _NOT_A_TRANSLATION.match(line):
            continue
        line = _ASIDE.sub(" ", _SENSE_NUMBER.sub("", line))
        for part in re.split(r"[,;]", line):
            words = " ".join(part.replace("…", " ").split()).lower()
            if words and len(words.split()) <= MAX_WORDS and words not in found:
                found.append(words)
    return found
