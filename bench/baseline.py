"""The simplest exact hybrid search a user could write, for comparison in bench/latency.py: every
float vector in one NumPy matrix (exact cosine), FTS5 bm25 for the keywords, the two halves one
after the other, then the same fusion (core/memory/ranking.py) and chunk reads as Biographer."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import sqlean

from core.memory import ranking
from storage.keyword.query import keyword_query
from storage.chunks import StoredChunk

HYBRID_DEPTH, SEMANTIC_DEPTH = 100, 50  # the same candidate depths as core/memory/search.py


class NumpyBaseline:
    def __init__(self, path: Path, *, keyword: bool = True) -> None:
        self.conn = sqlean.connect(str(path))
        self.conn.execute("PRAGMA cache_size=-65536")  # the same page cache as Biographer's
        ids, blobs = [], []
        for cid, blob in self.conn.execute("SELECT chunk_id, vector FROM chunk_embeddings ORDER BY chunk_id"):
            ids.append(cid)
            blobs.append(blob)
        self.ids = np.array(ids, dtype=np.int64)
        self.matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), -1).copy()
        del blobs

    def semantic(self, vector: np.ndarray, *, depth: int) -> list[tuple[int, float]]:
        similarity = self.matrix @ vector
        top = np.argpartition(-similarity, depth)[:depth]
        top = top[np.argsort(-similarity[top])]
        return [(int(self.ids[i]), float(similarity[i])) for i in top]

    def keyword(self, query: str, *, depth: int) -> list[tuple[int, float]]:
        match = keyword_query(query)
        rows = self.conn.execute(
            "SELECT rowid, bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?",
            (match, depth)).fetchall()
        return [(cid, -score) for cid, score in rows]

    def chunks(self, ids: list[int]) -> dict[int, StoredChunk]:
        rows = self.conn.execute(
            f"""SELECT c.id, c.document_id, d.name, d.kind, c.char_start, c.char_end, c.text,
                       c.time_start, c.time_end, c.speakers
                FROM chunks c JOIN documents d ON d.id = c.document_id
                WHERE c.id IN ({','.join('?' * len(ids))})""", ids).fetchall()
        return {r[0]: StoredChunk(*r[:9], speakers=tuple(json.loads(r[9]))) for r in rows}

    def search(self, query: str, vector: np.ndarray, *, limit: int, mode: str = "hybrid") -> list[str]:
        """Texts of the results, best first."""
        if mode == "keyword":
            ranked = self.keyword(query, depth=limit)
        elif mode == "semantic":
            ranked = self.semantic(vector, depth=limit)
        if mode != "hybrid":
            rows = self.chunks([cid for cid, _ in ranked])
            return [rows[cid].text for cid, _ in ranked if cid in rows]
        semantic = self.semantic(vector, depth=max(SEMANTIC_DEPTH, limit * 5))
        keyword = self.keyword(query, depth=max(HYBRID_DEPTH, limit * 5))
        rows = self.chunks(list(dict.fromkeys([c for c, _ in keyword] + [c for c, _ in semantic])))
        groups, _ = ranking.rank(query, keyword, semantic, rows, limit=limit)
        return ["\n".join(rows[c].text for c in sorted(g, key=lambda c: rows[c].char_start)) for g in groups]
