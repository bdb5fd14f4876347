"""The life archive evaluation: found@10 of search over one invented life (bench/life_eval/), by
kind of question, for each search mode and for first- and third-person phrasings, on the tuning
half, the held-out half and all.

    python bench/life_eval.py                 # build the store once (bench/stores/life-eval), report
    python bench/life_eval.py --rebuild       # write the archive again and rebuild the store
    python bench/life_eval.py --biographer ../main/.venv/bin/biographer   # another build, same store
    python bench/life_eval.py --model multilingual-e5-small   # another embedding model (its own store)
    python bench/life_eval.py --archive second  # the second life (bench/life_eval/second/), held out whole
    python bench/life_eval.py --archive third   # the third life (bench/life_eval/third/), held out whole
    python bench/life_eval.py --archive fourth  # the fourth life (bench/life_eval/fourth/), held out whole
    python bench/life_eval.py --archive fifth   # the fifth life (bench/life_eval/fifth/), French and English

The second archive was written after the ranking rules were tuned, by someone who had not read them;
it only reports (every question counts as held out) and bench/rules_tune.py never sees it. The third
was written the same way, later, by someone who had read neither the rules nor their account, and
is used the same way. The fifth was written the same way as the fourth (by someone who had read
neither the rules nor any archive's questions, asking in paraphrase); it was measured once, at
f6db755, before anyone tuning read it, and is a tuning set since.

A question is found when every one of its evidence strings is in the text search returned for
it (lower-cased, whitespace collapsed, each result apart), as LoCoMo's harness counts. The
owner's names reach the store as a user sets them: BIOGRAPHER_OWNER_ALIASES.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "life_eval"))  # the data folder beside this script

from questions import QUESTIONS, UNANSWERABLE  # noqa: E402
from write_archive import ARCHIVE, write  # noqa: E402

STORE = ROOT / "bench" / "stores" / "life-eval"
BIOGRAPHER = str(Path(sys.executable).with_name("biographer"))
OWNER_ALIASES = "Inês Duarte,Ines Duarte"
MODES = ("hybrid", "keyword", "semantic")
KINDS = ("date", "who", "single", "current", "combine", "list")
SEP = " \u241e "
HELD_OUT_ONLY = False  # the second archive: nothing tuned on it, so no tuning half


def _module(path: Path):
    spec = importlib.util.spec_from_file_location(f"life_eval_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def use_archive(name: str) -> None:
    """Point the harness at bench/life_eval/NAME/ (second, third): its archive, questions, owner and store."""
    global ARCHIVE, write, QUESTIONS, UNANSWERABLE, OWNER_ALIASES, STORE, HELD_OUT_ONLY
    folder = ROOT / "bench" / "life_eval" / name
    writer, questions = _module(folder / "write_archive.py"), _module(folder / "questions.py")
    ARCHIVE, write, OWNER_ALIASES = writer.ARCHIVE, writer.write, writer.OWNER_ALIASES
    QUESTIONS, UNANSWERABLE, HELD_OUT_ONLY = questions.QUESTIONS, questions.UNANSWERABLE, questions.HELD_OUT_ONLY
    STORE = STORE.with_name(f"life-eval-{name}")


def use_second_archive() -> None:
    """Point the harness at bench/life_eval/second/."""
    use_archive("second")


def norm(text: str) -> str:
    return " ".join(text.lower().split())


def store_for(model: str) -> Path:
    """The store of an embedding model named on the command line (bench/stores-MODEL/life-eval)."""
    return STORE.parent.with_name(f"stores-{model}") / STORE.name if model else STORE


def environment() -> dict[str, str]:
    return {**os.environ, "BIOGRAPHER_OWNER_ALIASES": OWNER_ALIASES}


def build(rebuild: bool) -> None:
    if rebuild or not ARCHIVE.is_dir():
        write()
    if rebuild and STORE.exists():
        shutil.rmtree(STORE)
    if not (STORE / "biographer.sqlite3").exists():
        subprocess.run([BIOGRAPHER, "--data-dir", str(STORE), "ingest", str(ARCHIVE)], check=True, env=environment())


def answers(biographer: str, queries: list[str], mode: str, limit: int) -> list[list[dict]]:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write("\n".join(queries) + "\n")
    try:
        out = subprocess.run([biographer, "--data-dir", str(STORE), "search", "--json", "--mode", mode,
                              "--limit", str(limit), "--queries", f.name],
                             check=True, capture_output=True, text=True, env=environment()).stdout
    finally:
        os.unlink(f.name)
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def found(hits: list[dict], evidence: list[str]) -> bool:
    hay = SEP.join(norm(h["text"]) for h in hits)
    return all(norm(e) in hay for e in evidence)


def half(i: int) -> str:
    """Within each kind, questions alternate: even places tune, odd places are held out."""
    if HELD_OUT_ONLY:
        return "held"
    return "tune" if i % 2 == 0 else "held"


def halves() -> list[str]:
    """Each question's half ("tune" or "held"), in QUESTIONS' order."""
    place: dict[str, int] = defaultdict(int)
    out = []
    for kind, *_ in QUESTIONS:
        out.append(half(place[kind]))
        place[kind] += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--archive", choices=("first", "second", "third", "fourth", "fifth"), default="first",
                    help="first: bench/life_eval/archive (tuned on half); second to fifth: "
                         "bench/life_eval/NAME (written unseen; the fourth not yet read by anyone tuning)")
    ap.add_argument("--biographer", default=BIOGRAPHER)
    ap.add_argument("--model", default="", help="BIOGRAPHER_EMBEDDING_MODEL for the store "
                                                "(default: what auto picks; its store in bench/stores-MODEL)")
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--misses", action="store_true", help="print the hybrid third-person misses")
    args = ap.parse_args()
    global STORE
    if args.archive != "first":
        use_archive(args.archive)
    STORE = store_for(args.model)
    if args.model:
        os.environ["BIOGRAPHER_EMBEDDING_MODEL"] = args.model  # the CLI runs below inherit it
    build(args.rebuild)
    place: dict[str, int] = defaultdict(int)
    halves = []
    for kind, *_ in QUESTIONS:
        halves.append(half(place[kind]))
        place[kind] += 1
    table: dict[tuple[str, str], dict] = {}
    for mode in args.modes.split(","):
        for person, column in (("first", 1), ("third", 2)):
            results = answers(args.biographer, [q[column] for q in QUESTIONS], mode, args.limit)
            hits = [found(r, q[3]) for r, q in zip(results, QUESTIONS)]
            chars = [sum(len(h["text"]) for h in r) for r in results]
            table[(mode, person)] = {"hits": hits, "chars": chars, "results": results}
            if args.misses and mode == "hybrid" and person == "third":
                for q, ok, r in zip(QUESTIONS, hits, results):
                    if not ok:
                        print(f"MISS [{q[0]}] {q[2]} -> {[h['text'][:60] for h in r[:3]]}", file=sys.stderr)
    print("| mode | person | " + " | ".join(KINDS) + " | tuning half | held-out half | all | chars returned |")
    print("|---|---|" + "---|" * (len(KINDS) + 4))
    for (mode, person), row in table.items():
        hits = row["hits"]

        def share(keep) -> str:
            chosen = [h for h, q, hv in zip(hits, QUESTIONS, halves) if keep(q, hv)]
            return f"{sum(chosen)}/{len(chosen)}"

        cells = [share(lambda q, hv, k=k: q[0] == k) for k in KINDS]
        cells += [share(lambda q, hv: hv == "tune"), share(lambda q, hv: hv == "held")]
        print(f"| {mode} | {person} | " + " | ".join(cells)
              + f" | **{sum(hits) / len(hits):.2f}** | {sum(row['chars']) // len(row['chars']):,} |")
    print()
    for person in ("first", "third"):
        listed = table.get(("hybrid", person), {}).get("results", [])
        if not listed:
            continue
        flagged = sum(bool(r and r[0].get("exhaustive_list")) for r, q in zip(listed, QUESTIONS) if q[0] == "list")
        others = sum(bool(r and r[0].get("exhaustive_list")) for r, q in zip(listed, QUESTIONS) if q[0] != "list")
        print(f"list questions flagged exhaustive_list (hybrid, {person} person): "
              f"{flagged}/{sum(q[0] == 'list' for q in QUESTIONS)}; other questions flagged: {others}")
    if "hybrid" in args.modes:
        none = answers(args.biographer, [q[1] for q in UNANSWERABLE], "hybrid", args.limit)
        print(f"unanswerable ({len(UNANSWERABLE)}): mean best score {sum(r[0]['score'] for r in none if r) / len(none):.2f}"
              f" (answerable: {sum(r[0]['score'] for r in table[('hybrid', 'first')]['results'] if r) / len(QUESTIONS):.2f})")


if __name__ == "__main__":
    main()
