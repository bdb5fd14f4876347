"""What the memory server adds to a search: the same hybrid queries in-process and through the API.

    python bench/latency.py build /tmp/lat100k --chunks 100000     # the synthetic store, once
    python bench/api_latency.py /tmp/lat100k --runs 200

Over one synthetic store (bench/latency.py), each query is timed four ways, interleaved so noise
hits all alike: `Memory.search` (the in-process call the CLI and bots make); `MemoryApi.search`
(the same plus what the server's core adds: the client's scope, saved-record versions, the
"words or meaning only" check); REST (`POST /v1/search` with httpx to the real server on
localhost); and MCP (the SDK's client calling the `search` tool over Streamable HTTP). Client and
server share one event loop and the machine's two cores, so the HTTP figures include the client's
own work. Query embeddings come from a deterministic stand-in (a seeded random unit vector per
text, microseconds), so the model's time, the same on every path, does not hide the difference.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import httpx2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.latency import DIM, SEED, VOCAB, vocabulary  # noqa: E402
from bot.server.run import serving  # noqa: E402
from core.config import Settings  # noqa: E402
from core.importers import ImportContext  # noqa: E402
from core.memory.facade import Memory  # noqa: E402
from bot.compose import Facets  # noqa: E402
from core.service.parts import Parts  # noqa: E402
from storage.db import open_database  # noqa: E402


class StandIn:
    """The store's recorded model name, and a random unit vector per text (seeded by the text)."""

    name, dim, remote = "synthetic-random", DIM, False

    def embed(self, texts, *, query=False):
        out = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha1(text.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
            out.append(v / np.linalg.norm(v))
        return np.stack(out)


def queries(n: int) -> list[str]:
    rng = np.random.default_rng(SEED + 1)
    words = np.array(vocabulary(np.random.default_rng(SEED)))
    return [" ".join([*words[rng.integers(100, 2000, size=int(rng.integers(2, 5)))],
                      *words[rng.integers(2000, VOCAB, size=int(rng.integers(1, 3)))]]) for _ in range(n)]


def summary(ms: list[float]) -> dict:
    ms = sorted(ms)
    return {"p50_ms": round(statistics.median(ms), 2), "p95_ms": round(ms[int(round(0.95 * (len(ms) - 1)))], 2)}


async def run(path: Path, runs: int, warmup: int) -> dict:
    from mcp import Client as McpClient
    from mcp.client.streamable_http import streamable_http_client

    settings = Settings(data_dir=path, api_rate_per_minute=10**9)
    timings: dict[str, list[float]] = {"in_process": [], "api_search_in_process": [], "rest": [], "mcp": []}
    async with open_database(path / "biographer.sqlite3") as conn:
        memory = Memory(conn, embedder=StandIn(), raw_dir=path / "raw",
                        context=ImportContext(timezone=ZoneInfo("UTC"), owner_aliases=frozenset()))
        service = Facets.over(Parts(memory=memory)).serving
        token = (await service.clients.add(f"bench-{time.time_ns()}", operations=("search",))).token
        client = await service.clients.authenticate(f"Bearer {token}")
        headers = {"Authorization": f"Bearer {token}"}
        async with serving(service, settings, host="127.0.0.1", port=0) as url, \
                httpx.AsyncClient(base_url=url, headers=headers) as http, \
                McpClient(streamable_http_client(f"{url}/mcp", http_client=httpx2.AsyncClient(headers=headers))) as mcp:
            for i, q in enumerate(queries(runs + warmup)):
                started = time.perf_counter()
                direct = await service.memory.search(q, limit=10)
                t1 = time.perf_counter()
                scoped = await service.memory_api.search(client, q, limit=10)
                t2 = time.perf_counter()
                rest = (await http.post("/v1/search", json={"query": q, "limit": 10})).json()
                t3 = time.perf_counter()
                tool = (await mcp.call_tool("search", {"query": q, "limit": 10})).structured_content
                t4 = time.perf_counter()
                assert [str(h.locator) for h in direct] == [h["locator"] for h in rest["results"]]
                assert tool == rest and len(scoped.results) == len(direct)
                if i >= warmup:
                    for key, ms in zip(timings, ((t1 - started), (t2 - t1), (t3 - t2), (t4 - t3))):
                        timings[key].append(ms * 1000)
    base = timings["in_process"]
    out = {"store": str(path), "runs": runs, **{k: summary(v) for k, v in timings.items()}}
    for key in ("api_search_in_process", "rest", "mcp"):
        out[f"{key}_added_p50_ms"] = round(statistics.median(b - a for a, b in zip(base, timings[key])), 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path, help="a store made by `python bench/latency.py build PATH`")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    args = ap.parse_args()
    print(json.dumps(asyncio.run(run(args.path, args.runs, args.warmup))))


if __name__ == "__main__":
    main()
