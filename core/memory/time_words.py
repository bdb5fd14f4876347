"""Time in questions and passages: whether a question asks when something happened (or how long
it lasted, how long ago, in which year), and whether a passage tells when ("yesterday", "last
week", "three years ago", "in May", "14 September 2024").

A chat line that answers a question about when rarely says the date itself: "I joined a choir
yesterday" is dated by its message, and the question ("When did Maya join the choir?") shares
its event, not its time words, with it. Pure functions over text, per language as
core/memory/query_understanding.py's tables are: no model, no I/O.
"""

from __future__ import annotations

import re
from functools import lru_cache

# a question that asks when: opening with its when-word ("When did", "Wann", "Quando"), or asking
# how long, since when, in which year or month, on which day, anywhere ("For how long has ...")
_ASKS_WHEN = {
    "en": r"^(?:and |so )?when\b|since when|how long|how many (?:days|weeks|months|years)|"
          r"(?:what|which) (?:year|month|day|date|week|weekend|season|time of year)\b",
    "de": r"^wann\b|seit wann|wie lange|in welchem (?:jahr|monat)|an welchem tag|welches datum",
    "fr": r"^quand\b|depuis quand|combien de temps|en quelle année|quel jour|quelle date|en quel mois",
    "es": r"^cuándo\b|desde cuándo|cuánto tiempo|(?:en )?qué (?:año|mes|día|fecha)",
    "pt": r"^quando\b|desde quando|quanto tempo|(?:em )?que (?:ano|mês|dia|data)",
    "it": r"^quando\b|da quando|quanto tempo|in che (?:anno|mese)|che giorno",
    "nl": r"^wanneer\b|sinds wanneer|hoe lang|in welk jaar|welke (?:dag|maand|datum)",
    "pl": r"^kiedy\b|od kiedy|jak długo|w którym roku|którego dnia|ile (?:lat|miesięcy|dni)",
}

# a passage that tells when, word by word (a regular expression of every phrase ran at 0.5 ms a
# chunk; sets of words at a few microseconds): a word that is a time ("yesterday", a month), a
# period named relative to the message ("last week", "la semaine dernière"), a span of time ("for
# 3 years", "vor drei Tagen", "il y a deux ans"), a year or a date
_TIME_WORDS = frozenset("""
yesterday today tonight tomorrow ago recently lately
january february april june july august september october november december
monday tuesday wednesday thursday friday saturday sunday
gestern heute morgen vorgestern übermorgen neulich kürzlich
januar februar märz juni juli oktober dezember montag dienstag mittwoch donnerstag freitag samstag sonntag
aujourd demain récemment janvier février avril juin juillet août septembre octobre novembre décembre
lundi mardi mercredi jeudi vendredi samedi dimanche
ayer hoy mañana anoche recientemente enero febrero marzo junio julio agosto septiembre octubre noviembre diciembre
lunes martes miércoles jueves viernes sábado domingo
ontem hoje amanhã anteontem recentemente janeiro fevereiro março junho julho setembro outubro novembro dezembro
segunda terça quarta quinta sexta
ieri oggi domani stasera stamattina gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre
gisteren vandaag vanavond vanochtend vannacht geleden onlangs januari februari maart mei augustus
wczoraj dzisiaj dziś jutro przedwczoraj temu niedawno stycznia lutego marca kwietnia czerwca lipca sierpnia
września października listopada grudnia styczeń luty marzec kwiecień czerwiec lipiec sierpień wrzesień
październik listopad grudzień
""".split())
# months that are words too ("may", "march", "mai"): a month only beside a number or after "in"
_MONTH_WORDS = frozenset("may march mar jan mai maj mayo".split())
_MONTH_BEFORE = frozenset("in since until by early late mid end em en im au w of".split())
# "last week", "this summer", "nächste Woche", "w zeszłym tygodniu"
_RELATIVE = frozenset("""last next this past coming previous letzte letzten letztes nächste nächsten nächstes
diese diesen dieses vorige vorig volgende volgend zeszłym przyszłym esta este ce cette""".split())
_PERIODS = frozenset("""day days week weeks weekend weekends month months year years summer winter spring fall
autumn morning afternoon evening night christmas easter mon tue tues wed thu thurs fri sat sun
woche wochenende monat jahr sommer abend week maand jaar tygodniu miesiącu roku
semana mes mês ano año noche noite tarde soir matin""".split())
# "la semaine dernière", "el mes pasado", "a semana passada", "la settimana scorsa"
_PERIODS_BEFORE = frozenset("semaine mois année an été week-end semana mes mês año ano verano verão settimana mese "
                            "anno".split())
_RELATIVE_AFTER = frozenset("""dernière dernier prochaine prochain passée passé pasada pasado passada passado
scorsa scorso prossima prossimo próxima próximo""".split())
# "for 3 years", "vor drei Tagen", "hace dos años", "há três dias", "il y a deux ans": a span
_SPAN_BEFORE = frozenset("for over vor seit hace há depuis".split())
_NUMBERS = frozenset("""a an one two three four five six seven eight nine ten eleven twelve few couple several many
ein eine einem einer zwei drei vier fünf sechs sieben acht neun zehn un une deux trois quatre cinq six sept huit
neuf dix uno una dos tres cuatro cinco seis siete ocho nueve diez um uma dois duas três quatro cinco seis sete oito
nove dez""".split())
_UNITS = frozenset("""days weeks months years decades tagen wochen monaten jahren tage wochen monate jahre jours
semaines mois ans années días semanas meses años dias anos""".split())
_YEARS = frozenset(str(year) for year in range(1950, 2040))
_STARTS = _RELATIVE | _MONTH_WORDS | _PERIODS_BEFORE | _SPAN_BEFORE | {"y"}  # a phrase's first word
# punctuation as spaces, so that splitting on whitespace gives the words (as fast as splitting)
_SPACES = str.maketrans({c: " " for c in ".,;:!?¿¡()[]{}<>\"'“”‘’«»…—–-/\\|*_~#+=&%$@^`"})


@lru_cache(maxsize=1)
def _asks() -> re.Pattern[str]:
    return re.compile(r"(?:" + "|".join(_ASKS_WHEN.values()) + r")", re.I)


def _asked(query: str) -> str:
    """A question lower-cased, whitespace collapsed, from its first word ("¿Cuándo ...")."""
    return re.sub(r"^\W+", "", " ".join(query.split()).lower())


def asks_when(query: str) -> bool:
    """Whether a question asks when something happened, how long it lasted or how long ago, or
    in which year, month or day ("When did I move?", "How long has Teo had his cats?", "In
    which month did she travel?"); a "when" that joins two clauses ("How old was I when I moved?")
    does not ask it."""
    return bool(_asks().search(_asked(query)))


def when_words(query: str) -> list[str]:
    """The words of a question that ask when ("how long", "what year"), lower-cased."""
    return [w for m in _asks().finditer(_asked(query)) for w in re.findall(r"\w+", m.group())]


def tells_when(text: str) -> bool:
    """Whether a text names a time: a day or period relative to when it was said ("yesterday",
    "last week", "three years ago", "for 4 years"), a month, a year (1950-2039) or a date.
    Message timestamps are the caller's to leave out (every chat line has one). A few
    microseconds a chunk: set operations over its words, a phrase looked at only where its
    first word is."""
    words = text.lower().translate(_SPACES).split()
    if not _TIME_WORDS.isdisjoint(words) or not _YEARS.isdisjoint(words):
        return True
    for start in _STARTS.intersection(words):
        i = -1
        while True:
            try:
                i = words.index(start, i + 1)
            except ValueError:
                break
            if _phrase_at(words, i):
                return True
    return False


def _phrase_at(words: list[str], i: int) -> bool:
    """Whether the phrase starting at words[i] tells a time ("last week", "in May", "for 3 years")."""
    word, after = words[i], words[i + 1] if i + 1 < len(words) else ""
    third = words[i + 2] if i + 2 < len(words) else ""
    if word in _RELATIVE and after in _PERIODS or word in _PERIODS_BEFORE and after in _RELATIVE_AFTER:
        return True
    if word in _MONTH_WORDS and (after.isdigit() or i > 0 and (words[i - 1] in _MONTH_BEFORE or words[i - 1].isdigit())):
        return True
    if word == "y" and after == "a":  # "il y a deux ans"
        word, after, third = "for", third, words[i + 3] if i + 3 < len(words) else ""
    return word in _SPAN_BEFORE and (after in _NUMBERS or after.isdigit()) and third in _UNITS
