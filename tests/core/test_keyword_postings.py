"""The keyword postings (storage/keyword/postings.py) scored in NumPy (storage/keyword/scoring.py)
give FTS5's own bm25: the top 100 of every query equals what FTS5 ranks (the same scores; ids
apart only among equal scores), on LoCoMo's real conversations and on a store of many languages,
through inserts, deletions and reused ids; a store whose postings lag is answered by FTS5."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from storage import chunks as chunk_store
from storage import documents as document_store
from storage.db import open_database, open_reader
from storage.keyword import postings
from storage.keyword.query import keyword_query, plain_terms
from storage.keyword.reader import KeywordReader
from storage.keyword.scoring import Bm25Arrays
from storage.source_admin import delete_source
from tests.core.helpers import memory_at

ROOT = Path(__file__).resolve().parents[2]
# the shared folder beside the main checkout (a worktree sits one level further down), or inside it
LOCOMO = next((p for p in (ROOT / ".." / "shared" / "eval" / "locomo", ROOT / ".." / ".." / "shared" / "eval" / "locomo",
                           ROOT / "shared" / "eval" / "locomo") if p.is_dir()), ROOT / ".." / "shared" / "eval" / "locomo")
DEPTH = 100


def fts5_scores(conn, match: str) -> dict[int, float]:
    """bm25 of every chunk the expression matches, as FTS5 computes it."""
    return dict(conn.execute("SELECT rowid, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ?",
                             (match,)).fetchall())


def arrays_top(conn, arrays: Bm25Arrays, match: str, limit: int = DEPTH) -> list[tuple[int, float]] | None:
    cur = conn.cursor()
    cur.execute("BEGIN")
    try:
        return arrays.top(cur, plain_terms(match), limit)
    finally:
        cur.execute("COMMIT")


def assert_fts5s_top(conn, arrays: Bm25Arrays, match: str) -> int:
    """Each chunk's score is FTS5's, and the list is a best-first top 100 of FTS5's scores
    (so it differs from FTS5's own ORDER BY only among equal scores); returns its length."""
    mine = arrays_top(conn, arrays, match)
    assert mine is not None
    truth = fts5_scores(conn, match)
    assert len({cid for cid, _ in mine}) == len(mine)
    for cid, score in mine:
        assert score == pytest.approx(truth[cid], rel=1e-12, abs=1e-12), (match, cid)
    best = sorted(truth.values())[:DEPTH]
    assert [s for _, s in mine] == pytest.approx(best, rel=1e-12, abs=1e-12), match
    strictly_better = {cid for cid, s in truth.items() if s < best[-1] - 1e-9} if best else set()
    assert strictly_better <= {cid for cid, _ in mine}
    return len(mine)


def locomo_questions() -> list[str]:
    qa = LOCOMO / "qa.jsonl"
    if not (LOCOMO / "manifest.json").is_file() or not qa.is_file():
        pytest.skip(f"the LoCoMo exports are not here ({LOCOMO.resolve()})")
    return [json.loads(line)["question"] for line in qa.read_text().splitlines() if line.strip()]


async def test_locomo_keyword_top_100_is_fts5s(tmp_path: Path, embedder) -> None:
    questions = locomo_questions()
    async with memory_at(tmp_path / "data", embedder) as memory:
        report = await memory.ingest([LOCOMO / "exports"], index=False)
        assert report.errors == []
        path = memory.conn.path
    conn = open_reader(path, cache_mb=16)
    languages = chunk_store.languages_sync(conn)
    arrays = Bm25Arrays()
    checked = 0
    for question in questions:
        match = keyword_query(question, languages)
        if match is None or plain_terms(match) is None:
            continue
        checked += assert_fts5s_top(conn, arrays, match) > 0
    assert checked > 0.9 * len(questions)
    conn.close()


TEXTS = [
    ("en", "The ferry to Tavira leaves at nine; bring the blue umbrella and the ferry tickets."),
    ("en", "Knee hurts again after the long run, booking the physio and the dentist too. FERRY!"),
    ("en", "config_file and user_name live in the project_settings folder, see README_v2."),
    ("pt", "Amanhã vamos à praia de Tavira com a Maya, e depois jantar em casa da avó."),
    ("de", "Wir fahren morgen mit der Fähre nach Tavira und essen danach bei Oma."),
    ("ru", "Завтра поедем на пароме в Тавиру, а потом ужин у бабушки. Паром в девять."),
    ("zh", "我们明天坐渡轮去塔维拉，然后在奶奶家吃晚饭。渡轮九点出发。"),
    ("ja", "明日フェリーでタビラに行きます。フェリーは九時に出ます。"),
    ("", "ferry ferry ferry ferry ferry ferry ferry ferry ferry ferry ferry ferry"),
    ("", ""),
]
QUERIES = ["ferry Tavira umbrella", "physio dentist knee", "config_file project", "praia avó Tavira",
           "Fähre Oma", "паром бабушки", "渡轮 奶奶", "フェリー 九時", "ferry", "nothing matches this"]


async def _add_document(conn, name: str, texts: list[tuple[str, str]], *, copies: int = 1) -> int:
    async with conn.transaction():
        doc = await document_store.insert_document(conn, kind="text", name=name, identity=name, source_path=None,
                                                   content_hash=None, byte_size=None, raw_path=None)
        records = [chunk_store.ChunkRecord(
            document_id=doc, ordinal=i, char_start=i * 1000, char_end=i * 1000 + len(text), text=text,
            time_start=None, time_end=None, speakers=(), identity=f"{name}|{i}", text_hash=f"{name}|{i}",
            language=language) for i, (language, text) in enumerate(texts * copies)]
        await chunk_store.insert_chunks(conn, records)
    return doc


async def _rows(conn, table: str, order: str) -> list[tuple]:
    async with conn.execute(f"SELECT * FROM {table} ORDER BY {order}") as cur:
        return [tuple(row) for row in await cur.fetchall()]


async def test_many_languages_through_inserts_deletions_and_reused_ids(tmp_path: Path) -> None:
    path = tmp_path / "biographer.sqlite3"
    async with open_database(path) as conn:
        kept = [await _add_document(conn, f"doc{n}", TEXTS[n % 3:] + TEXTS[:n % 3], copies=3) for n in range(6)]
        reader = open_reader(path, cache_mb=16)
        languages = chunk_store.languages_sync(reader)
        arrays = Bm25Arrays()

        async def check() -> None:
            async with conn.execute("SELECT COUNT(*) FROM keyword_log") as cur:
                assert (await cur.fetchone())[0] == 0  # every writer folded before committing
            for query in QUERIES:
                match = keyword_query(query, languages)
                if match is not None and plain_terms(match) is not None:
                    assert_fts5s_top(reader, arrays, match)

        await check()
        async with conn.transaction():
            await delete_source(conn, kept[2])  # a part's chunks deleted: the part is made again
        await check()
        async with conn.transaction():
            await delete_source(conn, kept[-1])  # the highest ids: the next chunks take them again
        await _add_document(conn, "again", TEXTS[::-1], copies=2)
        await check()
        # appending batch by batch leaves what building everything at once leaves
        folded = [await _rows(conn, "keyword_postings", "term, part"),
                  [r[:1] + r[2:] for r in await _rows(conn, "keyword_lengths", "part")]]
        async with conn.transaction():
            await postings.rebuild(conn)
        rebuilt = [await _rows(conn, "keyword_postings", "term, part"),
                   [r[:1] + r[2:] for r in await _rows(conn, "keyword_lengths", "part")]]
        assert folded == rebuilt
        reader.close()


def test_only_plain_terms_are_scored_from_the_arrays() -> None:
    assert plain_terms('"ferri" OR "tavira"') == ["ferri", "tavira"]
    assert plain_terms('"猫"*') is None  # a prefix
    assert plain_terms('"config_file"') is None  # FTS5 reads a phrase of two tokens
    assert plain_terms('"ab cd"') is None


async def test_a_store_whose_postings_lag_is_answered_by_fts5(tmp_path: Path) -> None:
    path = tmp_path / "biographer.sqlite3"
    async with open_database(path) as conn:
        await _add_document(conn, "doc", TEXTS, copies=2)
        async with conn.transaction():  # a chunk written past the storage layer: nothing folds it
            await conn.execute(
                "INSERT INTO chunks (document_id, ordinal, char_start, char_end, text, speakers, identity, "
                "text_hash, language) SELECT document_id, 99, 0, 5, 'ferry ferry tavira', '[]', 'raw', 'raw', 'en' "
                "FROM chunks LIMIT 1")
    reader = open_reader(path, cache_mb=16)
    match = keyword_query("ferry tavira")
    assert arrays_top(reader, Bm25Arrays(), match) is None
    keywords = KeywordReader(path)
    hits = keywords.search(match, limit=5, where=chunk_store.ChunkFilter())
    expected = sorted(fts5_scores(reader, match).items(), key=lambda item: item[1])[:5]
    assert [round(h.bm25, 9) for h in hits] == [round(s, 9) for _, s in expected]
    assert "raw" in {h.chunk.text for h in hits} or any(h.chunk.text == "ferry ferry tavira" for h in hits)
    keywords.close()
    reader.close()


async def test_pruned_top_is_the_exhaustive_top(tmp_path: Path) -> None:
    """MaxScore skips the chunks only the commonest words hold when they cannot reach the top:
    on a Zipf-distributed store (a few words in most chunks, a long tail of rare ones, as
    bench/latency.py writes) the pruned top 100 equals the exhaustive one, score for score and
    id for id, and FTS5's; and pruning did skip postings."""
    import numpy as np

    rng = np.random.default_rng(5)
    vocabulary = [f"w{n}" for n in range(3000)]
    p = 1.0 / np.arange(1, len(vocabulary) + 1) ** 1.07
    texts = [("", " ".join(rng.choice(vocabulary, size=int(rng.integers(40, 120)), p=p / p.sum())))
             for _ in range(2500)]
    path = tmp_path / "biographer.sqlite3"
    async with open_database(path) as conn:
        await _add_document(conn, "zipf", texts)
    reader = open_reader(path, cache_mb=16)
    pruned, exhaustive = Bm25Arrays(), Bm25Arrays()
    weighed = {"pruned": 0, "exhaustive": 0}
    for _ in range(60):
        words = [*rng.choice(vocabulary[5:200], size=int(rng.integers(1, 4))),
                 *rng.choice(vocabulary[200:], size=int(rng.integers(1, 3)))]
        match = " OR ".join(f'"{w}"' for w in dict.fromkeys(words))
        cur = reader.cursor()
        cur.execute("BEGIN")
        try:
            mine = pruned.top(cur, plain_terms(match), DEPTH)
            full = exhaustive.top(cur, plain_terms(match), DEPTH, prune=False)
        finally:
            cur.execute("COMMIT")
        assert mine == full, match
        assert_fts5s_top(reader, pruned, match)
        weighed["pruned"] += pruned.weighed
        weighed["exhaustive"] += exhaustive.weighed
    assert weighed["pruned"] < 0.8 * weighed["exhaustive"], weighed
    reader.close()
