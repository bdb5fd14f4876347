"""When two ledger items are one: the same promise told in a mail and a chat, the same book
recommended twice. Pure functions over words, in any language: case and accents folded, short
and common words left out."""

from __future__ import annotations

import re
import unicodedata

from storage.keyword.query import ENGLISH_STOP_WORDS as STOP_WORDS

# the commonest function words of the other languages owners write in (English ones come from
# storage/keyword/query.py); they say nothing about which promise it is
_OTHER_STOP_WORDS = frozenset("""
que para com por uma umas uns dos das nos nas pelo pela mas como mais muito isso esse essa este esta
teu tua seu sua meu minha voce você eu tu ele ela nao não sim vou vai vais
los las una por para con del como pero mas muy eso esta este tus sus mis yo usted
der die das den dem des ein eine einen einem und oder aber mit fur für von zum zur ich du wir ihr sie
nicht auch noch dir mir dich mich
les des une pour avec dans sur pas plus tres très ton ta tes mon ma mes vous nous je tu il elle
che per con una della delle degli non piu più tuo tua mio mia voi noi io
""".split())
_WORD = re.compile(r"\w+")


def fold(text: str) -> str:
    """Lower case without accents: "Não" and "nao" are one word."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def content_words(text: str, *, leave_out: frozenset[str] = frozenset()) -> frozenset[str]:
    """The words that say what an item is about (names in `leave_out` are not among them)."""
    out = set()
    for word in _WORD.findall(fold(text)):
        if len(word) < 3 and not word.isdigit():
            continue
        if word in STOP_WORDS or word in _OTHER_STOP_WORDS or word in leave_out:
            continue
        out.add(word)
    return frozenset(out)


def name_words(names: tuple[str, ...] | list[str]) -> frozenset[str]:
    return frozenset(w for name in names for w in _WORD.findall(fold(name)))


def same_task(a: str, b: str, *, names: frozenset[str] = frozenset()) -> bool:
    """Two to-dos of one person that say the same thing: "Send Maya the deck" and "send the deck
    to Maya by Friday" (two thirds of the shorter one's words shared, at least two of them)."""
    left, right = content_words(a, leave_out=names), content_words(b, leave_out=names)
    if not left or not right:
        return fold(a).strip() == fold(b).strip()
    shared = len(left & right)
    if min(len(left), len(right)) == 1:
        return left == right
    return shared >= 2 and shared * 3 >= 2 * min(len(left), len(right))


def same_title(a: str, b: str) -> bool:
    """One recommended thing: "Slow Horses" and "Slow Horses (Apple TV)"; but "Dune" is not "Dune
    Messiah" (a one-word title must match whole)."""
    left, right = _title_words(a), _title_words(b)
    if not left or not right:
        return False
    shorter, longer = sorted((left, right), key=len)
    return shorter == longer or (len(shorter) >= 2 and shorter <= longer)


def _title_words(title: str) -> frozenset[str]:
    words = frozenset(_WORD.findall(fold(title)))
    meaningful = frozenset(w for w in words if w not in STOP_WORDS and w not in _OTHER_STOP_WORDS)
    return meaningful or words  # "The The" is a band
