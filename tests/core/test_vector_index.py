"""The in-memory sign-bit index against brute force over the store, through inserts,
replacements, deletions and folds, in step across connections and after a crash-like reopen."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from pathlib import Path

import numpy as np
import pytest

from storage import chunks as chunk_store
from storage import documents as document_store
from storage.vectors import store as vector_store
from storage.db import open_database
from storage.keyword.reader import KeywordReader
from storage.meta import set_meta
from storage.vectors import index as index_module
from storage.vectors.index import VectorIndex

DIM = 96  # not a multiple of 64: the last word of each vector is half padding


async def _new_chunks(conn, n: int, *, tag: str, words: str = "plain words") -> list[int]:
    async with conn.transaction():
        doc = await document_store.insert_document(
            conn, kind="text", name=f"{tag}.txt", identity=tag, source_path=None, content_hash=None,
            byte_size=None, raw_path=None)
        await chunk_store.insert_chunks(conn, [chunk_store.ChunkRecord(
            document_id=doc, ordinal=i, char_start=i * 100, char_end=i * 100 + 50,
            text=f"{words} {tag} {i}", time_start=None, time_end=None, speakers=(),
            identity=f"{tag}|{i}", text_hash=f"{tag}-{i}") for i in range(n)])
    async with conn.execute("SELECT id FROM chunks WHERE document_id = ? ORDER BY id", (doc,)) as cur:
        return [r[0] for r in await cur.fetchall()]


async def _chats_and_others(conn, n: int) -> tuple[list[int], list[int]]:
    """n chunks of a document of kind chat, then n of a text document."""
    chats = await _new_chunks(conn, n, tag="chats")
    async with conn.transaction():
        await conn.execute("UPDATE documents SET kind = 'chat' WHERE identity = 'chats'")
    return chats, await _new_chunks(conn, n, tag="others")


async def _old_chunks(conn, n: int) -> list[int]:
    """Chunks as a store of the time wrote them (the columns of migration 1 only)."""
    async with conn.transaction():
        doc = await document_store.insert_document(
            conn, kind="text", name="old.txt", identity="old", source_path=None, content_hash=None,
            byte_size=None, raw_path=None)
        await conn.executemany(
            "INSERT INTO chunks (document_id, ordinal, char_start, char_end, text, identity, text_hash)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(doc, i, i * 100, i * 100 + 50, f"plain words old {i}", f"old|{i}", f"old-{i}") for i in range(n)])
    async with conn.execute("SELECT id FROM chunks WHERE document_id = ? ORDER BY id", (doc,)) as cur:
        return [r[0] for r in await cur.fetchall()]


def _code_parts_of(monkeypatch, bits: int) -> None:
    """Code parts of 2**bits chunk ids (a few chunks make several), written and read so."""
    monkeypatch.setattr(vector_store, "CODE_BITS", bits)
    monkeypatch.setattr(index_module, "CODE_BITS", bits)


@asynccontextmanager
async def _store_at(path: Path):
    """A store whose vectors have DIM dimensions."""
    async with open_database(path) as conn:
        async with conn.transaction():
            await set_meta(conn, "embedding_dim", str(DIM))
        yield conn


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


async def _store(conn, ids: list[int], vectors: np.ndarray) -> None:
    async with conn.transaction():
        await vector_store.store_vectors(conn, [(i, v.tobytes()) for i, v in zip(ids, vectors)],
                                         generation=await vector_store.generation(conn))


async def _folded(conn, rng: np.random.Generator, n: int) -> list[int]:
    """n new chunks with random vectors, the log folded into the parts."""
    ids = await _new_chunks(conn, n, tag="a")
    await _store(conn, ids, _unit(rng, n))
    async with conn.transaction():
        await vector_store.fold_log(conn)
    return ids


async def _brute_force(conn, query: np.ndarray) -> tuple[dict[int, int], dict[int, float]]:
    """Hamming distance of the sign bits and cosine, for every current vector."""
    gen = await vector_store.generation(conn)
    async with conn.execute("SELECT chunk_id, vector FROM chunk_embeddings WHERE generation = ?", (gen,)) as cur:
        rows = await cur.fetchall()
    hamming, cosine = {}, {}
    for cid, blob in rows:
        v = np.frombuffer(blob, dtype=np.float32)
        hamming[cid] = int(((v > 0) != (query > 0)).sum())
        cosine[cid] = float(v @ query)
    return hamming, cosine


async def _agrees(conn, index: VectorIndex, rng: np.random.Generator) -> None:
    """The index finds what brute force over the store finds (with the vectors kept in memory, up
    to their rounding)."""
    index.refresh()
    for query in _unit(rng, 4):
        hamming, cosine = await _brute_force(conn, query)
        assert len(index) == len(hamming)
        k = min(7, len(hamming))
        near = index.shortlist(query, k)
        assert len(near) == len(set(near)) == k
        # the k nearest by Hamming distance (ties may fall either way)
        assert max(hamming[i] for i in near) <= sorted(hamming.values())[k - 1]
        # a short list as long as the store is exact
        found = index.search(query, shortlist=len(hamming) + 5, depth=5)
        best = sorted(cosine, key=lambda i: -cosine[i])[:5]
        if index._vectors is None:
            assert [hit.chunk_id for hit in found] == best
            # sqlite-vec's distance is a float32: 1 - distance within a few float32 steps
            assert [hit.cosine for hit in found] == pytest.approx([cosine[i] for i in best], abs=1e-6)
        else:  # a byte per dimension: each cosine within rounding, near ties in either order
            assert all(abs(hit.cosine - cosine[hit.chunk_id]) < 0.005 for hit in found)
            assert all(cosine[hit.chunk_id] >= cosine[best[-1]] - 0.01 for hit in found)


@pytest.mark.parametrize("kept", [False, True], ids=["vectors read by id", "vectors kept in memory"])
async def test_index_follows_inserts_replacements_deletions_and_folds(tmp_path: Path, monkeypatch, kept):
    monkeypatch.setattr(vector_store, "FOLD_ROWS", 50)  # fold often
    monkeypatch.setattr(vector_store, "PART_BITS", 5)  # parts of 32 ids: many parts
    rng = np.random.default_rng(1)
    path = tmp_path / "s.sqlite3"
    async with _store_at(path) as conn:
        long_lived = VectorIndex(path)
        if kept:
            long_lived.keep_vectors()
        first = await _new_chunks(conn, 120, tag="a")
        await _store(conn, first[:70], _unit(rng, 70))  # folded (>= 50 log rows)
        await _agrees(conn, long_lived, rng)
        await _store(conn, first[70:], _unit(rng, 50))
        await _store(conn, first[10:30], _unit(rng, 20))  # replaced: log only, not folded yet
        await _agrees(conn, long_lived, rng)
        second = await _new_chunks(conn, 40, tag="b")
        await _store(conn, second, _unit(rng, 40))
        async with conn.transaction():  # chunks deleted: their vectors go by cascade
            await conn.execute("DELETE FROM documents WHERE identity = 'a'")
        await _agrees(conn, long_lived, rng)
        async with conn.transaction():
            await vector_store.fold_log(conn)
        await _agrees(conn, long_lived, rng)
        assert (long_lived._vectors is not None) == kept  # the path this case means to test
        await _agrees(conn, VectorIndex(path), rng)  # a fresh process loads the same
        long_lived.close()


async def test_vectors_over_the_budget_are_read_from_the_store(tmp_path: Path):
    rng = np.random.default_rng(3)
    path = tmp_path / "s.sqlite3"
    async with _store_at(path) as conn:
        await _folded(conn, rng, 40)
        index = VectorIndex(path)
        index.keep_vectors(budget_bytes=40 * (DIM + 12) - 1)  # a byte short (a byte a dimension, 12 for scale, length, error)
        await _agrees(conn, index, rng)
        assert index._vectors is None
        index.keep_vectors(budget_bytes=40 * (DIM + 12))
        await _agrees(conn, index, rng)
        assert index._vectors is not None
        index.close()


async def test_a_batch_is_found_once_it_commits_and_a_deleted_chunk_at_once(tmp_path: Path):
    rng = np.random.default_rng(2)
    path = tmp_path / "s.sqlite3"
    async with _store_at(path), open_database(path) as other:  # two processes' worth
        index = VectorIndex(path)
        ids = await _new_chunks(other, 5, tag="x")
        vectors = _unit(rng, 5)
        await other.execute("BEGIN IMMEDIATE")
        await vector_store.store_vectors(other, [(i, v.tobytes()) for i, v in zip(ids, vectors)], generation=0)
        assert index.search(vectors[0], shortlist=10, depth=3) == []  # not committed yet
        await other.execute("COMMIT")
        assert index.search(vectors[0], shortlist=10, depth=3)[0].chunk_id == ids[0]
        async with other.transaction():
            await other.execute("DELETE FROM chunks WHERE id = ?", (ids[0],))
        assert ids[0] not in [hit.chunk_id for hit in index.search(vectors[0], shortlist=10, depth=5)]
        index.close()


async def test_only_the_current_generation_is_searched(tmp_path: Path):
    rng = np.random.default_rng(3)
    path = tmp_path / "s.sqlite3"
    async with _store_at(path) as conn:
        ids = await _new_chunks(conn, 20, tag="g")
        await _store(conn, ids, _unit(rng, 20))
        index = VectorIndex(path)
        assert len(index.search(_unit(rng, 1)[0], shortlist=50, depth=50)) == 20
        async with conn.transaction():
            await vector_store.start_generation(conn)
        await _store(conn, ids[:3], _unit(rng, 3))
        found = index.search(_unit(rng, 1)[0], shortlist=50, depth=50)
        assert sorted(hit.chunk_id for hit in found) == ids[:3]
        async with conn.execute("SELECT COUNT(*) FROM chunk_embeddings") as cur:
            assert (await cur.fetchone())[0] == 20  # the old vectors wait to be replaced
        index.close()



async def test_the_vectors_of_chunks_are_read_back_as_stored_and_only_the_current_ones(tmp_path: Path):
    rng = np.random.default_rng(5)
    path = tmp_path / "s.sqlite3"
    async with _store_at(path) as conn:
        ids = await _new_chunks(conn, 6, tag="v")
        first = _unit(rng, 6)
        await _store(conn, ids, first)
        index = VectorIndex(path)
        got = index.vectors([ids[1], ids[4], 10_000])  # an id without a vector is left out
        assert sorted(got) == [ids[1], ids[4]]
        assert np.array_equal(got[ids[4]], first[4]) and got[ids[4]].dtype == np.float32
        assert index.vectors([]) == {}
        async with conn.transaction():
            await vector_store.start_generation(conn)
        newer = _unit(rng, 1)
        await _store(conn, ids[:1], newer)
        got = index.vectors(ids)
        assert list(got) == [ids[0]] and np.array_equal(got[ids[0]], newer[0])
        index.close()

async def test_a_filter_restricts_the_scan_and_a_small_one_is_ranked_exactly(tmp_path: Path):
    rng = np.random.default_rng(4)
    path = tmp_path / "s.sqlite3"
    async with _store_at(path) as conn:
        notes, others = await _chats_and_others(conn, 60)
        await _store(conn, notes + others, _unit(rng, 120))
        index = VectorIndex(path)
        where = chunk_store.ChunkFilter(kinds=("chat",))
        query = _unit(rng, 1)[0]
        _, cosine = await _brute_force(conn, query)
        exact = sorted(notes, key=lambda i: -cosine[i])[:5]
        assert [h.chunk_id for h in index.search(query, shortlist=10, depth=5, where=where, exact_below=100)] == exact
        scanned = index.search(query, shortlist=20, depth=5, where=where, exact_below=0)
        assert scanned and set(h.chunk_id for h in scanned) <= set(notes)
        index.close()


async def load_sqlite_vec(conn) -> None:
    import sqlite_vec

    await conn.enable_load_extension(True)
    await conn.load_extension(sqlite_vec.loadable_path())
    await conn.enable_load_extension(False)


async def test_an_older_store_gets_its_parts_built_by_the_migration(tmp_path: Path, monkeypatch):
    """A store written before migration 70 (sign bits in a sqlite-vec table) is searchable after."""
    from storage import migrations
    rng = np.random.default_rng(5)
    path = tmp_path / "s.sqlite3"
    without = {n: f for n, f in migrations.MIGRATIONS.items() if n < 70}
    with monkeypatch.context() as patch:
        patch.setattr(migrations, "MIGRATIONS", without)
        patch.setattr(migrations, "_load_schema_modules", lambda: None)
        async with open_database(path) as conn:
            ids = await _old_chunks(conn, 30)
            vectors = _unit(rng, 30)
            async with conn.transaction():
                await set_meta(conn, "embedding_dim", str(DIM))
                await load_sqlite_vec(conn)  # as stores of that time always had it
                await conn.execute(f"CREATE VIRTUAL TABLE chunk_vectors USING vec0(embedding bit[{DIM}])")
                await conn.executemany("INSERT INTO chunk_embeddings (chunk_id, vector) VALUES (?, ?)",
                                       [(i, v.tobytes()) for i, v in zip(ids, vectors)])
    async with open_database(path) as conn:
        async with conn.execute("SELECT name FROM sqlite_master WHERE name = 'chunk_vectors'") as cur:
            assert await cur.fetchone() is None
        index = VectorIndex(path)
        await _agrees(conn, index, rng)
        assert index.search(vectors[7], shortlist=10, depth=1)[0].chunk_id == ids[7]
        index.close()


@pytest.mark.parametrize("ranges", [1, 3])
async def test_keyword_ranges_searched_apart_give_the_same_best(tmp_path: Path, monkeypatch, ranges):
    import storage.keyword.reader as keyword_reader

    monkeypatch.setattr(keyword_reader, "SPLIT_FROM", 0)
    path = tmp_path / "s.sqlite3"
    async with open_database(path) as conn:
        for tag in ("lemon", "tree", "garden"):
            await _new_chunks(conn, 40, tag=tag, words="lemon tree " * (len(tag) - 3))
    one = KeywordReader(path, ranges=1)
    split = KeywordReader(path, ranges=ranges)
    everything = chunk_store.ChunkFilter()
    for match in ('"lemon"', '"tree" OR "garden"', '"garden" OR "lemon"'):
        expected = one.search(match, limit=25, where=everything, arrays=False)  # FTS5, in ranges
        got = split.search(match, limit=25, where=everything, arrays=False)
        assert [round(h.bm25, 9) for h in got] == [round(h.bm25, 9) for h in expected]
        assert {h.chunk.id for h in got} == {h.chunk.id for h in expected} or len(expected) == 25
    one.close()
    split.close()


@pytest.mark.parametrize("kept, sliced", [(False, False), (True, False), (False, True)],
                         ids=["vectors read by id", "vectors kept in memory", "read in slices at once"])
async def test_filtered_search_is_exact_against_brute_force(tmp_path: Path, monkeypatch, kept, sliced):
    """A person, a period, a kind: sqlite-vec's nearest over the chunks each filter keeps are
    NumPy's exact nearest over the same chunks (the filter applied by hand here), also when a
    long list is ranked in slices on several connections at once."""
    if sliced:
        monkeypatch.setattr(index_module, "PARALLEL_FROM", 4)
        monkeypatch.setattr(index_module, "PARALLEL_STORE", 4)
        monkeypatch.setattr(index_module, "PARALLEL_ROWS", 4)
    rng = np.random.default_rng(5)
    path = tmp_path / "s.sqlite3"
    people = ("ana", "maya", "teo")
    async with _store_at(path) as conn:
        async with conn.transaction():
            doc = {}
            for kind in ("chat", "text"):
                doc[kind] = await document_store.insert_document(
                    conn, kind=kind, name=f"{kind}.txt", identity=kind, source_path=None, content_hash=None,
                    byte_size=None, raw_path=None)
            records = [chunk_store.ChunkRecord(
                document_id=doc["chat" if i % 3 else "text"], ordinal=i, char_start=i * 100, char_end=i * 100 + 50,
                text=f"words {i}", time_start=f"2024-{1 + i % 12:02d}-01T10:00:00Z",
                time_end=f"2024-{1 + i % 12:02d}-02T10:00:00Z", speakers=(people[i % 3], people[(i + 1) % 3]),
                identity=f"c|{i}", text_hash=f"c-{i}") for i in range(400)]
            await chunk_store.insert_chunks(conn, records)
        async with conn.execute("SELECT id, document_id, time_start, time_end, speakers FROM chunks ORDER BY id") as cur:
            rows = await cur.fetchall()
        await _store(conn, [r[0] for r in rows], _unit(rng, len(rows)))
        kinds = {v: k for k, v in doc.items()}
        filters = {
            chunk_store.ChunkFilter(speakers=("maya",)): lambda r: "maya" in json.loads(r[4]),
            chunk_store.ChunkFilter(since="2024-03-01T00:00:00Z", until="2024-05-31T00:00:00Z"):
                lambda r: r[3] >= "2024-03-01T00:00:00Z" and r[2] <= "2024-05-31T00:00:00Z",
            chunk_store.ChunkFilter(kinds=("text",), speakers=("teo",)):
                lambda r: kinds[r[1]] == "text" and "teo" in json.loads(r[4]),
        }
        index = VectorIndex(path)
        if kept:
            index.keep_vectors()
        for query in _unit(rng, 5):
            _, cosine = await _brute_force(conn, query)
            for where, keeps in filters.items():
                allowed = [r[0] for r in rows if keeps(r)]
                exact = sorted(allowed, key=lambda i: -cosine[i])[:10]
                found = index.search(query, shortlist=8, depth=10, where=where, exact_below=1_000)
                assert [h.chunk_id for h in found] == exact
                read = index.chunks(exact)  # in slices too, when sliced
                assert sorted(read) == sorted(exact) and all(read[i].id == i for i in exact)
                assert [h.cosine for h in found] == pytest.approx([cosine[i] for i in exact], abs=1e-6)
        index.close()


@pytest.mark.parametrize("kept", [True, False], ids=["vectors kept in memory", "code parts read from the store"])
async def test_a_filtered_search_is_bounded_by_the_bytes_and_stays_exact(tmp_path: Path, monkeypatch, kept):
    """A filtered search ranks exactly only the chunks whose bounded cosine (from their bytes:
    kept in memory, or read from the code parts on disk by a one-shot process) can still reach
    the top: far fewer than the filter keeps, and the result is NumPy's brute force over every
    chunk the filter keeps, changes in the log (replaced and new vectors, not yet folded into
    parts) included. One-shot, also with a code part written after the parts the index holds,
    and with a filter too scattered for any code part to be worth reading."""
    _code_parts_of(monkeypatch, 8)  # parts of 256 ids: several for one filter
    rng = np.random.default_rng(8)
    path = tmp_path / "s.sqlite3"
    async with _store_at(path) as conn:
        chats, notes = await _chats_and_others(conn, 1500)
        await _store(conn, chats + notes, _unit(rng, 3000))
        async with conn.transaction():
            await vector_store.fold_log(conn)
        index = VectorIndex(path)
        if kept:
            index.keep_vectors()
        index.refresh()
        await _store(conn, chats[:20], _unit(rng, 20))  # replaced since the parts: in the log
        where = chunk_store.ChunkFilter(kinds=("chat",))
        for query in _unit(rng, 6):
            _, cosine = await _brute_force(conn, query)
            exact = sorted(chats, key=lambda i: -cosine[i])[:10]
            found = index.search(query, shortlist=8, depth=10, where=where, exact_below=5_000)
            assert (index._vectors is not None) == kept
            assert [h.chunk_id for h in found] == exact
            assert [h.cosine for h in found] == pytest.approx([cosine[i] for i in exact], abs=1e-6)
            bounded, ranked = index.bounded
            assert bounded == 1480 and ranked < 300  # the 20 in the log are ranked exactly, unbounded
        if not kept:
            # another process folds the log after this index read its parts: the code parts it
            # rewrote are newer than the index's, so their chunks are ranked exactly
            async with conn.transaction():
                await vector_store.fold_log(conn)
            query = _unit(rng, 1)[0]
            _, cosine = await _brute_force(conn, query)
            with index._lock:
                candidates = index._could_be_nearest(query, np.array(chats, dtype=np.int64), 10)
                assert set(chats[:20]) <= set(candidates) and len(candidates) < 600
                assert [h.chunk_id for h in index._nearest_of(query, candidates, 10)] == \
                    sorted(chats, key=lambda i: -cosine[i])[:10]
                # one chunk in eight: no code part holds CODES_FROM of them, all are ranked exactly
                scattered = np.array(chats[::8], dtype=np.int64)
                assert index._could_be_nearest(query, scattered, 10) == scattered.tolist()
        index.close()


async def _codes_agree(conn) -> None:
    """Every code part holds, for its ids, exactly the current vectors' bytes (Bytes.of of the
    float vectors in the store), and the code parts hold the same ids as the sign bits' parts."""
    from storage.vectors.codes import Bytes

    gen = await vector_store.generation(conn)
    async with conn.execute("SELECT chunk_id, vector FROM chunk_embeddings WHERE generation = ? ORDER BY chunk_id",
                            (gen,)) as cur:
        rows = await cur.fetchall()
    async with conn.execute("SELECT part, ids, codes, terms FROM vector_codes ORDER BY part") as cur:
        parts = await cur.fetchall()
    async with conn.execute("SELECT ids FROM vector_parts ORDER BY part") as cur:
        signed = np.concatenate([np.frombuffer(r[0], dtype="<i8") for r in await cur.fetchall()] or [np.zeros(0, dtype=np.int64)])
    held = np.concatenate([np.frombuffer(p[1], dtype="<i8") for p in parts] or [np.zeros(0, dtype=np.int64)])
    assert held.tolist() == [r[0] for r in rows] == signed.tolist()
    for part, ids_blob, codes, terms in parts:
        ids = np.frombuffer(ids_blob, dtype="<i8")
        assert all(i >> vector_store.CODE_BITS == part for i in ids)
        expected = Bytes.of(np.stack([np.frombuffer(blob, dtype=np.float32) for cid, blob in rows if cid in set(ids.tolist())]))
        got = Bytes.from_blobs(codes, terms)
        for name in ("codes", "scales", "norms", "errors"):
            assert np.array_equal(getattr(got, name), getattr(expected, name)), name


async def test_the_code_parts_follow_the_float_vectors(tmp_path: Path, monkeypatch):
    """Through inserts, replacements, deletions, folds, a rebuild and a new generation, the
    bytes on disk are those of the current float vectors, part by part."""
    monkeypatch.setattr(vector_store, "FOLD_ROWS", 50)
    monkeypatch.setattr(vector_store, "CODE_BITS", 4)  # parts of 16 ids: many, some emptied
    rng = np.random.default_rng(12)
    path = tmp_path / "s.sqlite3"
    async with _store_at(path) as conn:
        first = await _new_chunks(conn, 120, tag="a")
        await _store(conn, first[:70], _unit(rng, 70))
        await _store(conn, first[70:], _unit(rng, 50))
        await _store(conn, first[10:30], _unit(rng, 20))  # replaced
        async with conn.transaction():
            await vector_store.withhold(conn, first[40:60])  # a whole part and more lose their vectors
            await vector_store.fold_log(conn)
        await _codes_agree(conn)
        second = await _new_chunks(conn, 40, tag="b")
        await _store(conn, second, _unit(rng, 40))
        async with conn.transaction():
            await conn.execute("DELETE FROM documents WHERE identity = 'a'")
            await vector_store.fold_log(conn)
        await _codes_agree(conn)
        async with conn.transaction():
            assert await vector_store.rebuild_parts(conn) == 40
        await _codes_agree(conn)
        async with conn.transaction():
            await vector_store.start_generation(conn)
        await _codes_agree(conn)  # none: the new generation has no vectors yet
        await _store(conn, second[:5], _unit(rng, 5))
        async with conn.transaction():
            await vector_store.fold_log(conn)
        await _codes_agree(conn)


async def test_an_older_store_gets_its_code_parts_from_the_migration(tmp_path: Path):
    """A store from before migration 182 has its code parts built from its float vectors."""
    rng = np.random.default_rng(13)
    path = tmp_path / "s.sqlite3"
    async with _store_at(path) as conn:
        await _folded(conn, rng, 50)
        async with conn.transaction():
            await conn.execute("DROP TABLE vector_codes")
            await conn.execute("DELETE FROM _migrations WHERE number = 182")
    async with open_database(path) as conn:
        await _codes_agree(conn)


@pytest.mark.parametrize("kept", [True, False], ids=["vectors kept in memory", "code parts read from the store"])
async def test_a_filter_of_up_to_an_eighth_of_the_store_is_exact_while_bytes_bound_it(tmp_path: Path, monkeypatch, kept):
    """Past the cap on float vectors ranked unbounded (`exact_below`), a filter keeping at most
    BOUNDED_SHARE of the store is still searched exactly when bytes bound all but that many of
    its chunks; a broader one, or (one-shot) one too scattered for the code parts, takes the
    sign bits' short list."""
    _code_parts_of(monkeypatch, 6)  # parts of 64 ids
    rng = np.random.default_rng(14)
    path = tmp_path / "s.sqlite3"
    async with _store_at(path) as conn:
        chats, notes = await _chats_and_others(conn, 300)
        more = await _new_chunks(conn, 2100, tag="more")
        await _store(conn, chats + notes + more, _unit(rng, 2700))
        async with conn.transaction():
            await vector_store.fold_log(conn)
        index = VectorIndex(path)
        if kept:
            index.keep_vectors()
        where = chunk_store.ChunkFilter(kinds=("chat",))  # 300 of 2,700: 11%
        for query in _unit(rng, 4):
            _, cosine = await _brute_force(conn, query)
            index.bounded = (0, 0)
            # (one-shot, the parts at either end hold 63 and 45 chats: 108 ranked unbounded)
            found = index.search(query, shortlist=8, depth=10, where=where, exact_below=120)
            assert [h.chunk_id for h in found] == sorted(chats, key=lambda i: -cosine[i])[:10]
            assert index.bounded[0] >= 192
        with index._lock:
            broad = np.array(sorted(chats + notes), dtype=np.int64)  # 22%
            assert not index._boundable(broad, 120)
            scattered = np.array(more[::8], dtype=np.int64)  # 263 chunks, a few in each part
            assert index._boundable(scattered, 120) == kept
            assert index._boundable(np.array(chats, dtype=np.int64), 120)
            assert index._boundable(np.array(chats, dtype=np.int64), 100) == kept
        index.close()


@pytest.mark.parametrize("spread", [1, 10**9], ids=["dense ids: marks", "sparse ids: binary search"])
def test_membership_is_numpys(spread):
    rng = np.random.default_rng(15)
    ids = np.unique(rng.integers(1, 50_000, 20_000)) * spread
    allowed = np.sort(rng.choice(ids, 3_000, replace=False))
    probe = np.concatenate([ids, allowed + 1, [0]])
    assert np.array_equal(index_module._member(probe, allowed), np.isin(probe, allowed))
    assert not index_module._member(probe, allowed[:0]).any() and len(index_module._member(probe[:0], allowed)) == 0


@pytest.mark.parametrize("codes", [True, False], ids=["from the code parts", "from the float vectors"])
async def test_kept_vectors_are_the_float_vectors_bytes(tmp_path: Path, monkeypatch, codes):
    """A process that keeps the vectors loads the code parts' bytes (the same snapshot as the
    sign bits' parts), or rounds the float vectors itself where the code parts do not hold a
    part's ids: the same bytes either way, Bytes.of of the float vectors in id order."""
    from storage.vectors.codes import Bytes

    _code_parts_of(monkeypatch, 6)
    rng = np.random.default_rng(16)
    path = tmp_path / "s.sqlite3"
    async with _store_at(path) as conn:
        ids = await _folded(conn, rng, 300)
        async with conn.transaction():
            await vector_store.withhold(conn, ids[100:140])  # a gap across part boundaries
            await vector_store.fold_log(conn)
            if not codes:
                await conn.execute("DELETE FROM vector_codes WHERE part = 2")
        async with conn.execute("SELECT vector FROM chunk_embeddings ORDER BY chunk_id") as cur:
            expected = Bytes.of(np.stack([np.frombuffer(r[0], dtype=np.float32) for r in await cur.fetchall()]))
        index = VectorIndex(path)
        index.keep_vectors()
        with monkeypatch.context() as patch:
            if codes:  # nothing rounded here: the bytes come from the store
                patch.setattr(Bytes, "of", classmethod(lambda cls, matrix: pytest.fail("rounded again")))
            index.refresh()
        for name in ("codes", "scales", "norms", "errors"):
            assert np.array_equal(getattr(index._vectors, name), getattr(expected, name)), name
        await _agrees(conn, index, rng)
        index.close()


@pytest.mark.parametrize("rows", ["scattered", "one run", "none"])
def test_the_kept_vectors_dots_are_the_widened_vectors_products(rows):
    """Bytes.dots (gathered and widened a block at a time, scaled after the product) gives what
    widening every row and multiplying gives, across several blocks."""
    from storage.vectors import codes as codes_module
    from storage.vectors.codes import Bytes

    rng = np.random.default_rng(31)
    matrix = rng.standard_normal((3 * codes_module.BOUND_BLOCK + 17, 384)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    kept = Bytes.of(matrix)
    at = {"scattered": np.sort(rng.choice(len(matrix), 2_500, replace=False)),
          "one run": np.arange(40, 40 + 2 * codes_module.BOUND_BLOCK + 5), "none": np.zeros(0, dtype=np.int64)}[rows]
    query = rng.standard_normal(384).astype(np.float32)
    expected = kept.rows(at).widened() @ query
    got = kept.dots(query, at)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", ["whole runs", "runs partly held", "scattered", "outside", "one", "none held", "none asked"])
def test_positions_are_numpys_binary_search(case):
    """_positions (runs of ids placed by their ends) answers what np.searchsorted does: where
    each id is among the held ids, clipped to their rows, and whether it is held there."""
    rng = np.random.default_rng(40)
    held = np.unique(np.concatenate([np.arange(100, 3000), rng.integers(5000, 9000, 800)]))
    held = held[(held % 97) != 3]  # gaps inside the long run
    ids = {"whole runs": np.concatenate([np.arange(200, 290), np.arange(400, 1500)]),
           "runs partly held": np.arange(50, 3100),
           "scattered": np.unique(rng.integers(0, 10_000, 2_000)),
           "outside": np.arange(9_500, 9_700),
           "one": np.array([101]),
           "none held": np.arange(10, 20),
           "none asked": np.zeros(0, dtype=np.int64)}[case].astype(np.int64)
    if case == "none held":
        held = held[:0]
    at, found = index_module._positions(held, ids)
    expected = np.minimum(np.searchsorted(held, ids), max(len(held) - 1, 0))
    assert np.array_equal(found, np.isin(ids, held))
    assert np.array_equal(at[found], expected[found])
    assert np.array_equal(held[at[found]], ids[found])


def test_a_code_part_is_one_run_only_when_its_ids_are():
    blob = np.arange(1024, 2048, dtype="<i8").tobytes()
    assert index_module._one_run(blob, 1024, 2047)
    assert not index_module._one_run(blob, 1024, 2048) and not index_module._one_run(blob, 1025, 2047)
    gapped = np.concatenate([np.arange(1024, 1500), np.arange(1501, 2049)]).astype("<i8").tobytes()
    assert not index_module._one_run(gapped, 1024, 2048) and not index_module._one_run(gapped, 1024, 2047)


@pytest.mark.parametrize("n", [51, 700, 20_000])
def test_the_best_lower_bounds_are_the_largest(n):
    """_best finds the depth largest (the sampled floor never drops one), ties included."""
    rng = np.random.default_rng(41)
    for low in (rng.standard_normal(n).astype(np.float32), np.round(rng.standard_normal(n), 1).astype(np.float32)):
        best = index_module._best(low, 50)
        assert len(best) == len(set(best.tolist())) == 50
        assert np.array_equal(np.sort(low[best]), np.sort(low)[-50:])
        assert index_module._threshold(low, 50) == np.sort(low)[-50]


@pytest.mark.parametrize("rows", ["all", "one run", "scattered", "none"])
def test_code_dots_are_the_widened_codes_products(rows):
    """code_dots (widened a block at a time into buffers the thread keeps) gives each row's
    codes @ q as widening all and multiplying does, into `out` too, in several threads at once."""
    from concurrent.futures import ThreadPoolExecutor

    from storage.vectors import codes as codes_module

    rng = np.random.default_rng(42)
    codes = rng.integers(-127, 128, size=(2 * codes_module.BOUND_BLOCK + 300, 384), dtype=np.int8)
    at = {"all": None, "one run": slice(100, 100 + codes_module.BOUND_BLOCK + 7),
          "scattered": np.sort(rng.choice(len(codes), 1_500, replace=False)), "none": np.zeros(0, dtype=np.int64)}[rows]
    queries = rng.standard_normal((6, 384)).astype(np.float32)
    expected = [(codes if at is None else codes[at]).astype(np.float64) @ q for q in queries]
    with ThreadPoolExecutor(3) as pool:
        got = list(pool.map(lambda q: codes_module.code_dots(codes, q, at), queries))
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-3)
    out = np.full(len(expected[0]), np.nan, dtype=np.float32)
    assert codes_module.code_dots(codes, queries[0], at, out=out) is out
    np.testing.assert_allclose(out, expected[0], rtol=1e-5, atol=1e-3)


def test_the_bounds_hold_the_exact_cosine_and_sqlite_vecs():
    """Every row's exact cosine (float64) and sqlite-vec's (float32, as the ranking reads it)
    lie within the float32 bounds, for unit rows, rows of other lengths, near-duplicates of the
    query and a row of length 0 (never left out)."""
    import sqlean

    from storage.db import load_sqlite_vec
    from storage.vectors.codes import Bytes

    rng = np.random.default_rng(43)
    query = rng.standard_normal(384).astype(np.float32)
    rows = rng.standard_normal((3_000, 384)).astype(np.float32)
    rows[:1000] /= np.linalg.norm(rows[:1000], axis=1, keepdims=True)
    rows[1000:1010] = query + 1e-3 * rng.standard_normal((10, 384)).astype(np.float32)
    rows[1010] = -query
    rows[1011] = 0
    rows[1012:1100] *= rng.uniform(1e-3, 1e3, (88, 1)).astype(np.float32)
    kept = Bytes.of(rows)
    low, high = kept.bounds(query * 3, np.arange(len(rows)))  # any length: bounded as a unit vector
    assert low.dtype == high.dtype == np.float32
    unit_query = query.astype(np.float64) / np.linalg.norm(query.astype(np.float64))
    lengths = np.linalg.norm(rows.astype(np.float64), axis=1)
    exact = rows.astype(np.float64) @ unit_query / np.where(lengths > 0, lengths, 1)
    live = lengths > 0
    assert np.all(low[live] <= exact[live]) and np.all(exact[live] <= high[live])
    assert low[1011] == -np.inf and high[1011] == np.inf
    conn = sqlean.connect(":memory:")
    load_sqlite_vec(conn)
    blob = query.astype("<f4").tobytes()
    vec = np.array([conn.execute("SELECT 1 - vec_distance_cosine(?, ?)", (r.astype("<f4").tobytes(), blob)).fetchone()[0]
                    for r in rows[:1100][live[:1100]]])
    assert np.all(low[:1100][live[:1100]] <= vec) and np.all(vec <= high[:1100][live[:1100]])
    assert float(np.max(high[live] - low[live])) < 0.05  # and they are bounds worth having
    conn.close()


@pytest.mark.parametrize("kept", [True, False], ids=["vectors kept in memory", "code parts read from the store"])
async def test_a_filter_keeping_part_of_each_code_part_is_exact(tmp_path: Path, monkeypatch, kept):
    """A filter that keeps half of every code part's chunks (one-shot: those rows gathered from
    each part read, not the part widened whole; kept: placed one by one, not by runs), with
    changes in the log and vectors tied with one another: NumPy's brute force, ties in id
    order, with far fewer ranked exactly than bounded."""
    _code_parts_of(monkeypatch, 8)  # parts of 256 ids
    rng = np.random.default_rng(44)
    path = tmp_path / "s.sqlite3"
    async with _store_at(path) as conn:
        chats, notes = await _chats_and_others(conn, 1200)
        ids = sorted(chats + notes)
        vectors = _unit(rng, len(ids))
        vectors[40:60] = vectors[40]  # twenty chunks with one vector: tied, ranked by id
        await _store(conn, ids, vectors)
        async with conn.transaction():
            await vector_store.fold_log(conn)
            # every other chunk a chat: each code part holds 128 of the filter's
            await conn.executemany("UPDATE chunks SET document_id = (SELECT id FROM documents WHERE identity = ?) WHERE id = ?",
                                   [("chats" if i % 2 else "others", cid) for i, cid in enumerate(ids)])
        index = VectorIndex(path)
        if kept:
            index.keep_vectors()
        index.refresh()
        await _store(conn, ids[:30:2], _unit(rng, 15))  # replaced since the parts: in the log
        where = chunk_store.ChunkFilter(kinds=("chat",))
        async with conn.execute("SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.kind = 'chat'") as cur:
            allowed = sorted(r[0] for r in await cur.fetchall())
        queries = [*_unit(rng, 5), vectors[40] + 0.01 * rng.standard_normal(DIM).astype(np.float32)]
        queries = [q / np.linalg.norm(q) for q in queries]
        for query in queries:
            _, cosine = await _brute_force(conn, query)
            # nearest first, then by id: the tied share one cosine
            exact = sorted(allowed, key=lambda i: (-cosine[i], i))[:30]
            found = index.search(query, shortlist=8, depth=30, where=where, exact_below=5_000)
            assert [h.chunk_id for h in found] == exact
            assert [h.cosine for h in found] == pytest.approx([cosine[i] for i in exact], abs=1e-6)
            if query is queries[-1]:  # the tied chats lead, in id order
                tied = sorted(set(ids[40:60]) & set(allowed))
                assert len(tied) == 10 and exact[:10] == tied
            bounded, ranked = index.bounded
            assert bounded >= 1150 and ranked < bounded // 3
        index.close()


def test_a_run_of_ids_is_found_in_the_parts_by_its_ends():
    held = np.concatenate([np.arange(10, 500), np.arange(501, 900)]).astype(np.int64)
    run = index_module._held_run(held, np.arange(20, 400))
    assert run == slice(10, 390) and np.array_equal(held[run], np.arange(20, 400))
    assert index_module._held_run(held, np.arange(450, 550)) is None  # 500 is not held
    assert index_module._held_run(held, np.arange(880, 901)) is None  # past the last
    assert index_module._held_run(held, np.array([20, 22, 23])) is None  # not a run
    assert index_module._held_run(held, np.arange(5, 12)) is None
    assert index_module._held_run(held, np.zeros(0, dtype=np.int64)) is None
    assert index_module._held_run(held[:0], np.arange(3)) is None


async def test_a_filters_ids_are_read_sorted_whatever_order_the_index_gives(tmp_path: Path):
    """The filter's ids come in the order of the index SQLite scans (a period: by time), not by
    id: they are handed on sorted, the chunks the filter keeps and only those."""
    rng = np.random.default_rng(45)
    path = tmp_path / "s.sqlite3"
    async with _store_at(path) as conn:
        days = rng.permutation(600)
        async with conn.transaction():
            doc = await document_store.insert_document(
                conn, kind="chat", name="c.txt", identity="c", source_path=None, content_hash=None,
                byte_size=None, raw_path=None)
            await chunk_store.insert_chunks(conn, [chunk_store.ChunkRecord(
                document_id=doc, ordinal=i, char_start=i, char_end=i + 1, text=f"w {i}",
                time_start=f"{np.datetime64('2020-01-01') + int(d)}T10:00:00Z",
                time_end=f"{np.datetime64('2020-01-01') + int(d)}T11:00:00Z", speakers=("ana",) if i % 3 else ("teo",), identity=f"c|{i}", text_hash=f"c-{i}")
                for i, d in enumerate(days)])
        async with conn.execute("SELECT id, time_start, speakers FROM chunks ORDER BY id") as cur:
            rows = await cur.fetchall()
        index = VectorIndex(path)
        period = chunk_store.ChunkFilter(since="2020-03-01T00:00:00Z", until="2020-12-31T23:59:59Z")
        expected = [cid for cid, start, _ in rows if "2020-03-01" <= start[:10] <= "2020-12-31"]
        got = index._filtered_ids(period)
        assert got.tolist() == expected and 250 < len(expected) < 350
        got = index._filtered_ids(chunk_store.ChunkFilter(speakers=("teo",)))
        assert got.tolist() == [cid for cid, _, speakers in rows if "teo" in json.loads(speakers)]
        assert len(index._filtered_ids(chunk_store.ChunkFilter(speakers=("nobody",)))) == 0
        index.close()


async def test_an_encrypted_store_is_bounded_from_its_code_parts(tmp_path: Path, monkeypatch):
    """The code parts of an encrypted store are read through SQLCipher's codec, and a one-shot
    filtered search bounded by them is NumPy's brute force all the same."""
    import os

    from storage.encryption import StoreKey

    _code_parts_of(monkeypatch, 8)
    key = StoreKey(database=os.urandom(32), files=os.urandom(32), check=os.urandom(32))
    rng = np.random.default_rng(46)
    path = tmp_path / "s.sqlite3"
    async with open_database(path, key=key) as conn:
        async with conn.transaction():
            await set_meta(conn, "embedding_dim", str(DIM))
        chats, notes = await _chats_and_others(conn, 800)
        await _store(conn, chats + notes, _unit(rng, 1600))
        async with conn.transaction():
            await vector_store.fold_log(conn)
        index = VectorIndex(path, key=key)
        for query in _unit(rng, 3):
            _, cosine = await _brute_force(conn, query)
            found = index.search(query, shortlist=8, depth=10, where=chunk_store.ChunkFilter(kinds=("chat",)), exact_below=5_000)
            assert [h.chunk_id for h in found] == sorted(chats, key=lambda i: -cosine[i])[:10]
            assert index.bounded[0] >= 700
        index.close()
    assert b"SQLite format 3" not in path.read_bytes()[:16]
