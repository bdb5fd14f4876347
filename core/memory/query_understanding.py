"""What a question says besides its keywords: who it is about (the owner, people the store
knows), whether it asks for the owner's own words, for a state that may have changed since
("where do I live now?"), or for every instance of something ("list every trip").

Pure functions over the query's text and the names the store knows: no model, no I/O, tens of
microseconds. Search uses the result twice: the keyword half leaves out the owner's names (the
owner is in every conversation, so their name ranks nothing) and keeps the names of people, and
ranking (core/memory/ranking.py) prefers what the question points at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from core.memory.known_names import FIRST_PERSON, POSSESSIVE, WORD, KnownNames, kin_at
from core.memory.time_words import asks_when, when_words
from storage.keyword.languages import FUNCTION_WORDS, UNKNOWN, detect_language
from storage.keyword.questions import question_words
from storage.keyword.terms import tokens

#: of the owner's words for themselves, the ones that are a subject ("what did *I* say")
_FIRST_PERSON_SUBJECTS = frozenset("i ich je j yo eu io ik jag jeg ja já ben minä aku saya я".split())

#: "who" as the subject of a question, in the languages the speech verbs below are in
_WHO = frozenset("who wer qui quién quien quem chi wie кто хто".split())

#: saying or writing something: "what did I say about", "what did Maya tell me"
_SPEECH_VERBS = frozenset("""
say says said saying tell tells told write writes wrote written mention mentions mentioned text texted
message messaged ask asked reply replied answer answered promise promised complain complained
sagen sage sagt sagte gesagt schreiben schrieb geschrieben erzählen erzählt erzählte erwähnt erwähnte
dire dit dis disait écrit écrire raconté mentionné
decir dije dijo dicho escribí escribió escrito conté contó mencioné mencionó
dizer disse dito escrevi escreveu falei falou contei contou
dire detto disse scritto scrissi raccontato
zeggen zei gezegd schreef geschreven vertelde verteld
сказал сказала сказать говорил говорила писал писала написал написала рассказал рассказала
сказав сказала казав казала писав писала
""".split())

# present states: a marker word or phrase, or a question asked in the present tense about where
# or who someone is ("what is X's ..." asks as often about what never changes); per language, so that a word of one
# language ("most", "nu", "ora") does not count in another
_PRESENT_MARKERS = tuple({
    "en": r"now|right now|currently|current|still|these days|nowadays|at the moment|at present|"
          r"any ?more|lately|today",
    "de": r"jetzt|gerade|zurzeit|derzeit|momentan|aktuell|noch|immer noch|heute|heutzutage|mittlerweile|"
          r"inzwischen",
    "fr": r"maintenant|actuellement|toujours|encore|en ce moment|ces temps-ci|ces jours-ci|aujourd'hui|"
          r"désormais|de nos jours",
    "es": r"ahora|actualmente|todavía|aún|hoy en día|estos días|en este momento|ya no|sigue|sigues|sigo",
    "pt": r"agora|atualmente|ainda|hoje em dia|estes dias|no momento|já não|continua",
    "it": r"ora|adesso|attualmente|ancora|oggi|oggigiorno|al momento|in questo periodo",
    "nl": r"nu|momenteel|tegenwoordig|nog steeds|nog altijd|op dit moment|vandaag",
    "sv": r"nu|fortfarande|numera|idag|i dag|för närvarande",
    "da": r"nu|stadig|i dag|for tiden|nuværende",
    "no": r"nå|fortsatt|fremdeles|i dag|for tiden",
    "pl": r"teraz|obecnie|nadal|wciąż|dziś|dzisiaj|aktualnie|ciągle",
    "cs": r"teď|nyní|stále|pořád|dnes|momentálně|aktuálně",
    "tr": r"şimdi|hâlâ|hala|artık|bugün|şu anda|şu an",
    "id": r"sekarang|masih|saat ini|kini",
    "ro": r"acum|încă|în prezent|astăzi",
    "hu": r"most|még mindig|jelenleg|ma",
    "fi": r"nyt|vielä|yhä|nykyään|tällä hetkellä",
    "ca": r"ara|encara|actualment|avui",
    "ru": r"сейчас|теперь|сегодня|всё ещё|все еще|до сих пор|нынче|в последнее время|в данный момент|"
          r"на данный момент|по-прежнему",
    "uk": r"зараз|тепер|сьогодні|досі|нині|все ще|наразі",
}.items())
_PRESENT_TENSE = tuple({
    "en": r"^(?:so |and )?(?:where|who)(?:'s|\s+(?:do|does|is|are|am)\b)",
    "de": r"^(?:wo|wer|was|welche\w*|wie)\s+(?:wohn\w*|lebt?|lebst|arbeit\w*|ist|bin|bist|sind|hat|habe|hast)\b",
    "fr": r"^(?:où|qui|quel\w*|que|qu'est)\s*(?:-ce\s+)?(?:est|suis|sont|habite\w*|vit|vis|travaille\w*)\b",
    "es": r"^(?:dónde|donde|quién|quien|qué|que|cuál|cual)\s+(?:vive\w*|vivo|trabaj\w*|es|soy|eres|está\w*|estoy)\b",
    "pt": r"^(?:onde|quem|qual|que|o que)\s+(?:mora\w*|moro|vive\w*|vivo|trabalh\w*|é|sou|está\w*|estou)\b",
    "it": r"^(?:dove|chi|quale|che|cosa)\s+(?:abit\w*|viv\w*|lavor\w*|è|sono|sta\w*)\b",
    "nl": r"^(?:waar|wie|wat|welke)\s+(?:woon\w*|werk\w*|is|ben|zijn)\b",
    "ru": r"^(?:где|кто|что|какой|какая|какое|какие)\s+(?:(?:я|ты|он|она|мы|они)\s+)?(?:жив\w*|работа\w*)",
}.items())
_EXHAUSTIVE = tuple({
    "en": r"every time|each time|how many times|how often|all the times|list|every|each of|"
          r"all (?:the|of|my|our|his|her|their|those|these|times|places)|name all|whenever",
    "de": r"alle|jedes mal|jedesmal|wie oft|wie viele male|liste\w*|auflisten|sämtliche",
    "fr": r"tous les|toutes les|chaque fois|combien de fois|liste|énumère",
    "es": r"todos los|todas las|cada vez|cuántas veces|lista|enumera",
    "pt": r"todos os|todas as|cada vez|quantas vezes|lista|enumere|enumera",
    "it": r"tutti i|tutte le|tutti gli|ogni volta|quante volte|elenca",
    "nl": r"alle|elke keer|iedere keer|hoe vaak|hoeveel keer|lijst",
    "ru": r"все(?!\s+ещ[её])|каждый раз|сколько раз|перечисли\w*|список",
    "uk": r"усі|всі|кожного разу|скільки разів|перелічи\w*",
    "pl": r"wszystkie|za każdym razem|ile razy|wymień",
}.items())


# the words that join a question about one fact to a clause dating it by another ("How old was I
# *when* I moved?", "How long was I on crutches *after* the surgery?"); "since", "until", "als"
# are left out: as often a preposition before a date or a comparison
_CLAUSE_JOINS = tuple({
    "en": r"when|after|before|while",
    "de": r"wenn|nachdem|bevor|während",
    "fr": r"quand|lorsque|lorsqu'|après|avant|pendant que",
    "es": r"cuando|después de|antes de|mientras",
    "pt": r"quando|depois de|depois que|antes de|antes que|enquanto",
    "it": r"quando|dopo|prima di|prima che|mentre",
    "nl": r"toen|wanneer|nadat|voordat|terwijl",
    "pl": r"kiedy|gdy|zanim|podczas gdy",
}.items())


#: whether the words that ask when ("how long", "what year", "how many years") are out of the
#: keyword half: "long" and "year" matched "long time no see" and "last year" in every chat; the
#: passage that tells when is preferred by ranking.with_when instead (README, "Ranking rules")
WHEN_WORDS_OUT = True


@lru_cache(maxsize=256)
def _alternation(table: tuple[tuple[str, str], ...], languages: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for the entries of `table` in `languages` (tables passed as items, so cached)."""
    parts = [pattern for language, pattern in table if language in languages]
    return re.compile(rf"(?<!\w)(?:{'|'.join(parts)})(?!\w)", re.I) if parts else None


@dataclass(frozen=True)
class QueryIntent:
    owner_named: bool = False  # the question names the owner or says I/me/my
    owner_words: bool = False  # it asks what the owner said or wrote
    people: tuple[str, ...] = ()  # canonical names of the people it names, in order
    people_words: tuple[str, ...] = ()  # of those, the ones whose own words it asks for
    possessed: tuple[str, ...] = ()  # people whose something it asks about ("Maya's dog")
    topic: tuple[str, ...] = ()  # the words it is about: names, question and function words left out
    present: bool = False  # it asks about a state now, which the newest evidence tells best
    exhaustive: bool = False  # it asks for every instance: ranked search cannot hold a whole list
    when: bool = False  # it asks when something happened, or how long (time_words.asks_when)
    many: bool = False  # it asks which things, in the plural ("What books has Maya read?"): a list unsaid
    drop: frozenset[str] = frozenset()  # words the keyword half must not rank by (the owner's names)
    keep: frozenset[str] = frozenset()  # words it must keep (people's names, even a common word)
    names: frozenset[str] = frozenset()  # the words of the people's names in the query
    # where the query names them: (start, end, possessive) in its text with whitespace collapsed
    mentions: tuple[tuple[int, int, bool], ...] = ()
    # where it asks for a whole list ("List every", "How many times"): (start, end), likewise
    listing: tuple[tuple[int, int], ...] = ()

    @property
    def any_rule(self) -> bool:
        return bool(self.owner_words or self.people or self.present)

    @property
    def asks_for_list(self) -> bool:
        """Whether its answer is a list, said ("List every trip") or not ("What pets have I
        had?"): either way ten ranked passages may hold only some of it, and the hits say so."""
        return self.exhaustive or self.many


_NOT_A_NAME = frozenset().union(*FUNCTION_WORDS.values())


def _person_at(words: Sequence[str], i: int, names: KnownNames) -> tuple[str | None, int, bool]:
    """The person named at words[i] (longer names first), how many words the name takes, and
    whether it is possessive ("Maya's", "Mayas")."""
    for size in (4, 3, 2, 1):
        if i + size > len(words):
            continue
        *head, last = words[i:i + size]
        match = POSSESSIVE.match(last)
        candidates = [(" ".join([*head, last]), False)]
        if match:
            candidates.insert(0, (" ".join([*head, match["base"]]), True))
        elif last.endswith("s") and len(last) > 3:
            candidates.append((" ".join([*head, last[:-1]]), True))  # "Anas", "Mayas": no apostrophe
        for text, possessive in candidates:
            if text in names.people:
                return names.people[text], size, possessive
    return None, 1, False


def _owner_at(word: str, names: KnownNames) -> bool:
    match = POSSESSIVE.match(word)
    base = match["base"] if match else word
    return (word in names.owner or base in names.owner
            or (word.endswith("s") and len(word) > 3 and word[:-1] in names.owner))


def understand(query: str, names: KnownNames = KnownNames(), languages: Sequence[str] = ()) -> QueryIntent:
    """What `query` asks, besides its words (see QueryIntent). `languages`: the store's, whose
    markers count when the query's own language cannot be told."""
    text = " ".join(query.split())
    lowered = text.lower()
    found = list(WORD.finditer(text))
    words = [m.group().lower() for m in found]
    language = detect_language(text)
    held = ("en", language) if language not in (UNKNOWN, "en") else ("en",) if language == "en" \
        else ("en", *languages)
    marker, tense, listing = (_alternation(table, held) for table in (_PRESENT_MARKERS, _PRESENT_TENSE, _EXHAUSTIVE))
    # the words of "now", "these days", "list every", "how many times": how it is asked, not what
    filler = {w for pattern in (marker, listing) if pattern is not None
              for m in pattern.finditer(lowered) for w in WORD.findall(m.group())}
    if WHEN_WORDS_OUT:
        filler |= set(when_words(lowered))
    # and as the keyword index splits them: "aujourd'hui" is its terms "aujourd" and "hui"
    filler |= {part for w in filler for part in _index_words(w)}
    owner_named, drop, keep = False, set(filler), set()
    people: list[str] = []
    possessed: list[str] = []
    mentions: list[tuple[int, int, bool]] = []
    subjects: list[tuple[int, str | None]] = []  # (word index, person or None for the owner)
    topic: list[str] = []
    whose: str | None = None  # "owner" or "other" when the word before is someone's ("my", "Clara's")
    kin_word: tuple[int, int] | None = None  # (index, start) of a kin word not someone's mention
    i = 0
    while i < len(words):
        word = words[i]
        before, whose = whose, None
        if _owner_at(word, names):
            owner_named = True
            drop.update(_index_words(word))
            if _possessive(word, names.owner):
                whose = "owner"
            else:
                subjects.append((i, None))
            i += 1
            continue
        if word in FIRST_PERSON:
            owner_named = True
            if word in _FIRST_PERSON_SUBJECTS:
                subjects.append((i, None))
            else:
                whose = "owner"
            i += 1
            continue
        person, size, possessive = (None, 1, False) if word in _NOT_A_NAME and not _capitalised(text, word) \
            else _person_at(words, i, names)
        # a kin word is the owner's relative, never someone else's ("Clara's mother")
        relatives = names.kin.get(kin_at(word) or "", ()) if person is None and before != "other" else ()
        if relatives:
            person, size, possessive = relatives[0], 1, bool(POSSESSIVE.match(word))
        if person is not None:
            for one in relatives or (person,):
                if one not in people:
                    people.append(one)
                if possessive:
                    possessed.append(one)
                else:
                    subjects.append((i, one))
            keep.update(w for part in words[i:i + size] for w in _index_words(part))
            # "my mother", "her mother" or "Ana's mum" is one mention: the semantic half asks about "them"
            owned = before == "owner" or (i > 0 and words[i - 1] in _PRONOUN_POSSESSIVES)
            start = found[i - 1].start() if relatives and owned else found[i].start()
            if not relatives and kin_word is not None and kin_word[0] == i - 1:
                start = kin_word[1]  # "my sister Beatriz", "Ana's sister Beatriz": one person
            mentions.append((start, found[i + size - 1].end(), possessive))
            whose = "other" if possessive else None
            i += size
            continue
        if word not in _NOT_A_NAME and word not in _SPEECH_VERBS and word not in filler:
            topic.append(word)
        kin_word = _apposed_kin(found, words, i, before) if kin_at(word) else None
        i += 1
    owner_words, people_words = _whose_words(words, subjects)
    asked = question_words(held)
    return QueryIntent(
        owner_named=owner_named, owner_words=owner_words, people=tuple(people),
        people_words=people_words, possessed=tuple(dict.fromkeys(possessed)),
        topic=tuple(w for w in dict.fromkeys(map(_uncontracted, topic))
                    if w not in asked and (not w.isdigit() or len(w) == 4)),
        present=any(p is not None and p.search(lowered) for p in (marker, tense)),
        exhaustive=bool(listing and listing.search(lowered)), many=asks_for_many(text), when=asks_when(text),
        drop=frozenset(drop - keep), keep=frozenset(keep), names=frozenset(keep), mentions=tuple(mentions),
        listing=listing_spans(lowered, listing))


# "What activities does Maya do?", "Which kinds of books has Teo read?", "Which board games has Teo
# played?": a plural of up to three words right after the question word, then its verb (English; a
# verb in its place is no plural: "What is", "What does"; "class", "address" are none either);
# "What books, shows and podcasts have ...": plurals in a series, each of up to three words;
# "What are Maya's favourite desserts?", "What are the skills ...": "what are" and a plural;
# "How many tournaments has Teo won?": counting asks for every one, unless it counts time (how
# long: "How many years ago")
_AUXILIARY = r"has|have|had|does|do|did|is|are|was|were"
_ONE_PLURAL = rf"(?:(?!(?:{_AUXILIARY})\b)\w[\w+-]*\s+){{0,2}}(?!(?:{_AUXILIARY})\b)(?!\w*ss\b)\w+s"
_PLURAL = rf"{_ONE_PLURAL}(?:\s*,\s*{_ONE_PLURAL})*(?:\s*,?\s+(?:and|or)\s+{_ONE_PLURAL})?"
_TIME_UNITS = r"times|years|months|weeks|days|hours|minutes|seconds"
_MANY = re.compile(
    rf"^(?:what|which)\s+(?:(?:kinds|types|sorts)\s+of\s+\w+|(?:(?:kind|type|sort)\s+of\s+)?{_PLURAL})\s+(?:{_AUXILIARY})\b"
    rf"|^(?:what|which)\s+are\s+(?:(?:the|some)\s+|\w+'s\s+)(?:\w+\s+){{0,2}}(?!\w*ss\b)\w+s\b"
    rf"|^how\s+many\s+(?!(?:{_TIME_UNITS})\b){_PLURAL}\s+(?:{_AUXILIARY})\b", re.I)


def asks_for_many(query: str) -> bool:
    """Whether a question asks which things, in the plural, without saying it wants them all
    ("What activities does Melanie partake in?"): its evidence is one passage a thing, spread
    over the chats, and ten passages hold a few of them."""
    return bool(_MANY.search(query.strip()))


#: whose: the word a list's phrase may end with ("all my trips") that says what the list is of
_WHOSE = frozenset("my our his her their your mes mis meus minhas meine unsere".split())


def listing_spans(text: str, listing: re.Pattern[str] | None) -> tuple[tuple[int, int], ...]:
    """Where `text` asks for every instance, a possessive that ends the phrase left in ("List
    all my trips": "List all "): what one instance says is the rest."""
    if listing is None:
        return ()
    spans = []
    for match in listing.finditer(text):
        end = match.end()
        last = list(WORD.finditer(match.group()))
        if last and last[-1].group() in _WHOSE:
            end = match.start() + last[-1].start()
        spans.append((match.start(), end))
    return tuple(spans)


#: whose a kin word before a name may be, besides the owner's ("her sister Beatriz")
_PRONOUN_POSSESSIVES = frozenset("her his their our".split())


def _apposed_kin(found: Sequence[re.Match[str]], words: Sequence[str], i: int, before: str | None) -> tuple[int, int] | None:
    """(index, start) of the kin word at `i` with the owner's or a pronoun's possessive before it
    ("my sister", "Ana's sister", "her sister"), for a name that may follow it; none after
    someone else's possessive, which is a mention of its own ("Clara's sister Anna")."""
    if before == "other":
        return None
    owned = before == "owner" or (i > 0 and words[i - 1] in _PRONOUN_POSSESSIVES)
    return i, found[i - 1].start() if owned else found[i].start()


def keyword_words(intent: QueryIntent, *, names_as_keywords: bool) -> tuple[frozenset[str], frozenset[str]]:
    """(words the keyword half leaves out, words it keeps) for a question. With
    `names_as_keywords` off, the names of the people it asks about are left out too when it
    says something else: their every chat line starts with their name, so in short chat windows
    bm25 ranks by the name and not by what is asked; the person rules in ranking.py prefer their
    passages instead. A question of names alone keeps them."""
    if names_as_keywords or not intent.people or not intent.topic:
        return intent.drop, intent.keep
    return intent.drop | intent.names, frozenset()


def _whose_words(words: Sequence[str], subjects: Sequence[tuple[int, str | None]]) -> tuple[bool, tuple[str, ...]]:
    """Whether the question asks for the owner's words, and whose else: the subject of its first
    verb of saying, the nearest before it ("what did Maya say"), else the first after it ("Was
    sagte Teo")."""
    verb = next((at for at, word in enumerate(words) if word in _SPEECH_VERBS), None)
    if verb is None or not subjects:
        return False, ()
    if verb > 0 and words[verb - 1] in _WHO:
        return False, ()  # "Who told Ana to go?": whoever it was, the one told is no sayer
    before = [who for at, who in subjects if at < verb]
    after = [who for at, who in subjects if at > verb]
    who = before[-1] if before else after[0]
    return (True, ()) if who is None else (False, (who,))


def _index_words(word: str) -> list[str]:
    """A query word as the keyword index splits it ("maya's": maya), its one-letter bits left out."""
    return [w for w in tokens(word) if len(w) > 1]


#: an English word's contracted ending: "who's", "what're", "grandmother's"
_CONTRACTED = re.compile(r"['’](?:s|re|ve|ll|d|m)$")


def _uncontracted(word: str) -> str:
    """A topic word without its contracted ending: "who's" is the question word "who", and
    "grandmother's" is about a grandmother."""
    return _CONTRACTED.sub("", word) or word


def _possessive(word: str, names: Iterable[str]) -> bool:
    return bool(POSSESSIVE.match(word)) or (word not in names and word.endswith("s"))


def _capitalised(text: str, word: str) -> bool:
    """Whether `word` is written with a capital somewhere in `text` (a name that is also a common
    word, "May", "Will", counts as a name only then)."""
    return bool(re.search(rf"(?<!\w){re.escape(word[:1].upper() + word[1:])}(?!\w)", text))


#: what stands for a person the semantic half should not be drawn to: (subject, possessive)
THIRD_PERSON = ("they", "their")


def semantic_query(query: str, intent: QueryIntent, names: KnownNames) -> str:
    """The question as the semantic half embeds it: the owner as "I" (first_person) and, when it
    asks about something besides the people it names, each of them as "they"/"their" ("What is
    Clara's job?" -> "What is their job?"). A chat line starts with its sender's name, so a short
    window of someone's small talk embeds close to their name, nearer than the line that answers;
    the person rules in ranking.py prefer their passages instead, and the keyword half keeps the
    names. `intent`: understand(query, names)."""
    text = " ".join(query.split())
    if intent.topic and intent.mentions:
        out, at = [], 0
        for start, end, possessive in intent.mentions:
            out.append(text[at:start] + THIRD_PERSON[possessive])
            at = end
        text = "".join(out) + text[at:]
        return _agreeing(first_person(_one_instance(text, _shifted(intent.listing, intent.mentions)), names))
    return first_person(_one_instance(text, intent.listing), names)


def _shifted(spans: Sequence[tuple[int, int]], mentions: Sequence[tuple[int, int, bool]]) -> list[tuple[int, int]]:
    """`spans` of the query's text where its mentions were put as "they"/"their" before them."""
    out = []
    for start, end in spans:
        shift = sum(len(THIRD_PERSON[p]) - (e - s) for s, e, p in mentions if e <= start)
        out.append((start + shift, end + shift))
    return out


def _one_instance(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """A question for a whole list as one instance of it would answer it: its listing words left
    out ("List every city I have lived in" -> "city I have lived in"). No passage says "list
    every": those words drew the question's meaning away from every instance."""
    if not spans:
        return text
    out, at = [], 0
    for start, end in spans:
        out.append(text[at:start])
        at = end
    rest = " ".join(("".join(out) + text[at:]).split())
    return rest if any(c.isalnum() for c in rest) else text


def first_person(query: str, names: KnownNames) -> str:
    """The question as the owner would ask it: their names become "I", "my" where possessive
    ("Where does Inês live?" -> "Where do I live?", "Inês's mother" -> "my mother"). For the
    semantic half: an embedding of the owner's name is drawn to every chat line that starts with
    it, which in short chat windows outweighs what the question asks."""
    out, at, last = [], 0, ""
    for match in WORD.finditer(query):
        word = match.group().lower()
        if not _owner_at(word, names):
            continue
        mine = "my" if _possessive(word, names.owner) else "I"
        between = query[at:match.start()]
        if not (last == mine and not between.strip()):
            out.append(between + mine)
        last, at = mine, match.end()
    return _agreeing("".join(out) + query[at:]) if out else query


# English verbs agree with the "I" and "they" put for people's names: "Where does Inês live?"
# embeds as "Where do I live?", "Is Lukas still at Siemens?" as "Are they still at Siemens?" (the
# question as it would be asked of them), and where the name was an object, after a preposition
# or a verb, it is "me"/"them" ("Who went with me?", "What did I get them for Christmas?"). Only
# pairs nobody writes are changed, so a question's own "I" and "they" stay as they were.
_AGREEING = {  # the pronoun: the verb before or after it, in the third person singular -> its own
    "i": {"does": "do", "doesn't": "don't", "has": "have", "hasn't": "haven't", "is": "am"},
    "they": {"does": "do", "doesn't": "don't", "has": "have", "hasn't": "haven't", "is": "are",
             "isn't": "aren't", "was": "were", "wasn't": "weren't"},
}
_OBJECT = {"i": "me", "they": "them"}
_PREPOSITIONS = "to with for about from at of by than like without"
#: the verbs a question puts after its question word ("When *did* I ..."): then "when" asks, it
#: joins nothing; and before a pronoun that stays its subject ("Was I at the party?")
_AUXILIARIES = frozenset("""am is are was were be been do does did have has had will would can could shall
                            should may might must doesn't didn't hasn't haven't isn't wasn't aren't weren't""".split())
_VERBS = "|".join(sorted({re.escape(v) for table in _AGREEING.values() for v in table}, key=len, reverse=True))
_VERB_BEFORE = re.compile(rf"\b({_VERBS})(\s+)(I|they)\b", re.I)
_VERB_AFTER = re.compile(rf"\b(I|they)(\s+)({_VERBS})\b", re.I)
# the pronoun as an object: after a preposition, or after any other word but an auxiliary when a
# preposition or the end of the question follows ("given I?", "get they for"); "like" after it is
# as often its verb ("the films they like"), so only before it is it a preposition
_PREPOSITION = "|".join(_PREPOSITIONS.split())
_AUXILIARY_WORD = "|".join(re.escape(w) for w in sorted(_AUXILIARIES, key=len, reverse=True))
_OBJECT_AFTER = re.compile(rf"\b({_PREPOSITION})(\s+)(I|they)\b(?!\s+(?:{_AUXILIARY_WORD})\b)", re.I)
_PREPOSITION_AFTER = "|".join(p for p in _PREPOSITIONS.split() if p != "like")
_OBJECT_BEFORE = re.compile(rf"\b([\w']+)(\s+)(I|they)(?=\s*(?:[?.!,;]|$)|\s+(?:{_PREPOSITION_AFTER})\b)", re.I)


def _agreeing(text: str) -> str:
    """`text` with the verbs around "I" and "they" agreeing with them, and either as an object
    "me"/"them" (see _AGREEING)."""
    def verb(word: str, pronoun: str) -> str:
        own = _AGREEING[pronoun.lower()].get(word.lower(), word)
        return own[0].upper() + own[1:] if word[0].isupper() else own

    def pronoun(word: str) -> str:
        return "I" if word.lower() == "i" else word

    text = _VERB_BEFORE.sub(lambda m: verb(m[1], m[3]) + m[2] + pronoun(m[3]), text)
    text = _VERB_AFTER.sub(lambda m: pronoun(m[1]) + m[2] + verb(m[3], m[1]), text)
    text = _OBJECT_AFTER.sub(lambda m: m[1] + m[2] + _OBJECT[m[3].lower()], text)
    return _OBJECT_BEFORE.sub(lambda m: m[0] if m[1].lower() in _AUXILIARIES or m[1].lower() in ("and", "or")
                              else m[1] + m[2] + _OBJECT[m[3].lower()], text)


def clauses(query: str, languages: Sequence[str] = ()) -> tuple[str, ...]:
    """The two facts a question combines, when it joins them with a time clause ("How old was I
    when I moved to Berlin?": "How old was I", "I moved to Berlin?"): split at the first joining
    word with a word about something on each side (at the start only before a comma, "When Tomás
    was born, where did I live?": "When did I move?" asks one thing); else none. The evidence of each fact is its own passage, which the whole question's
    meaning, halfway between them, ranks below passages that have a little of both."""
    text = " ".join(query.split())
    language = detect_language(text)
    held = ("en", language) if language not in (UNKNOWN, "en") else ("en",) if language == "en" \
        else ("en", *languages)
    join = _alternation(_CLAUSE_JOINS, held)
    if join is None:
        return ()
    asked = question_words(held)
    for match in join.finditer(text):
        if match.start() == 0 and "," in text and not _asks_when(text[match.end():]):
            # "When Tomás was born, where did I live?" (not "When did I meet X, Y and Z?")
            first, second = text[match.end():text.index(",")].strip(), text[text.index(",") + 1:].strip()
        else:
            first, second = text[:match.start()].strip(), text[match.end():].strip()
        if _about_something(first, asked) and _about_something(second, asked):
            return first, second
    return ()


def _asks_when(rest: str) -> bool:
    first = WORD.search(rest)
    return first is not None and first.group().lower() in _AUXILIARIES


#: what "how" asks of the other clause ("How long after we met did we move in?"): no fact of its own
_HOW_MUCH = frozenset("long much many often far soon".split())


def _about_something(text: str, asked: frozenset[str]) -> bool:
    """Whether `text` holds a word that is neither a function word nor a question's."""
    return any(w not in _NOT_A_NAME and w not in asked and w not in FIRST_PERSON and w not in _HOW_MUCH
               for w in (m.group().lower() for m in WORD.finditer(text)))
