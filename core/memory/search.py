"""Hybrid search over the store: keyword and semantic candidates (and the multilingual space's),
ranked by core/memory/ranking.py. Grep and read-back are core/memory/reading.py's."""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from core.errors import UserFacingError
from core.memory.reading import MAX_LIMIT, PersonNames, SourceReader, just_the_name, checked_number, chunk_filter, stitched
from core.ports import Embedder
from core.times import parse_utc
from core.types import Locator, SearchFilters, SearchHit
from storage import chunks as chunk_store
from storage import disclosure as disclosure_store
from storage.db import database_path
from storage.keyword.query import keyword_both, keyword_query

# numpy and the vector index load in 0.1 s, the ranking and the reading of questions (with the
# keyword reader) about 0.04 s more: grep and read never need them, so searches import them
if TYPE_CHECKING:
    import numpy as np

    from core.memory import ranking
    from core.memory.known_names import KnownNames
    from core.memory.query_understanding import QueryIntent
    from core.memory.translation import Translator
    from storage.keyword.reader import KeywordReader
    from storage.db import Store
    from storage.vectors.index import VectorIndex
    from storage.multilingual import SpaceReader

# Candidate depths for hybrid search; the ranking itself lives in core/memory/ranking.py.
HYBRID_DEPTH = 100  # keyword candidates
SEMANTIC_DEPTH = 50  # semantic candidates, ranked exactly from a short list of sign-bit hits
# the short list: at least SHORTLIST sign-bit hits, BIT_OVERSAMPLE times the depth when deeper.
# On real embeddings (LoCoMo, 1.3k-5.9k vectors pooled) 100 held 98.2-98.7% of the exact top 10,
# 400 held 99.9%; reading 400 float vectors by id costs about 2 ms at a million chunks.
# It grows with the store (shortlist_size), like a power of it: on 100,000 real vectors (LoCoMo's
# texts, fortunes, WordNet glosses; bench/shortlist_real.py) held-out fortunes, whose neighbours
# are far, needed 1,000 for 99% of their exact top 10 (400 held 97.4%), and 2,000 with the store
# padded to 1M by near neighbours of real vectors (1,000 held 98.2%); 32 * n ** 0.3 gives both.
SHORTLIST = 400
BIT_OVERSAMPLE = 8
SHORTLIST_SCALE = 32
SHORTLIST_POWER = 0.3
MODES = ("hybrid", "keyword", "semantic")
# a filter that keeps at most this many chunks has all of them ranked exactly by sqlite-vec (no
# first stage to drop any); a broader one too while their bytes bound all but this many (up to an
# eighth of the store: storage/vectors/index.py BOUNDED_SHARE), else it takes the sign bits' short
# list among the chunks it keeps.
# Reading the float vectors is the cost: about 22 µs a chunk at load 15 (5,000 chunks of a 100k
# store; bench/latency.py vectors measures periods keeping 1-20%)
EXACT_FILTER_CAP = 20_000

# a question that asks for every instance gets this many times its limit (still no whole list:
# its hits say so, and point at grep, which is)
LIST_FACTOR = 3
# a question for things in the plural that does not say it wants them all ("What books has Maya
# read?", QueryIntent.many) gets this many times its limit (rounded up), and the list's hint: 2 while
# only a one-word plural asked so; with plurals of up to three words, "what are" and counting
# twice the questions, 1.5 gave more of them at about the characters 2 had returned (README,
# "things asked in the plural")
MANY_FACTOR = 1.5
# whether the names of people a question asks about stay keywords when it asks something else too
# (query_understanding.keyword_words; measured on the tuning halves, README "Ranking rules")
NAMES_AS_KEYWORDS = True
# whether the semantic half embeds the question with the owner's names as "I" ("Where does Inês
# live?" as "Where do I live?") and other people's as "they" when it asks more than who: a name
# starts every line its person wrote (query_understanding.semantic_query, bench/rules_tune.py)
OWNER_AS_I = True
# the person round (ranking.with_person_round): a question naming someone also ranks the chunks
# they speak in among themselves, this many from each half, unless they speak in more than
# PERSON_SHARE of the store (in a two-person chat, every chunk: nothing to tell apart)
PERSON_DEPTH = 40
PERSON_SHARE = 0.5
PERSON_ROUND_PEOPLE = 2  # the first people a question names
# a question that combines two facts ("How old was I when I moved?") also ranks each by its own
# meaning (query_understanding.clauses, ranking.with_clauses), where the model embeds the query
CLAUSE_ROUNDS = True
# a question for someone's age ("How old was I when I moved?", core/memory/ages.py) also ranks the
# passages that hold a birth word, this many, as one more fact it combines (ranking.with_clauses):
# the birth date is told once, in words neither the question's meaning nor its words lead to
BIRTH_DEPTH = 40
# a question about meeting someone ("When did I meet Lukas?", core/memory/meetings.py) also ranks
# the oldest passages that name them, this many a person (ranking.with_meetings): how two people
# met is told where one of them first appears
MEETING_DEPTH = 3
# a question for every instance also ranks the passages nearest to its best few
# (ranking.with_examples): its instances are told alike
LIST_EXAMPLE_ROUND = True
LIST_HINT = ("this question asks for a list: ranked search returns the best matches, not "
             "all of them; for the whole list use grep (every occurrence of a word, in time order) or list")

Ranked = tuple[list[tuple[int, float]], dict[int, chunk_store.StoredChunk]]  # (id, score) best first; chunks by id


def _no_intent() -> QueryIntent:
    from core.memory.query_understanding import QueryIntent

    return QueryIntent()


def _no_names() -> KnownNames:
    from core.memory.known_names import KnownNames

    return KnownNames()


@dataclass(frozen=True)
class Understood:
    """A query as search reads it: what it points at, and the names that told."""

    intent: QueryIntent = field(default_factory=_no_intent)
    names: KnownNames = field(default_factory=_no_names)
    apart: tuple[str, ...] = ()  # the people it names whose own chunks are ranked apart (person rounds)


class Searcher:
    def __init__(self, conn: Store, embedder: Embedder | None, *,
                 person_names: PersonNames = just_the_name, owner_aliases: Iterable[str] = (),
                 multilingual: Embedder | None = None, sources: SourceReader | None = None,
                 translator: Translator | None = None) -> None:
        """`multilingual`: the model of the store's multilingual space (core/memory/multilingual.py),
        loaded only when the space holds vectors; None: the space is not searched. `sources`: what
        reads the passages back (a reader of its own if none is given). `translator`: the
        bilingual dictionaries a hybrid search translates the question's words with, into the
        store's other languages (core/memory/translation.py); None: no translated list."""
        self.conn = conn
        self.embedder = embedder
        self.multilingual = multilingual
        self.translator = translator
        self.person_names = person_names
        self.owner_aliases = tuple(owner_aliases)  # BIOGRAPHER_OWNER_ALIASES, lower-cased
        self.sources = sources or SourceReader(conn, person_names=person_names)
        # searches read through connections of their own (committed data only, never queued
        # behind the shared connection's writes), opened on first use
        self._index: VectorIndex | None = None
        self._keywords: KeywordReader | None = None
        self._space: SpaceReader | None = None
        self._names: tuple[object, KnownNames] | None = None  # (the reader's names it was made of, it)

    async def vector_index(self) -> VectorIndex:
        """The in-memory sign-bit index (see warm_up)."""
        if self._index is None:
            from storage.vectors.index import VectorIndex

            self._index = VectorIndex(await self._store_path(), key=self.conn.key)
        return self._index

    async def _space_reader(self) -> SpaceReader:
        if self._space is None:
            from storage.multilingual import SpaceReader

            self._space = SpaceReader(await self._store_path(), key=self.conn.key)
        return self._space

    async def _keyword_reader(self) -> KeywordReader:
        if self._keywords is None:
            from storage.keyword.reader import KeywordReader

            self._keywords = KeywordReader(await self._store_path(), key=self.conn.key)
        return self._keywords

    async def _store_path(self) -> str:
        path = await database_path(self.conn)
        if not path:
            raise RuntimeError("search reads the store through connections of its own: it needs a file")
        return path

    async def warm_up(self, *, vector_budget_bytes: int | None = None) -> None:
        """Load the vector index now, so that the first search of a long-running process does
        not pay for it: 0.13 s at a million chunks; 0.3 s at 100k, whose vectors it keeps too."""
        index = await self.vector_index()
        # a process that warms up lives long: worth the memory, while the vectors fit the budget
        budget = {} if vector_budget_bytes is None else {"budget_bytes": vector_budget_bytes}
        index.keep_vectors(**budget)
        await asyncio.to_thread(index.refresh)
        if self.multilingual is not None:  # the multilingual space's vectors too, within the same budget
            space = await self._space_reader()
            space.keep(**budget)
            await asyncio.to_thread(space.refresh)

    def close(self) -> None:
        for reader in (self._index, self._keywords, self._space):
            if reader is not None:
                reader.close()
        self._index = self._keywords = self._space = None

    async def search(self, query: str, *, limit: int = 10, mode: str = "hybrid",
                     filters: SearchFilters = SearchFilters(),
                     query_vector: np.ndarray | None = None) -> list[SearchHit]:
        """`query_vector`: the query's embedding when the caller has it already (benchmarks)."""
        from core.memory import ranking, small_talk

        checked_number("limit", limit, low=1, high=MAX_LIMIT)
        if mode not in MODES:
            raise UserFacingError(f"unknown search mode {mode!r}", hint=f"use one of {', '.join(MODES)}")
        if not query.strip():
            raise UserFacingError("empty search query", hint="say what to look for")
        where = await chunk_filter(self.conn, filters, self.person_names)
        if mode != "keyword" and query_vector is None and await self._kept_local(query):
            mode = "keyword"  # found here by its words, and never sent to a remote endpoint
        if mode == "keyword":
            # NumPy only where it is loaded already: a one-shot keyword search is answered by FTS5
            # sooner than NumPy imports
            (ranked, rows), understood = await self._keyword_rows(query, depth=limit, where=where,
                                                                  arrays=self._index is not None)
        elif mode == "semantic":
            ranked, rows = await self._semantic_rows(query, depth=limit, where=where,
                                                     query_vector=query_vector)
            understood = Understood()
        if mode != "hybrid":
            shown = ranking.relevance(ranked, []) if mode == "keyword" else ranking.relevance([], ranked)
            return await self._hits([[cid] for cid, _ in ranked], shown, rows, understood.intent)
        depth, semantic_depth = max(HYBRID_DEPTH, limit * 5), max(SEMANTIC_DEPTH, limit * 5)
        # each half chooses its candidates from a pool this many times deeper, small talk weighing
        # little (core/memory/small_talk.py), before reading their rows
        pool, semantic_pool = small_talk.KEYWORD_POOL, small_talk.SEMANTIC_POOL
        clause_rounds: list[Ranked] = []  # each fact of a question that combines two (clauses)
        # the multilingual space's list, where it has one (and the query is embedded here)
        multilingual: list[tuple[int, float]] = []
        multilingual_rows: dict[int, chunk_store.StoredChunk] = {}
        if query_vector is None and self.embedder is not None:
            # the model's work overlaps the keyword half; the vector half follows the embedding
            async def semantic_half() -> tuple[np.ndarray, Ranked]:
                nonlocal clause_rounds
                vector, *clause_vectors = await self._query_vectors(query)
                found = await self._semantic_rows(query, depth=semantic_depth, where=where,
                                                  query_vector=vector, pool=semantic_pool)
                if clause_vectors:
                    clause_rounds = await self._clause_rounds(clause_vectors, where=where)
                return vector, found

            ((keyword, keyword_rows), understood), (query_vector, (semantic, semantic_rows)), \
                (multilingual, multilingual_rows) = await asyncio.gather(
                    self._keyword_rows(query, depth=depth, where=where, rounds=True, pool=pool),
                    semantic_half(),
                    self._multilingual_rows(query, depth=semantic_depth, where=where, pool=semantic_pool))
        elif spare_cores() >= 1:
            # a core is free: the halves at once (SQLite and NumPy let go of the GIL while they
            # work; 100k chunks on two idle cores: 3.5 against 4.9 ms back to back)
            ((keyword, keyword_rows), understood), (semantic, semantic_rows) = await asyncio.gather(
                self._keyword_rows(query, depth=depth, where=where, rounds=True, pool=pool),
                self._semantic_rows(query, depth=semantic_depth, where=where, query_vector=query_vector,
                                    pool=semantic_pool))
        else:
            # no core to spare: the halves back to back in one worker thread, which two busy
            # cores ran faster than two threads at once (100k chunks: 4.7 against 6.1 ms)
            reader, index = await self._keyword_reader(), await self.vector_index()

            def both() -> tuple[tuple[Ranked, Understood], Ranked]:
                keyword_half = _keyword_now(reader, query, depth=depth, where=where, names=self._known_now,
                                            rounds=True, pool=pool)
                if query_vector is None:
                    return keyword_half, ([], {})
                return keyword_half, _semantic_now(index, query_vector, depth=semantic_depth, where=where,
                                                   known=keyword_half[0][1], pool=semantic_pool)

            ((keyword, keyword_rows), understood), (semantic, semantic_rows) = await asyncio.to_thread(both)
        rounds, round_rows = await self._person_rounds(query, understood, query_vector, where=where)
        translated, translated_rows = await self._translated_rows(query, understood, depth=depth, where=where)
        births, birth_rows = await self._birth_rows(query, understood, where=where)
        meetings, meeting_rows = await self._meeting_rows(query, understood, where=where)
        # each half read its candidates' chunks: fusion starts with every row at hand
        rows = {**round_rows, **{k: v for _, found in clause_rounds for k, v in found.items()},
                **birth_rows, **meeting_rows, **translated_rows, **multilingual_rows, **keyword_rows, **semantic_rows}
        intent, names = understood.intent, understood.names
        wanted = math.ceil(limit * (LIST_FACTOR if intent.exhaustive else MANY_FACTOR if intent.many else 1))
        ranked_by = dict(intent=intent, owner=names.owner, names_of=names.names_of, person_rounds=rounds,
                         clause_rounds=[ranked for ranked, _ in clause_rounds], multilingual=multilingual,
                         translated=translated, births=births, meetings=meetings)
        groups, _ = ranking.rank(query, keyword, semantic, rows, limit=wanted, **ranked_by)
        if intent.exhaustive and LIST_EXAMPLE_ROUND and query_vector is not None:
            # its instances are told alike: the passages nearest its best few, ranked once more
            examples, example_rows = await self._example_round(ranking.example_seeds(groups), where=where, known=rows)
            if examples:
                rows = {**example_rows, **rows}
                groups, _ = ranking.rank(query, keyword, semantic, rows, limit=wanted, examples=examples, **ranked_by)
        return await self._hits(groups, ranking.relevance(keyword, semantic), rows, intent)

    async def _example_round(self, seeds: list[int], *, where: chunk_store.ChunkFilter,
                             known: dict[int, chunk_store.StoredChunk]) -> Ranked:
        """The chunks nearest in meaning to the mean of `seeds` (a list question's best passages:
        ranking.example_query), SEMANTIC_DEPTH of them, small talk weighing little as in the
        semantic half; the rows in `known` are not read again."""
        from core.memory import ranking, small_talk

        index = await self.vector_index()

        def nearest() -> Ranked:
            import numpy as np

            vectors = index.vectors(seeds)
            query = ranking.example_query([vectors[cid].tolist() for cid in seeds if cid in vectors])
            if query is None:
                return [], {}
            return _semantic_now(index, np.asarray(query, dtype=np.float32), depth=SEMANTIC_DEPTH, where=where,
                                 known=known, pool=small_talk.SEMANTIC_POOL)

        return await asyncio.to_thread(nearest)

    async def _person_rounds(self, query: str, understood: Understood, vector: np.ndarray | None, *,
                             where: chunk_store.ChunkFilter) -> tuple[list[ranking.PersonRound], dict]:
        """Each person the query names, their own chunks ranked among themselves (PERSON_DEPTH
        from each half: the query's meaning, and its words without their names, which every
        line of theirs holds); none when the search is filtered to a person already."""
        if not understood.apart or where.speakers:
            return [], {}
        reader = await self._keyword_reader()
        index = await self.vector_index() if vector is not None else None
        return await asyncio.to_thread(_person_rounds_now, reader, index, vector, query=query,
                                       understood=understood, where=where)

    async def _kept_local(self, query: str) -> bool:
        """Whether a query must not go to a remote embedding endpoint: it matches, here, a source
        the owner's policy denies (core/privacy/disclosure.py). Then only keyword search answers it."""
        if self.embedder is None or not self.embedder.remote:
            return False
        from core.privacy.disclosure import DENY  # only a remote endpoint's searches read the policies

        match = keyword_query(query, await chunk_store.languages(self.conn))
        return match is not None and await disclosure_store.matches_policy(self.conn, match, DENY)

    async def keyword(self, query: str, *, depth: int, where: chunk_store.ChunkFilter,
                      rounds: bool = False) -> list[tuple[int, float]]:
        """`rounds`: as the hybrid's keyword half, which leaves people's names to their rounds."""
        (ranked, _), _ = await self._keyword_rows(query, depth=depth, where=where, rounds=rounds)
        return ranked

    async def understand(self, query: str) -> Understood:
        """What the query points at, read with the names the store knows (benchmarks, tests)."""
        reader = await self._keyword_reader()
        return await asyncio.to_thread(_understood_now, reader, query, self._known_now)

    def _known_now(self, reader: KeywordReader) -> KnownNames:
        """The names the store knows, made again only when the reader read them again (blocking)."""
        from core.memory.known_names import known_names

        raw = reader.known_names()
        if self._names is None or self._names[0] is not raw:
            self._names = (raw, known_names(raw.aliases, owner_senders=raw.owner_senders,
                                            owner_aliases=self.owner_aliases, profile=raw.profile))
        return self._names[1]

    async def _keyword_rows(self, query: str, *, depth: int, where: chunk_store.ChunkFilter,
                            arrays: bool = True, rounds: bool = False, pool: int = 0) -> tuple[Ranked, Understood]:
        reader = await self._keyword_reader()
        return await asyncio.to_thread(_keyword_now, reader, query, depth=depth, where=where,
                                       names=self._known_now, arrays=arrays, rounds=rounds, pool=pool)

    async def semantic(self, query: str, *, depth: int, where: chunk_store.ChunkFilter,
                       query_vector: np.ndarray | None = None) -> list[tuple[int, float]]:
        ranked, _ = await self._semantic_rows(query, depth=depth, where=where, query_vector=query_vector)
        return ranked

    async def _semantic_rows(self, query: str, *, depth: int, where: chunk_store.ChunkFilter,
                             query_vector: np.ndarray | None = None, people_elsewhere: bool = False,
                             pool: int = 0) -> Ranked:
        """`people_elsewhere`: the keyword half and the person rules look after the people the
        query names (hybrid), so the embedded question leaves their names out (semantic_query);
        on its own the semantic half keeps them. `pool`: the `depth` candidates are chosen from
        `pool` times as many, small talk weighing little (small_talk.informed)."""
        if self.embedder is None:
            return [], {}
        if query_vector is None:
            query_vector = await self._query_vector(query, people_elsewhere=people_elsewhere)
        index = await self.vector_index()
        return await asyncio.to_thread(_semantic_now, index, query_vector, depth=depth, where=where, pool=pool)

    async def _query_vectors(self, query: str) -> list[np.ndarray]:
        """The hybrid's query embedded as its semantic half asks it (semantic_query), then each
        fact it combines (query_understanding.clauses), in one call of the model."""
        assert self.embedder is not None
        embedder = self.embedder
        reader = await self._keyword_reader()

        def embedded() -> list[np.ndarray]:
            from core.memory.query_understanding import clauses, semantic_query, understand

            known = self._known_now(reader)
            text = semantic_query(query, understand(query, known), known) if OWNER_AS_I else query
            parts = clauses(text, reader.languages()) if CLAUSE_ROUNDS else ()
            return list(embedder.embed([text, *parts], query=True))

        return await asyncio.to_thread(embedded)

    async def _clause_rounds(self, vectors: list[np.ndarray], *, where: chunk_store.ChunkFilter) -> list[Ranked]:
        """Each fact of a question that combines two, ranked by its own meaning (SEMANTIC_DEPTH,
        small talk weighing little as in the semantic half)."""
        from core.memory import small_talk

        index = await self.vector_index()
        return await asyncio.to_thread(lambda: [
            _semantic_now(index, vector, depth=SEMANTIC_DEPTH, where=where, pool=small_talk.SEMANTIC_POOL)
            for vector in vectors])

    async def _query_vector(self, query: str, *, people_elsewhere: bool,
                            embedder: Embedder | None = None) -> np.ndarray:
        """The query embedded as the semantic half asks it (see _semantic_rows), by the store's
        model unless `embedder` is given."""
        embedder = embedder or self.embedder
        assert embedder is not None
        reader = await self._keyword_reader() if OWNER_AS_I else None

        def embedded() -> np.ndarray:
            from core.memory.query_understanding import first_person, semantic_query, understand

            if reader is None:
                text = query
            else:
                known = self._known_now(reader)
                text = (semantic_query(query, understand(query, known), known) if people_elsewhere
                        else first_person(query, known))
            return embedder.embed([text], query=True)[0]

        return await asyncio.to_thread(embedded)

    async def _multilingual_rows(self, query: str, *, depth: int, where: chunk_store.ChunkFilter,
                                 pool: int) -> Ranked:
        """The multilingual space's half of a hybrid search (core/memory/multilingual.py): the
        question, embedded by the multilingual model as the semantic half asks it, ranked exactly
        against the space's vectors. Nothing where the space holds none (every English store):
        its model is never loaded there."""
        if self.multilingual is None:
            return [], {}
        space = await self._space_reader()
        if not await asyncio.to_thread(space.held):
            return [], {}
        vector = await self._query_vector(query, people_elsewhere=True, embedder=self.multilingual)
        return await asyncio.to_thread(_multilingual_now, space, vector, depth=depth, where=where, pool=pool)

    async def _translated_rows(self, query: str, understood: Understood, *, depth: int,
                               where: chunk_store.ChunkFilter) -> Ranked:
        """The translated keyword list of a hybrid search (core/memory/translation.py): nothing
        without dictionaries, or in a store of one language (every English one)."""
        if self.translator is None:
            return [], {}
        reader = await self._keyword_reader()
        return await asyncio.to_thread(_translated_now, reader, self.translator, query, understood,
                                       depth=depth, where=where)

    async def _birth_rows(self, query: str, understood: Understood, *, where: chunk_store.ChunkFilter) -> Ranked:
        """For a question about someone's age, the passages that tell a birth (core/memory/ages.py):
        bm25 over the birth words of the store's languages, with the names of the people the
        question is about beside them (their birth, not everyone's); nothing for other questions."""
        from core.memory.ages import asks_age

        if not BIRTH_DEPTH or not asks_age(query):
            return [], {}
        reader = await self._keyword_reader()
        return await asyncio.to_thread(_births_now, reader, understood, depth=BIRTH_DEPTH, where=where)

    async def _meeting_rows(self, query: str, understood: Understood, *, where: chunk_store.ChunkFilter) -> Ranked:
        """For a question about meeting someone the store knows, the oldest passages naming each
        of the first people it names (core/memory/meetings.py); nothing for other questions."""
        from core.memory.meetings import asks_meeting

        if not MEETING_DEPTH or not understood.intent.people or not asks_meeting(query):
            return [], {}
        reader = await self._keyword_reader()
        return await asyncio.to_thread(_meetings_now, reader, understood, depth=MEETING_DEPTH, where=where)

    async def _hits(self, groups: list[list[int]], scores: dict[int, float],
                    rows: dict[int, chunk_store.StoredChunk] | None = None,
                    intent: QueryIntent | None = None) -> list[SearchHit]:
        """One hit per group of adjacent chunks (best first), its text read from the store, scored
        with its best member's relevance (ranking.relevance); each says whether the question
        asks for a whole list."""
        listed = intent is not None and intent.asks_for_list
        if rows is None:
            rows = await chunk_store.get_chunks(self.conn, [c for g in groups for c in g])
        hits = []
        for group in groups:
            members = sorted((rows[c] for c in group if c in rows), key=lambda r: r.char_start)
            if not members:
                continue
            first = members[0]
            # adjacent chunks of one document (ranking groups only those), read already: their
            # text put together, as reading the span back from the store would give it
            text, end = stitched(members, first.char_start, max(r.char_end for r in members))
            locator = Locator(first.document_id, first.char_start, end)
            starts = [t for r in members if (t := parse_utc(r.time_start))]
            ends = [t for r in members if (t := parse_utc(r.time_end))]
            hits.append(SearchHit(
                locator=locator, document=first.document, kind=first.kind, text=text.strip(),
                score=max(scores.get(c, 0.0) for c in group), time_start=min(starts, default=None),
                time_end=max(ends, default=None),
                speakers=tuple(dict.fromkeys(s for r in members for s in r.speakers)),
                chunk_id=group[0], exhaustive_list=listed,
                hint=LIST_HINT if listed else None,
            ))
        return hits


def spare_cores() -> float:
    """Cores left idle over the last minute, by the load average (where the system keeps one)."""
    cores = os.cpu_count() or 1
    try:
        return cores - os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows keeps no load average
        return cores - 1


def _understood_now(reader: KeywordReader, query: str, names: Callable[[KeywordReader], KnownNames]) -> Understood:
    """The query read with the store's names, and which of its people speak in few enough of the
    store's chunks to rank their own apart (blocking)."""
    from core.memory.query_understanding import understand

    known = names(reader)
    intent = understand(query, known, reader.languages())
    apart = tuple(p for p in intent.people[:PERSON_ROUND_PEOPLE]
                  if reader.speaker_share(known.names_of.get(p, (p,))) <= PERSON_SHARE)
    return Understood(intent, known, apart)


def _keyword_now(reader: KeywordReader, query: str, *, depth: int, where: chunk_store.ChunkFilter,
                 names: Callable[[KeywordReader], KnownNames], arrays: bool = True,
                 rounds: bool = False, pool: int = 0) -> tuple[Ranked, Understood]:
    """The keyword half, blocking (in a worker thread): bm25 flipped so that higher is better;
    the owner's names in the query left out of it, people's names kept (query_understanding)
    unless `rounds` (the hybrid's) rank their passages. `arrays`: bm25 from the postings in
    NumPy (KeywordReader.search). `pool`: the `depth` hits are chosen from `pool` times as many,
    small talk weighing little (where the postings answer)."""
    from core.memory.query_understanding import keyword_words

    languages = reader.languages()
    understood = _understood_now(reader, query, names)
    intent, apart = understood.intent, understood.apart
    # where every person it names has a round of their own (the hybrid's), that round finds their
    # passages: in this half their names would rank each window of their small talk above what is asked
    to_rounds = rounds and not where.speakers and bool(apart) and set(apart) == set(intent.people)
    drop, keep = keyword_words(intent, names_as_keywords=NAMES_AS_KEYWORDS and not to_rounds)
    match = keyword_query(query, languages, drop=drop, keep=keep)
    if match is None:
        return ([], {}), understood
    hits = reader.search(match, limit=depth, where=where, arrays=arrays, pool=depth * pool,
                         choose=_informed_bm25(depth) if pool > 1 else None)
    return ([(hit.chunk.id, -hit.bm25) for hit in hits], {hit.chunk.id: hit.chunk for hit in hits}), understood


def _translated_now(reader: KeywordReader, translator: Translator, query: str, understood: Understood, *,
                    depth: int, where: chunk_store.ChunkFilter) -> Ranked:
    """The translated list, blocking (in a worker thread): the question's words (no stop words,
    question words or names: a name is the same in every language and the keyword half has it)
    in each other language the store holds, searched by bm25 among the chunks not told in the
    question's language (those the keyword half reads as they are), each chunk's best score."""
    from core.memory.translation import chosen, target_languages
    from storage.keyword.languages import UNKNOWN, detect_language
    from storage.keyword.query import stop_words_for
    from storage.keyword.terms import tokens

    detected = detect_language(query)
    source = detected if detected != UNKNOWN else "en"  # too short to tell: most questions are English
    targets = target_languages(reader.language_counts(), source, translator)
    if not targets:
        return [], {}
    intent = understood.intent
    stop = stop_words_for(query, reader.languages()) | intent.drop | intent.names
    words = [w for w in dict.fromkeys(tokens(query)) if w not in stop]
    best: dict[int, float] = {}
    rows: dict[int, chunk_store.StoredChunk] = {}
    for target in targets:
        def held(translation: str, target: str = target) -> bool:
            expression = keyword_query(translation, [target])
            return expression is not None and reader.holds(expression)

        match = keyword_query(" ".join(chosen(translator.translate(words, source, target), held)), [target])
        if match is None:
            continue
        hits = reader.search(match, limit=depth, where=where)
        told = reader.told_in([hit.chunk.id for hit in hits], source)
        for hit in hits:
            if hit.chunk.id not in told and -hit.bm25 > best.get(hit.chunk.id, -math.inf):
                best[hit.chunk.id], rows[hit.chunk.id] = -hit.bm25, hit.chunk
    return sorted(best.items(), key=lambda item: -item[1]), rows


def _births_now(reader: KeywordReader, understood: Understood, *, depth: int,
                where: chunk_store.ChunkFilter) -> Ranked:
    """The birth list, blocking (in a worker thread): see Searcher._birth_rows."""
    from core.memory.ages import birth_ranked, birth_words
    from core.memory.ranking import said_text

    languages = reader.languages()
    names = understood.intent.names
    match = keyword_query(" ".join([birth_words(languages), *sorted(names)]), languages, keep=names)
    if match is None:
        return [], {}
    hits = reader.search(match, limit=depth, where=where)
    ranked = birth_ranked([(hit.chunk.id, -hit.bm25, said_text(hit.chunk.text)) for hit in hits])
    return ranked, {hit.chunk.id: hit.chunk for hit in hits}


def _meetings_now(reader: KeywordReader, understood: Understood, *, depth: int,
                  where: chunk_store.ChunkFilter) -> Ranked:
    """The meeting list, blocking (in a worker thread): see Searcher._meeting_rows. Each person's
    oldest passage scores `depth`, the next one less; a passage naming two keeps its best."""
    languages = reader.languages()
    best: dict[int, float] = {}
    rows: dict[int, chunk_store.StoredChunk] = {}
    for person in understood.intent.people[:PERSON_ROUND_PEOPLE]:
        every = understood.names.names_of.get(person, (person,))
        named = keyword_query(" ".join(every), languages, keep=frozenset(w for n in every for w in n.lower().split()))
        if named is None:
            continue
        for place, chunk in enumerate(reader.earliest(named, limit=depth, where=where)):
            best[chunk.id], rows[chunk.id] = max(best.get(chunk.id, 0.0), float(depth - place)), chunk
    return sorted(best.items(), key=lambda item: -item[1]), rows


def _person_rounds_now(reader: KeywordReader, index: VectorIndex | None, vector: np.ndarray | None, *,
                       query: str, understood: Understood,
                       where: chunk_store.ChunkFilter) -> tuple[list[ranking.PersonRound], dict]:
    """The person rounds, blocking (in a worker thread): see Searcher._person_rounds."""
    import numpy as np

    from core.memory import small_talk

    intent, names = understood.intent, understood.names
    languages = reader.languages()
    # the rest of the question, in the passages they speak in or that name them
    topic = keyword_query(query, languages, drop=intent.drop | intent.names) if intent.topic else None
    rounds: list[ranking.PersonRound] = []
    rows: dict[int, chunk_store.StoredChunk] = {}
    for person in understood.apart:
        every = names.names_of.get(person, (person,))
        semantic: list[tuple[int, float]] = []
        if index is not None and vector is not None:
            # exact among a few hundred of theirs; beyond, the sign bits' short list among theirs,
            # as an unfiltered search ranks (not the filter's exact cap: this runs on every
            # question naming them, and sqlite-vec reads about 22 µs a chunk)
            hits = index.search(np.asarray(vector, dtype=np.float32), where=replace(where, speakers=every),
                                depth=PERSON_DEPTH * small_talk.SEMANTIC_POOL,
                                shortlist=shortlist_size(len(index), depth=PERSON_DEPTH))
            semantic = [(hit.chunk_id, hit.cosine) for hit in hits]
            # their small talk weighs little here too (small_talk.informed)
            semantic = small_talk.informed(semantic, index.small_talk([cid for cid, _ in semantic]), depth=PERSON_DEPTH)
        keyword: list[tuple[int, float]] = []
        named = keyword_query(" ".join(every), languages, keep=frozenset(w for n in every for w in n.split()))
        if topic is not None and named is not None:
            found = reader.search(keyword_both(named, topic), limit=PERSON_DEPTH, where=where)
            keyword = [(hit.chunk.id, -hit.bm25) for hit in found]
            rows.update((hit.chunk.id, hit.chunk) for hit in found)
        if keyword or semantic:
            rounds.append((keyword, semantic))
    wanted = [cid for _, semantic in rounds for cid, _ in semantic if cid not in rows]
    if wanted and index is not None:
        rows.update(index.chunks(wanted))
    return rounds, rows


def _informed_bm25(depth: int) -> Callable[[list[tuple[int, float]], Mapping[int, float]], list[tuple[int, float]]]:
    """small_talk.informed for bm25 as FTS5 gives it (lower is better)."""
    from core.memory import small_talk

    def choose(ranked: list[tuple[int, float]], talk: Mapping[int, float]) -> list[tuple[int, float]]:
        return small_talk.informed(ranked, talk, depth=depth, lower_is_better=True)
    return choose


def shortlist_size(vectors: int, *, depth: int = SEMANTIC_DEPTH) -> int:
    """How many sign-bit hits are ranked by their float vectors in a store of `vectors`: at least
    SHORTLIST (BIT_OVERSAMPLE times the depth when deeper), and more as the store grows, because
    the sign bits' ranks spread: more vectors sit between a query's exact top 10 and the list's
    edge. Sublinear: ten times the store needed twice the list on real vectors."""
    return max(SHORTLIST, depth * BIT_OVERSAMPLE, math.ceil(SHORTLIST_SCALE * vectors ** SHORTLIST_POWER))


def _semantic_now(index: VectorIndex, vector: np.ndarray, *, depth: int, where: chunk_store.ChunkFilter,
                  known: dict[int, chunk_store.StoredChunk] | None = None, pool: int = 0) -> Ranked:
    """The vector half, blocking (in a worker thread); the chunks in `known` are not read again.
    `pool`: the `depth` hits are chosen from `pool` times as many of the same short list, small
    talk weighing little."""
    import numpy as np

    from core.memory import small_talk

    hits = index.search(np.asarray(vector, dtype=np.float32), depth=depth * max(pool, 1), where=where,
                        shortlist=shortlist_size(len(index), depth=depth), exact_below=EXACT_FILTER_CAP)
    ranked = [(hit.chunk_id, hit.cosine) for hit in hits]
    if pool > 1:
        ranked = small_talk.informed(ranked, index.small_talk([cid for cid, _ in ranked]), depth=depth)
    known = known or {}
    rows = index.chunks([cid for cid, _ in ranked if cid not in known])
    return ranked, {**rows, **{cid: known[cid] for cid, _ in ranked if cid in known}}


def _multilingual_now(space: SpaceReader, vector: np.ndarray, *, depth: int, where: chunk_store.ChunkFilter,
                      pool: int) -> Ranked:
    """The multilingual half, blocking: the space's `depth` nearest, chosen from `pool` times as
    many with small talk weighing little (as the semantic half chooses)."""
    from core.memory import small_talk

    ranked = space.nearest(vector, depth=depth * max(pool, 1), where=where)
    if pool > 1:
        ranked = small_talk.informed(ranked, space.small_talk([cid for cid, _ in ranked]), depth=depth)
    return ranked, space.chunks([cid for cid, _ in ranked])


