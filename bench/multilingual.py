"""Retrieval in the owner's languages: recall@10 of questions in French, Indonesian, Italian,
Japanese, Korean and Chinese over chats in those languages, with the English-only and the
multilingual embedding model side by side, and keyword search with the old index (FTS5 Porter on
everything) and the new one (storage/keyword/terms.py).

    python bench/multilingual.py --xpersona PATH   # PATH: a checkout of HLTCHKUST/Xpersona

The chats are the first 100 dialogues of each language's test split of XPersona (MIT; the
persona-chat conversations of ConvAI2, translated and corrected by people), each turned into a
WhatsApp export of its own (the owner, Ana, says the first line; a day per dialogue, a minute
per line). The questions are ours (bench/multilingual/questions.json, with their provenance in
bench/multilingual/README.md): each names one line, found when it is in the text of the ten
results. Stores go to bench/stores-multilingual/, raw output to bench/out/.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from storage.keyword.query import ENGLISH_STOP_WORDS as STOP_WORDS  # noqa: E402  (the English list the old index's queries dropped)

QUESTIONS = ROOT / "bench" / "multilingual" / "questions.json"
STORES = ROOT / "bench" / "stores-multilingual"
OUT = ROOT / "bench" / "out"
BIOGRAPHER = str(Path(sys.executable).with_name("biographer"))
MODELS = {"MiniLM": "all-MiniLM-L6-v2-int8", "e5": "multilingual-e5-small"}
START = datetime(2023, 1, 2, 10, 0)


def dialogues(xpersona: Path, language: str, count: int) -> list[list[str]]:
    path = xpersona / "dataset" / f"{language}_persona_split_test_human_annotated.json"
    return [[line for pair in d["dialogue"] for line in pair] for d in json.loads(path.read_text("utf-8"))[:count]]


def write_exports(folder: Path, chats: list[list[str]]) -> None:
    """One WhatsApp (Android) export per dialogue: the owner Ana and a friend, taking turns."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, lines in enumerate(chats):
        friend = f"P{i:03d}"
        day = START + timedelta(days=i)
        text = "".join(f"{(day + timedelta(minutes=n)):%d/%m/%Y, %H:%M} - {'Ana' if n % 2 == 0 else friend}: "
                       f"{' '.join(line.split())}\n" for n, line in enumerate(lines))
        (folder / f"WhatsApp Chat with {friend}.txt").write_text(text, encoding="utf-8")


def environment(model: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.startswith("BIOGRAPHER_")},
            "BIOGRAPHER_EMBEDDING_MODEL": model, "BIOGRAPHER_OWNER_ALIASES": "Ana", "BIOGRAPHER_TIMEZONE": "UTC"}


def build(store: Path, exports: Path, model: str) -> float:
    """Import and embed; seconds taken (once: an existing store is kept)."""
    if (store / "biographer.sqlite3").exists():
        return 0.0
    started = time.perf_counter()
    subprocess.run([BIOGRAPHER, "--data-dir", str(store), "ingest", str(exports)], check=True,
                   env=environment(model), capture_output=True)
    return time.perf_counter() - started


def search(store: Path, model: str, questions: list[str], mode: str) -> list[list[str]]:
    queries = OUT / "multilingual-queries.txt"
    queries.write_text("\n".join(questions) + "\n", encoding="utf-8")
    out = subprocess.run([BIOGRAPHER, "--data-dir", str(store), "search", "--json", "--mode", mode, "--limit", "10",
                          "--queries", str(queries)], check=True, env=environment(model), capture_output=True,
                         text=True).stdout
    return [[hit["text"] for hit in json.loads(line)] for line in out.strip().split("\n")]


def old_keyword(store: Path, questions: list[str]) -> list[list[str]]:
    """The keyword half as it was: FTS5's Porter stemmer on every language, English stop words
    dropped from the query, the words ORed, bm25, ten chunks."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE fts USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')")
    chunks = sqlite3.connect(f"file:{store / 'biographer.sqlite3'}?mode=ro", uri=True)
    db.executemany("INSERT INTO fts (rowid, text) VALUES (?, ?)", chunks.execute("SELECT id, text FROM chunks"))
    answers = []
    for question in questions:
        words = list(dict.fromkeys(w.lower() for w in re.findall(r"\w+", question)))
        kept = [w for w in words if w not in STOP_WORDS] or words
        match = " OR ".join(f'"{w}"' for w in kept)
        answers.append([row[0] for row in db.execute(
            "SELECT text FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 10", (match,))])
    return answers


def found(results: list[str], evidence: str) -> bool:
    wanted = " ".join(evidence.split())
    return any(wanted in " ".join(text.split()) for text in results)


def embedding_cost(store: Path, questions: list[str]) -> dict[str, dict[str, float]]:
    """Milliseconds per chunk (batches of 32 real chunk texts) and per query (one at a time),
    each model in this process, medians of 3 rounds."""
    from bot.compose import build_embedder
    from core.config import Settings
    from core.memory.indexer import embedding_text

    texts = [embedding_text(row[0]) for row in sqlite3.connect(f"file:{store / 'biographer.sqlite3'}?mode=ro", uri=True)
             .execute("SELECT text FROM chunks ORDER BY id LIMIT 64")]
    cost = {}
    for label, model in MODELS.items():
        embedder = build_embedder(Settings(embedding_model=model))
        embedder.embed(texts[:4])  # warm up
        per_chunk, per_query = [], []
        for _ in range(3):
            started = time.perf_counter()
            embedder.embed(texts)
            per_chunk.append((time.perf_counter() - started) / len(texts) * 1000)
            started = time.perf_counter()
            for question in questions:
                embedder.embed([question], query=True)
            per_query.append((time.perf_counter() - started) / len(questions) * 1000)
        cost[label] = {"ms_per_chunk": statistics.median(per_chunk), "ms_per_query": statistics.median(per_query),
                       "chunk_chars": statistics.mean(map(len, texts))}
    return cost


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--xpersona", type=Path, required=True, help="a checkout of HLTCHKUST/Xpersona")
    ap.add_argument("--languages", default="", help="comma-separated, e.g. Fr,Jp (default: all in the question file)")
    args = ap.parse_args()
    spec = json.loads(QUESTIONS.read_text("utf-8"))
    languages = args.languages.split(",") if args.languages else list(spec["languages"])
    OUT.mkdir(parents=True, exist_ok=True)
    columns = ["keyword old", "keyword new", "semantic MiniLM", "semantic e5", "hybrid MiniLM", "hybrid e5"]
    table: dict[str, dict[str, int]] = {}
    sizes: dict[str, int] = {}
    seconds: dict[str, dict[str, float]] = {}
    for language in languages:
        chats = dialogues(args.xpersona, language, spec["dialogues"])
        exports = OUT / "multilingual" / language
        write_exports(exports, chats)
        items = spec["languages"][language]
        questions = [item["question"] for item in items]
        evidence = [chats[item["dialogue"]][item["turn"]] for item in items]
        stores = {label: STORES / label / language for label in MODELS}
        seconds[language] = {label: build(stores[label], exports, model) for label, model in MODELS.items()}
        runs = {"keyword old": old_keyword(stores["MiniLM"], questions),
                "keyword new": search(stores["MiniLM"], MODELS["MiniLM"], questions, "keyword")}
        for label, model in MODELS.items():
            for mode in ("semantic", "hybrid"):
                runs[f"{mode} {label}"] = search(stores[label], model, questions, mode)
        table[language] = {column: sum(found(r, e) for r, e in zip(runs[column], evidence)) for column in columns}
        sizes[language] = len(questions)
        chunks = sqlite3.connect(f"file:{stores['MiniLM'] / 'biographer.sqlite3'}?mode=ro", uri=True)
        print(f"{language}: {chunks.execute('SELECT COUNT(*) FROM chunks').fetchone()[0]} chunks, "
              f"languages {chunks.execute('SELECT language, chunks FROM chunk_languages').fetchall()}, "
              f"build s {seconds[language]}", file=sys.stderr)
    cost = embedding_cost(STORES / "MiniLM" / languages[0], [i["question"] for i in spec["languages"][languages[0]]])
    (OUT / "multilingual.json").write_text(json.dumps({"recall": table, "questions": sizes, "cost": cost,
                                                      "build_seconds": seconds}, indent=1))
    print("| language | questions | " + " | ".join(columns) + " |")
    print("|---|---:|" + "---:|" * len(columns))
    for language in languages:
        print(f"| {language} | {sizes[language]} | "
              + " | ".join(f"{table[language][c] / sizes[language]:.2f}" for c in columns) + " |")
    total = sum(sizes.values())
    print(f"| all | {total} | " + " | ".join(f"{sum(t[c] for t in table.values()) / total:.2f}" for c in columns) + " |")
    for label, figures in cost.items():
        print(f"{label}: {figures['ms_per_chunk']:.1f} ms per chunk ({figures['chunk_chars']:.0f} characters), "
              f"{figures['ms_per_query']:.1f} ms per query")


if __name__ == "__main__":
    main()
