"""LoCoMo retrieval benchmark: one store per conversation, then the harness's evidence recall for
each search mode beside its built-in BM25 baseline.

    python bench/locomo.py            # build missing stores, run every mode, print the table
    python bench/locomo.py --rebuild  # rebuild the stores first
    python bench/locomo.py --model multilingual-e5-small   # another embedding model (its own stores)
    python bench/locomo.py --convs 5-9  # held out: the conversations ranking was not tuned on (0-4)
    python bench/locomo.py --modes hybrid --biographer ../main/.venv/bin/biographer  # another build

The eval folder is read in place (../shared/eval/locomo); stores go to bench/stores/<sample_id>
and the harness's raw output to bench/out/ (both git-ignored).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# beside the checkout (../shared), or beside the folder of worktrees (../../shared)
EVAL = next((p / "shared" / "eval" / "locomo" for p in (ROOT.parent, ROOT.parent.parent)
             if (p / "shared" / "eval" / "locomo").is_dir()), ROOT.parent / "shared" / "eval" / "locomo")
STORES = ROOT / "bench" / "stores"
OUT = ROOT / "bench" / "out"
BIOGRAPHER = str(Path(sys.executable).with_name("biographer"))
MODES = ("hybrid", "keyword", "semantic")
ROW = re.compile(r"^(\d \S+|all excl\. adversarial|all)\s+(\d+)\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+(\d+)"
                 r"\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+(\d+)\s+([\d.]+)", re.M)


def build(stores: Path, rebuild: bool) -> None:
    for export in sorted((EVAL / "exports").iterdir()):
        store = stores / export.name
        if rebuild and store.exists():
            shutil.rmtree(store)
        if (store / "biographer.sqlite3").exists():
            continue
        subprocess.run([BIOGRAPHER, "--data-dir", str(store), "ingest", str(export)], check=True)


def questions(convs: str) -> Path:
    """qa.jsonl, or the questions of conversations FIRST-LAST (0-9) in a file of their own."""
    if not convs:
        return EVAL / "qa.jsonl"
    first, last = (int(n) for n in convs.split("-"))
    path = OUT / f"qa-{first}-{last}.jsonl"
    items = [json.loads(line) for line in (EVAL / "qa.jsonl").read_text().splitlines() if line.strip()]
    # the harness reads each export beside its qa file: point at them where they are
    kept = [{**it, "export": str(EVAL / it["export"])} for it in items if first <= it["conv"] <= last]
    path.write_text("".join(json.dumps(it, ensure_ascii=False) + "\n" for it in kept))
    return path


def harness(name: str, args: list[str], qa: Path) -> dict[str, tuple]:
    out = subprocess.run([sys.executable, str(EVAL / "recall.py"), "--qa", str(qa), "--k", "5,10", *args],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    (OUT / f"locomo-{name}.txt").write_text(out)
    return {m[1]: (int(m[2]), float(m[3]), int(m[4]), float(m[5]), int(m[6]), float(m[7]))
            for m in ROW.finditer(out)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--model", default="", help="BIOGRAPHER_EMBEDDING_MODEL for these stores "
                                                "(default: the store default; stores in bench/stores-MODEL)")
    ap.add_argument("--convs", default="", help="only conversations FIRST-LAST, e.g. 5-9 (held out) or 0-4")
    ap.add_argument("--modes", default=",".join(MODES), help="search modes to run (default: all three)")
    ap.add_argument("--biographer", default=BIOGRAPHER, help="the biographer command to measure")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    qa = questions(args.convs)
    tag = f"-{args.convs}" if args.convs else ""
    stores = STORES.with_name(f"stores-{args.model}") if args.model else STORES
    if args.model:
        os.environ["BIOGRAPHER_EMBEDDING_MODEL"] = args.model  # the CLI runs below inherit it
    build(stores, args.rebuild)
    results = {"bm25 baseline": harness(f"baseline{tag}", ["--baseline", "bm25"], qa)}
    store = (stores / "{sample_id}").relative_to(ROOT)
    for mode in args.modes.split(","):
        results[mode] = harness((f"{mode}-{args.model}" if args.model else mode) + tag, [
            "--batch", "--cmd",
            f"{args.biographer} --data-dir {store} search --json --mode {mode} --limit {{k}} --queries {{queries}}"], qa)
    first = next(iter(results.values()))
    rows = list(first)
    print("| category | n | " + " | ".join(f"{name} r@5 / r@10" for name in results) + " |")
    print("|---|---|" + "---|" * len(results))
    for row in rows:
        n = first[row][0]
        cells = [f"{r[row][1]:.3f} / {r[row][3]:.3f}" for r in results.values()]
        print(f"| {row} | {n} | " + " | ".join(cells) + " |")
    print("| chars@10 (all) | | " + " | ".join(f"{r['all'][4]:,}" for r in results.values()) + " |")
    print("| ms per query (all) | | " + " | ".join(f"{r['all'][5]:.1f}" for r in results.values()) + " |")


if __name__ == "__main__":
    main()
