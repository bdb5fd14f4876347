"""Hybrid ranking as pure functions: fusion of the keyword and semantic lists,
boosts, and adjacent hits grouped into passages. Tuned on LoCoMo (README, "Benchmarks") with
bench/locomo_tune.py, which runs these same functions over cached candidate lists."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Protocol

from core.memory import small_talk
from core.memory.chunking import MAX_CHARS
from core.memory.query_understanding import QueryIntent
from core.memory.time_words import tells_when
from core.times import parse_utc


class Row(Protocol):
    """What ranking needs of a chunk (storage.chunks.StoredChunk has it)."""

    id: int
    document_id: int
    char_start: int
    char_end: int
    text: str
    time_start: str | None
    time_end: str | None
    small_talk: float  # its share of lines its document says again and again (core/memory/small_talk.py)


# Hybrid ranking, tuned on LoCoMo (see README, "Benchmarks"): each list's scores min-max
# normalised and mixed (keyword search is the stronger list with a small English model), a boost
# for chunks dated within a period the query names, a smaller one for chunks whose neighbour
# ranks well (conversations spread a topic over consecutive chunks), and adjacent hits returned
# as one passage within a character budget of `limit` chunks.
KEYWORD_WEIGHT = 0.6
DATE_BOOST = 0.4
DATE_SLACK = timedelta(days=1)
# a chunk dated in a month the query names without a year ("camping in June"), in any year
MONTH_BOOST = 0.2
NEIGHBOUR_BOOST = 0.2
# What the question points at (core/memory/query_understanding.py), tuned on the life archive's
# tuning half and LoCoMo conversations 0-4 with bench/rules_tune.py (README, "Ranking rules"); since
# the semantic half no longer embeds people's names (semantic_query), it is these rules that
# prefer the person's passages: PERSON 0.3 / NEAR 0.2 measured best on the tuning halves
PERSON_BOOST = 0.3  # the passage has the person's own messages or names them
NEAR_BOOST = 0.2  # ... and a line of theirs, or naming them, holds a word the question is about
SAID_BOOST = 0.2  # share of the passage's lines written by the one whose words are asked for
RECENCY_WEIGHT = 0.2  # present states: the newest candidate scores up to this share more
# a question naming a person also ranks that person's own chunks among themselves (search.py's
# person round): their one informative line, lost among everyone's windows, leads there
PERSON_ROUND_WEIGHT = 0.5
# a question that combines two facts: each fact's own semantic ranking (with_clauses)
CLAUSE_WEIGHT = 0.3
# a question for someone's age: the passages that tell a birth (core/memory/ages.py, with_births)
BIRTH_WEIGHT = 0.8
# a question about meeting someone: the oldest passages naming them (core/memory/meetings.py, with_meetings)
MEETING_WEIGHT = 0.5
# the multilingual space's list (core/memory/multilingual.py: the multilingual model's nearest
# among the chunks not in English), added to the fused score with this weight; measured on the
# life archive's two halves and LoCoMo conversations 0-4 with bench/second_space.py (README,
# "Other languages")
MULTILINGUAL_WEIGHT = 0.4
# the translated keyword list (core/memory/translation.py: the question's words in the store's
# other languages, searched among the chunks not told in the question's language), added like
# the multilingual list; measured on the three tuning archives (README, "Words in the store's
# other languages")
TRANSLATED_WEIGHT = 0.8
# a question for every instance (QueryIntent.exhaustive): its instances are told alike (the same
# kind of reminder mail, the same way of writing home), so the passages nearest in meaning to its
# best few are ranked as one more list (search.py's example round, with_examples): an instance
# that shares no word with the question and is far from its meaning is near the other instances
LIST_EXAMPLES = 3  # the best passages whose mean meaning is the example round's query
EXAMPLE_WEIGHT = 0.4
# a question that asks when (QueryIntent.when): a passage that tells when ("yesterday", "last
# week", "in May": core/memory/time_words.py) scores this share more (with_when)
WHEN_WEIGHT = 0.4


_MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split())}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_DATE_PATTERNS = (
    re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b"),
    # "3 June, 2023", "December 1,2023" (a comma without its space too)
    re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}(?:,\s*|\s+){_YEAR}\b", re.I),
    re.compile(rf"\b{_MONTH}\s+{_DAY}(?:,\s*|\s+){_YEAR}\b", re.I),
    re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I),
    re.compile(rf"\b(?:in|of|during|since|from|by)\s+{_YEAR}\b", re.I),
)


def query_dates(query: str) -> list[tuple[date, date]]:
    """Calendar periods a query names explicitly ("3 June, 2023", "October 13, 2023", "August 2023",
    "in 2022", "2023-06-03"), as inclusive (first day, last day). Relative dates are not guessed."""
    found: list[tuple[date, date]] = []
    taken: list[tuple[int, int]] = []
    for pattern in _DATE_PATTERNS:
        for m in pattern.finditer(query):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            parts = m.groupdict()
            year = int(parts["year"])
            month_text = parts.get("month")
            month = (int(month_text) if month_text and month_text.isdigit()
                     else _MONTHS.get((month_text or "").lower()))
            try:
                if parts.get("day"):
                    first = last = date(year, month, int(parts["day"]))
                elif month:
                    first = date(year, month, 1)
                    last = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
                else:
                    first, last = date(year, 1, 1), date(year, 12, 31)
            except (TypeError, ValueError):
                continue
            taken.append((m.start(), m.end()))
            found.append((first, last))
    return found


# a month named without a year ("camping in June", "in the second week of November"): "May" only
# capitalised and after a word that puts a time after it, being a verb too
_MONTH_ALONE = re.compile(r"(?<![\w-])(?P<before>(?:in|by|of|early|late|mid|until|since|during) )?"
                          r"(?P<month>January|February|March|April|May|June|July|August|September|October|"
                          r"November|December)(?![\w-])")


def query_months(query: str) -> frozenset[int]:
    """The months a query names without a year ("When did Ana go camping in June?"), as 1-12;
    a month inside a date query_dates reads ("June 2023", "3 June, 2023") is that date's."""
    taken = [m.span() for pattern in _DATE_PATTERNS for m in pattern.finditer(query)]
    return frozenset(_MONTHS[m["month"].lower()] for m in _MONTH_ALONE.finditer(query)
                     if (m["before"] or m["month"] != "May") and not any(s <= m.start("month") < e for s, e in taken))


def _in_month(row: Row, months: frozenset[int]) -> bool:
    """Whether a chunk's time (first to last message, a day's slack) touches one of `months`, any year."""
    start, end = parse_utc(row.time_start), parse_utc(row.time_end or row.time_start)
    if start is None or end is None:
        return False
    first, last = start.date() - DATE_SLACK, end.date() + DATE_SLACK
    if (last - first).days > 62:
        return False  # a span of months is dated by none of them
    return first.month in months or last.month in months


def _normalised(ranked: Sequence[tuple[int, float]]) -> dict[int, float]:
    """Scores mapped to [0, 1] within their list (best 1, worst 0). A list with nothing to tell
    its members apart (one hit, or every score the same) holds only its best: 1.0 each, where
    min-max would have made them its worst ("Where is Ana's office?" has one passage with the
    word "office", and it scored nothing for it)."""
    if not ranked:
        return {}
    values = [s for _, s in ranked]
    lo, span = min(values), max(values) - min(values)
    if span <= 0:
        return {cid: 1.0 for cid, _ in ranked}
    return {cid: (s - lo) / span for cid, s in ranked}


def fuse_scores(keyword: list[tuple[int, float]], semantic: list[tuple[int, float]], *,
                keyword_weight: float = KEYWORD_WEIGHT, multilingual: Sequence[tuple[int, float]] = (),
                multilingual_weight: float | None = None, translated: Sequence[tuple[int, float]] = (),
                translated_weight: float | None = None) -> dict[int, float]:
    """A weighted sum of the two lists' normalised scores (measured better than RRF here), plus
    `multilingual_weight` times the multilingual space's (a third list, over the chunks not in
    English: the English model's half scores them close to at random, so this list adds to what
    they have rather than sharing the semantic weight), and `translated_weight` times the
    translated keyword list's (the question's words in the store's other languages), which
    adds for the same reason."""
    a, b = _normalised(keyword), _normalised(semantic)
    out = {cid: keyword_weight * a.get(cid, 0.0) + (1 - keyword_weight) * b.get(cid, 0.0)
           for cid in dict.fromkeys([*a, *b])}
    # a list of one (a space of one vector, or a filter keeping one) is its best, not its worst
    for extra, weight in ((multilingual, MULTILINGUAL_WEIGHT if multilingual_weight is None else multilingual_weight),
                          (translated, TRANSLATED_WEIGHT if translated_weight is None else translated_weight)):
        for cid, score in _normalised(extra).items():
            out[cid] = out.get(cid, 0.0) + weight * score
    return out


MIN_SHARE = 0.01  # the least a keyword match is shown as


def relevance(keyword: Sequence[tuple[int, float]], semantic: Sequence[tuple[int, float]], *,
              keyword_weight: float = KEYWORD_WEIGHT) -> dict[int, float]:
    """The score shown with each result, in [0, 1], and what it means: the passage's keyword score
    as a share of the best keyword match for this query (bm25, higher better), and the cosine
    similarity of its meaning to the query's, weighted as fusion weighs them. A passage found by one
    half only is scored by that half. Ranking itself uses `rank` (each list min-max normalised,
    plus the date and neighbour boosts), whose numbers mean nothing outside one query: a hit
    scored 0.0000 or 1.4 there told a reader nothing. A passage only the translated list found is
    shown by what the two halves give it: the best translated match is the best of that list
    whatever it matched (a rare sense of a word), and showing it as 1.0 made unanswerable
    questions look answered (README, "Words in the store's other languages")."""
    best = max((s for _, s in keyword), default=0.0)
    # a word that is in most passages weighs almost nothing in bm25, but a match is still a match
    share = {cid: max(s / best, MIN_SHARE) for cid, s in keyword} if best > 0 else {}
    meaning = {cid: min(max(s, 0.0), 1.0) for cid, s in semantic}
    if not meaning:
        return share
    if not share:
        return meaning
    return {cid: keyword_weight * share.get(cid, 0.0) + (1 - keyword_weight) * meaning.get(cid, 0.0)
            for cid in dict.fromkeys([*share, *meaning])}


# a conversation chunk's line, as core/memory/chunking.py renders a message
_LINE = re.compile(r"^\[[^\]\n]*\] (?P<sender>[^:\n]{1,120}): (?P<text>.*)$", re.M)


def _within(row: Row, periods: list[tuple[date, date]]) -> bool:
    start, end = parse_utc(row.time_start), parse_utc(row.time_end or row.time_start)
    if start is None or end is None:
        return False
    return any(start.date() <= last + DATE_SLACK and end.date() >= first - DATE_SLACK
               for first, last in periods)


def _adjacent(rows: dict[int, Row]) -> dict[int, list[int]]:
    """Chunks among `rows` that follow one another in their document (touching or overlapping)."""
    out: dict[int, list[int]] = {}
    ordered = sorted(rows.values(), key=lambda r: (r.document_id, r.char_start))
    for a, b in zip(ordered, ordered[1:]):
        if a.document_id == b.document_id and b.char_start <= a.char_end + 2 and b.char_end > a.char_end:
            out.setdefault(a.id, []).append(b.id)
            out.setdefault(b.id, []).append(a.id)
    return out


def said_lines(text: str) -> frozenset[str]:
    """What a chunk says, line by line, without when and by whom (lower-cased, spaces collapsed):
    the same small talk on another day, or a mail quoted again, says nothing new."""
    return frozenset(small_talk.lines_said(text))


def _passages(order: list[int], rows: dict[int, Row],
              neighbours: dict[int, list[int]], *, limit: int, budget: int) -> list[list[int]]:
    """Best-first groups of chunk ids: a chunk next to one already taken joins its group, so one
    result shows both; a chunk whose every line was shown already (said_lines) takes no place of
    its own, so ten results hold ten pieces of evidence; at most `limit` groups and `budget`
    characters in all."""
    groups: list[list[int]] = []
    group_of: dict[int, list[int]] = {}
    shown: set[str] = set()
    used = 0
    for cid in order:
        if cid not in rows:
            continue
        home = next((group_of[n] for n in neighbours.get(cid, ()) if n in group_of), None)
        if home is None and len(groups) >= limit:
            break
        said = said_lines(rows[cid].text)
        if home is None and said and said <= shown:
            continue
        size = len(rows[cid].text.strip())
        if used + size > budget and (groups or home is not None):
            continue
        used += size
        if home is None:
            home = []
            groups.append(home)
        home.append(cid)
        group_of[cid] = home
        shown |= said
    return groups





def message_lines(text: str) -> list[tuple[str, str]]:
    """(sender lower-cased, text) of each message line of a chunk; none for prose."""
    return [(m["sender"].lower(), m["text"]) for m in _LINE.finditer(text)]


def said_share(lines: Sequence[tuple[str, str]], names: frozenset[str] | set[str]) -> float:
    """The share of the lines whose sender is one of `names` (lower-cased)."""
    return sum(sender in names for sender, _ in lines) / len(lines) if lines else 0.0


def _word_pattern(words: Sequence[str]) -> re.Pattern[str] | None:
    """Any of `words` at the start of a word, endings aside ("dogs" for "dog", "lived" for
    "lives"): a few letters shorter than the word, never under three."""
    stems = sorted({w[:max(3, len(w) - 2)] if len(w) > 4 else w for w in words if len(w) >= 2}, key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, stems)) + ")", re.I) if stems else None


def person_evidence(text: str, lines: Sequence[tuple[str, str]], names: Sequence[str],
                    topic: re.Pattern[str] | None) -> tuple[bool, bool]:
    """(whether a passage has the person's own messages or names them; whether one of their
    lines, or a line naming them, holds a topic word: "Maya's dog" near Maya)."""
    named = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, names)) + r")(?!\w)", re.I) if names else None
    if named is None:
        return False, False
    own = set(names)
    theirs = [t for sender, t in lines if sender in own or named.search(t)]
    if not lines:  # prose: sentences naming them
        theirs = [s for s in re.split(r"(?<=[.!?\n])\s+", text) if named.search(s)]
    present = bool(theirs) or bool(named.search(text))
    return present, bool(topic is not None and any(topic.search(t) for t in theirs))


def intent_boosts(intent: QueryIntent, scores: Mapping[int, float], rows: Mapping[int, Row], *,
                  owner: frozenset[str], names_of: Mapping[str, Sequence[str]]) -> dict[int, float]:
    """What the question points at, added to each candidate's fused score: the people it names
    (their messages and passages naming them first, their lines holding its topic most), the
    words it asks for (the share of lines by whoever said them), and for a present state the
    newest evidence (scaled by the candidate's score, so an old strong match stays reachable)."""
    out = dict(scores)
    if not intent.any_rule:
        return out
    topic = _word_pattern(intent.topic)
    speakers: set[str] = set(owner) if intent.owner_words else set()
    for person in intent.people_words:
        speakers.update(n.lower() for n in names_of.get(person, (person,)))
    newest = _newness(scores, rows) if intent.present else {}
    for cid, score in scores.items():
        row = rows.get(cid)
        if row is None:
            continue
        lines = message_lines(row.text) if intent.people or speakers else []
        extra = 0.0
        if intent.people:
            found = [person_evidence(row.text, lines, [n.lower() for n in names_of.get(p, (p,))], topic)
                     for p in intent.people]
            extra += PERSON_BOOST * max(f[0] for f in found) + NEAR_BOOST * max(f[1] for f in found)
        if speakers:
            extra += SAID_BOOST * said_share(lines, speakers)
        out[cid] = score + extra + RECENCY_WEIGHT * newest.get(cid, 0.0) * score
    return out


def said_text(text: str) -> str:
    """What a chunk says without its messages' timestamps and senders (its lines' text), or its
    prose as it is."""
    lines = message_lines(text)
    return "\n".join(t for _, t in lines) if lines else text


def with_when(scores: Mapping[int, float], rows: Mapping[int, Row], *, weight: float | None = None) -> dict[int, float]:
    """For a question that asks when: each candidate whose text tells when (time_words.tells_when,
    its timestamps and senders aside) scores `weight` (WHEN_WEIGHT) times its score more, so a
    weak match stays weak. "When did Teo get his cats?" is answered by "I've had them for 3
    years now", which shares one word with it, among windows about the same cats that tell
    no time."""
    weight = WHEN_WEIGHT if weight is None else weight
    out = dict(scores)
    if weight <= 0:
        return out
    for cid, score in scores.items():
        row = rows.get(cid)
        if score > 0 and row is not None and tells_when(said_text(row.text)):
            out[cid] = score + weight * score
    return out


def _newness(scores: Mapping[int, float], rows: Mapping[int, Row]) -> dict[int, float]:
    """Each dated candidate's place between the oldest (0) and the newest (1) of the candidates."""
    times = {cid: t.timestamp() for cid in scores if (row := rows.get(cid)) is not None
             and (t := parse_utc(row.time_end or row.time_start)) is not None}
    if len(times) < 2:
        return {}
    lo, hi = min(times.values()), max(times.values())
    return {cid: (t - lo) / (hi - lo) for cid, t in times.items()} if hi > lo else {}


PersonRound = tuple[Sequence[tuple[int, float]], Sequence[tuple[int, float]]]  # (keyword, semantic)


def with_person_round(scores: Mapping[int, float], rounds: Sequence[PersonRound], *,
                      weight: float | None = None) -> dict[int, float]:
    """`scores` plus `weight` times each chunk's fused score within a person's own round (their
    keyword and semantic lists, fused as the whole store's are; the best over the people named):
    ranked among the person's chunks only, their line that answers is near the top of a short
    list, where among everyone's windows of small talk it was not. A chunk only a round found
    enters with that alone."""
    weight = PERSON_ROUND_WEIGHT if weight is None else weight
    out = dict(scores)
    best: dict[int, float] = {}
    for keyword, semantic in rounds:
        # a round with one list only (no word of the question beside the names) is that list; a
        # list of one is its best (_normalised)
        share = KEYWORD_WEIGHT if keyword and semantic else float(bool(keyword))
        a, b = _normalised(keyword), _normalised(semantic)
        for cid in dict.fromkeys([*a, *b]):
            score = share * a.get(cid, 0.0) + (1 - share) * b.get(cid, 0.0)
            best[cid] = max(best.get(cid, 0.0), score)
    for cid, score in best.items():
        out[cid] = out.get(cid, 0.0) + weight * score
    return out


def with_clauses(scores: Mapping[int, float], clause_lists: Sequence[Sequence[tuple[int, float]]], *,
                 weight: float | None = None) -> dict[int, float]:
    """`scores` plus `weight` times each chunk's normalised score in the semantic ranking of each
    fact a question combines (query_understanding.clauses; the best over them): "How old was I
    when I moved to Berlin?" has its evidence in two passages, a CV's "Born 12 May 1994" and a
    journal's "Moved to Berlin today", and the whole question's meaning, between the two, ranks
    passages with a little of each above the one with the birthday. A chunk only a clause found
    enters with that alone."""
    return with_person_round(scores, [((), ranked) for ranked in clause_lists],
                             weight=CLAUSE_WEIGHT if weight is None else weight)


def with_births(scores: Mapping[int, float], births: Sequence[tuple[int, float]], *,
                weight: float | None = None) -> dict[int, float]:
    """`scores` plus `weight` (BIRTH_WEIGHT unless given) times each chunk's normalised score
    among the passages that tell a birth (ages.birth_ranked), for a question about someone's
    age: "How old was I when I moved?" is a CV's "Born 12 May 1994" and the move's own passage,
    and nothing in the question's words or meaning leads to the first. A chunk only this list
    found enters with that alone."""
    return with_person_round(scores, [((), births)] if births else [],
                             weight=BIRTH_WEIGHT if weight is None else weight)


def with_meetings(scores: Mapping[int, float], meetings: Sequence[tuple[int, float]], *,
                  weight: float | None = None) -> dict[int, float]:
    """`scores` plus `weight` (MEETING_WEIGHT unless given) times each chunk's normalised score
    among the oldest passages naming the person a question asks about meeting (search.py's
    meeting round, the oldest scoring most): "When did I meet Lukas?" is the journal's "Met a
    tall guy called Lukas", the first time the name is written, among two years of his chats."""
    return with_person_round(scores, [((), meetings)] if meetings else [],
                             weight=MEETING_WEIGHT if weight is None else weight)


def example_seeds(groups: Sequence[Sequence[int]], count: int | None = None) -> list[int]:
    """The chunks that stand for the best `count` passages (LIST_EXAMPLES unless given): each
    passage's first, the one it was ranked by."""
    count = LIST_EXAMPLES if count is None else count
    return [group[0] for group in groups[:count] if group]


def example_query(vectors: Sequence[Sequence[float]]) -> list[float] | None:
    """What the examples have in common, as a query: the mean of their (unit) vectors, made unit
    again; none for no examples, or examples whose mean is nothing (opposite vectors)."""
    if not vectors:
        return None
    dim = len(vectors[0])
    units = []
    for vector in vectors:
        length = sum(x * x for x in vector) ** 0.5
        if length > 0:
            units.append([x / length for x in vector])
    mean = [sum(u[i] for u in units) / len(units) for i in range(dim)] if units else []
    length = sum(x * x for x in mean) ** 0.5
    return [x / length for x in mean] if length > 1e-9 else None


def with_examples(scores: Mapping[int, float], ranked: Sequence[tuple[int, float]], *,
                  weight: float | None = None) -> dict[int, float]:
    """`scores` plus `weight` (EXAMPLE_WEIGHT unless given) times each chunk's normalised score in
    the example round (the chunks nearest to the mean of a list question's best passages): "How
    many times did I go to the dentist?" finds two reminder mails by its meaning, and the third,
    in German, is nearer to them than to the question. A chunk only the round found enters with
    that alone."""
    return with_person_round(scores, [((), ranked)] if ranked else [],
                             weight=EXAMPLE_WEIGHT if weight is None else weight)


def rank(query: str, keyword: Sequence[tuple[int, float]], semantic: Sequence[tuple[int, float]],
         rows: Mapping[int, Row], *, limit: int, intent: QueryIntent = QueryIntent(),
         owner: frozenset[str] = frozenset(),
         names_of: Mapping[str, Sequence[str]] | None = None,
         person_rounds: Sequence[PersonRound] = (),
         clause_rounds: Sequence[Sequence[tuple[int, float]]] = (),
         multilingual: Sequence[tuple[int, float]] = (),
         translated: Sequence[tuple[int, float]] = (),
         examples: Sequence[tuple[int, float]] = (),
         births: Sequence[tuple[int, float]] = (),
         meetings: Sequence[tuple[int, float]] = (),
         month_boost: float | None = None) -> tuple[list[list[int]], dict[int, float]]:
    """Hybrid ranking: groups of adjacent chunk ids, best first, and each chunk's score.
    `intent`: what the question points at, with the owner's names and every person's (lower-cased);
    `person_rounds`: the named people's own lists (with_person_round); `clause_rounds`: the
    semantic lists of the facts a question combines (with_clauses); `multilingual`: the
    multilingual space's list (fuse_scores); `translated`: the translated keyword list
    (fuse_scores); `examples`: a list question's example round (with_examples); `births`: an
    age question's passages that tell a birth (with_births); `meetings`: the oldest passages naming
    the person a question asks about meeting (with_meetings)."""
    scores = fuse_scores(list(keyword), list(semantic), multilingual=multilingual, translated=translated)
    if person_rounds:
        scores = with_person_round(scores, person_rounds)
    if clause_rounds:
        scores = with_clauses(scores, clause_rounds)
    if examples:
        scores = with_examples(scores, examples)
    if births:
        scores = with_births(scores, births)
    if meetings:
        scores = with_meetings(scores, meetings)
    scores = small_talk.less_small_talk(scores, {cid: row.small_talk for cid, row in rows.items()})
    periods = query_dates(query)
    if periods:
        for cid in scores:
            if (row := rows.get(cid)) is not None and _within(row, periods):
                scores[cid] += DATE_BOOST
    month_boost = MONTH_BOOST if month_boost is None else month_boost
    months = query_months(query) if month_boost > 0 else frozenset()
    if months:
        for cid in scores:
            if (row := rows.get(cid)) is not None and _in_month(row, months):
                scores[cid] += month_boost
    scores = intent_boosts(intent, scores, rows, owner=owner, names_of=names_of or {})
    if intent.when:
        scores = with_when(scores, rows)
    neighbours = _adjacent(rows)
    boosted = {cid: s + NEIGHBOUR_BOOST * max((scores.get(n, 0.0) for n in neighbours.get(cid, ())), default=0.0)
               for cid, s in scores.items()}
    groups = _passages(sorted(boosted, key=boosted.__getitem__, reverse=True), rows, neighbours,
                       limit=limit, budget=limit * MAX_CHARS)
    return groups, boosted
