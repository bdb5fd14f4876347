"""The names a store knows and the owner's relatives: who a question's words can mean.

The owner (their names, and "I/me/my" in the languages the keyword index knows best), the people
table's names (a whole name, or the one word of it that stands for it alone), and the relatives a
contact's saved name ("Mãe") or bio.md's people section ("- Beatriz Duarte: my sister") says.
Pure functions, no I/O; core/memory/query_understanding.py reads questions with them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

# a word, with a possessive or an elision kept on it ("Ana's", "Maya’s", "l'ami")
WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
POSSESSIVE = re.compile(r"^(?P<base>.+?)(?:['’]s|['’])$")

#: the owner speaking of themselves, in the languages the keyword index knows best
FIRST_PERSON = frozenset("""
i me my mine myself i'm i've i'd i'll im ive
ich mich mir mein meine meinen meinem meiner meines
je j moi mon ma mes
yo mí mi mis conmigo
eu meu minha meus minhas mim comigo
io mio mia miei mie
ik mij mijn
jag mig min mitt mina jeg meg mit mine
ja mnie mój moja moje já mě můj moje
ben benim minä minun aku saya
я меня мне мной мой моя моё мое мои
мене мені мій
""".split())

#: words for the owner's relatives, one relation a line, in the languages the keyword index knows
#: best: a contact saved under one of them ("Mãe", "Mum", "Papa") is the owner's relative of that
#: kind, and a question that says "my mother" or "Ana's mum" means them. Words that are as often
#: something else are left out ("ma", "man", "Frau", "son" and "far" in French and English, "mam",
#: "anne", "baba", "gran", "mano").
KINSHIP = {
    "mother": "mother mum mom mommy mummy mama mamma mamá mami mutter mutti mère maman mãe mamã "
              "madre moeder moder mor matka máma мама мать мати",
    "father": "father dad daddy papa pappa papá papà vater vati père pai papai padre vader ojciec tata "
              "táta папа отец тато",
    "sister": "sister sis schwester sœur soeur irmã hermana sorella zus søster syster siostra sestra сестра",
    "brother": "brother bruder frère frere irmão irmao hermano fratello broer bror brat bratr брат",
    "grandmother": "grandmother grandma granny oma omi großmutter grossmutter mamie avó vovó abuela nonna "
                   "grootmoeder farmor mormor babcia babička бабушка",
    "grandfather": "grandfather grandpa grandad granddad opa großvater grossvater avô vovô abuelo nonno "
                   "grootvader farfar morfar dziadek dědeček дедушка",
    "husband": "husband hubby ehemann marido esposo marito echtgenoot mąż муж",
    "wife": "wife wifey ehefrau épouse mulher esposa moglie echtgenote żona жена",
    "daughter": "daughter tochter fille filha hija figlia dochter córka дочь",
    "partner": "partner boyfriend girlfriend fiancé fiancée fiance fiancee namorado namorada novio novia "
               "fidanzato fidanzata companheiro companheira compagnon compagne lebensgefährte lebensgefährtin",
    "aunt": "aunt auntie tante tia tía zia ciocia тётя тетя",
    "uncle": "uncle onkel oncle tio tío zio wujek дядя",
}
KIN_WORDS: Mapping[str, str] = {word: relation for relation, words in KINSHIP.items() for word in words.split()}



@dataclass(frozen=True)
class KnownNames:
    """The names the store knows, lower-cased: the owner's (whole names and their words) and
    everyone else's (a whole name or one unambiguous word of it, to the person's canonical name)."""

    owner: frozenset[str] = frozenset()
    people: Mapping[str, str] = field(default_factory=dict)
    names_of: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # canonical -> every name
    kin: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # relation -> contacts saved so


def kin_relation(name: str) -> str | None:
    """The relative a contact's saved name says ("Mãe", "Mum ❤️", "Minha mãe": mother), or None:
    every word of it, the owner's "my" aside, a word for that one relation (KINSHIP)."""
    relations = {KIN_WORDS.get(w) for w in _name_words(name) if w not in FIRST_PERSON}
    return next(iter(relations)) if len(relations) == 1 and None not in relations else None


#: the heading of bio.md's section about the people in the owner's life (core/biographer/profile.py)
PEOPLE_SECTION = "people & relationships"
_HEADING = re.compile(r"^##\s+(.+?)\s*$", re.M)


def profile_kin(profile: str, aliases: Mapping[str, str]) -> list[tuple[str, str]]:
    """(relation, canonical name) for each line of bio.md's people section that names one person
    the people table knows (a whole name of theirs) and one relation of the owner's ("- Beatriz
    Duarte: my sister, an architect"); a relation word right after someone's possessive is
    theirs, not the owner's ("Clara's sister"), and an in-law is none of them."""
    headings = list(_HEADING.finditer(profile))
    found: list[tuple[str, str]] = []
    for at, heading in enumerate(headings):
        if heading.group(1).strip().lower() != PEOPLE_SECTION:
            continue
        end = headings[at + 1].start() if at + 1 < len(headings) else len(profile)
        for line in profile[heading.end():end].splitlines():
            words = [w.lower() for w in WORD.findall(line)]
            people = {c for n, c in aliases.items() if _names_in(n, words)}
            relations = {KIN_WORDS[w] for i, w in enumerate(words)
                         if w in KIN_WORDS and not (i and POSSESSIVE.match(words[i - 1]))
                         and words[i + 1:i + 3] != ["in", "law"]}  # a sister-in-law is no sister
            if len(people) == 1 and len(relations) == 1:
                found.append((relations.pop(), people.pop()))
    return found


def _names_in(name: str, words: Sequence[str]) -> bool:
    """Whether the words of `name` occur in `words`, one after another (a possessive counts)."""
    parts = WORD.findall(name.lower())
    bare = [m["base"] if (m := POSSESSIVE.match(w)) else w for w in words]
    return bool(parts) and any(bare[i:i + len(parts)] == parts for i in range(len(bare) - len(parts) + 1))


def kin_at(word: str) -> str | None:
    """The relation a question's word names ("mother", "Mum's", "mãe"), or None."""
    match = POSSESSIVE.match(word)
    return KIN_WORDS.get(match["base"] if match else word) or KIN_WORDS.get(word)


def _name_words(name: str) -> list[str]:
    """The words of a name that can stand for it in a question: letters, two or more of them."""
    return [w for w in WORD.findall(name.lower()) if len(w) >= 2 and not any(c.isdigit() for c in w)]


def known_names(aliases: Mapping[str, str], *, owner_senders: Iterable[str] = (),
                owner_aliases: Iterable[str] = (), profile: str = "") -> KnownNames:
    """KnownNames from the people table (every name, lower-cased, to its canonical name), the
    senders stored as the owner's and BIOGRAPHER_OWNER_ALIASES. A name shared by the owner's
    person is the owner's; a first name two people share stands for neither. The owner's
    relatives: contacts saved under a word for one (kin_relation) and people bio.md's people
    section calls so (profile_kin)."""
    owner_given = {n.strip().lower() for n in (*owner_senders, *owner_aliases) if n.strip()}
    owner_people = {aliases[n] for n in owner_given if n in aliases}
    names_of: dict[str, list[str]] = {}
    for alias, canonical in aliases.items():
        names_of.setdefault(canonical, []).append(alias)
    owner_names = owner_given | {a for p in owner_people for a in names_of.get(p, ())}
    owner = frozenset(owner_names) | frozenset(w for n in owner_names for w in _name_words(n))
    people: dict[str, str] = {}
    shared: set[str] = set()
    for canonical, names in names_of.items():
        if canonical in owner_people:
            continue
        for name in names:
            if name in owner or not _name_words(name):
                continue
            people[name] = canonical
            for word in _standalone_words(name):
                if word in owner:
                    continue
                if people.get(word, canonical) != canonical:
                    shared.add(word)
                people.setdefault(word, canonical)
    for word in shared:
        if word not in aliases:  # a whole name of its own stays
            del people[word]
    kin: dict[str, list[str]] = {}
    for canonical, names in names_of.items():
        for relation in dict.fromkeys(r for n in names if canonical not in owner_people and (r := kin_relation(n))):
            kin.setdefault(relation, []).append(canonical)
    for relation, canonical in profile_kin(profile, {a: c for a, c in aliases.items() if c not in owner_people}):
        if canonical not in kin.setdefault(relation, []):
            kin[relation].append(canonical)
    # the word that stands for a person alone ("Lukas" for Lukas Brandt) names them in passages too
    for word, canonical in people.items():
        if word not in names_of[canonical]:
            names_of[canonical].append(word)
    return KnownNames(owner=owner, people=people,
                      names_of={c: tuple(sorted(n)) for c, n in names_of.items() if c not in owner_people},
                      kin={r: tuple(sorted(c)) for r, c in kin.items()})


#: the small words inside people's names ("Maria da Silva", "Ludwig van Dijk")
_NAME_PARTICLES = frozenset("da de do dos das di del della du van von der den ten ter le la bin ibn al".split())


def _standalone_words(name: str) -> list[str]:
    """The word of a name that stands for it alone in a question: its first (a given name) when
    the rest is a family name, possibly with particles ("Clara Weber", "Maria da Silva"). A
    longer name is as often a sender that is no person ("Berlin Marathon Events", "Run in Lyon"),
    whose single words are places and things the question asks about; it is known whole."""
    words = _name_words(name)
    if len(words) < 2:
        return words
    if len(words) > 2 and any(w not in _NAME_PARTICLES for w in words[1:-1]):
        return []
    return words[:1]
