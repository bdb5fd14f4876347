"""The conformance corpus: real exports from public repositories through `biographer ingest`,
compared with what independent readers (`bench/conformance_readers.py`) find in them.

For each file of tests/conformance/manifest.json it runs the CLI as a user would (a fresh data
folder, `--no-index`, BIOGRAPHER_TIMEZONE=UTC so zone-less exports read as UTC), takes the
messages back with `biographer export`, and checks:
- entries: what Biographer kept plus what its summary says it left out equals the number of
  entries the format defines in the file;
- spot checks: messages from the middle of the file are there with their sender, time and words.

    python -m bench.conformance                 # every file present (copied ones and the cache)
    python -m bench.conformance --redistributable --workers 2
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "conformance"
MANIFEST = CORPUS / "manifest.json"
FILES = CORPUS / "files"
# counts as core/words.counted writes them: "1 document", "2,040 messages"
_SUMMARY = re.compile(r"added ([\d,]+) documents? \(([\d,]+) chunks?, ([\d,]+) messages?\); skipped ([\d,]+) already "
                      r"imported(?:, ([\d,]+) messages? already stored)?", re.I)
_LEFT_OUT = re.compile(r"left out ([^;\n]*)")
#: reasons in the summary that are not entries of the file
_NOT_ENTRIES = {"conversations with no messages", "conversation with no messages"}


def cache_dir() -> Path:
    """Where files whose licence does not allow copying are kept, outside the repository."""
    configured = os.environ.get("BIOGRAPHER_CONFORMANCE_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "biographer-conformance"


def copied(item: dict) -> bool:
    """In the repository: the licence allows it and the file is not one of the few big ones
    (`"copy": false`) that stay in the cache like the others."""
    return item["redistributable"] and item.get("copy", True)


def target_path(item: dict) -> Path:
    return (FILES if copied(item) else cache_dir()) / item["id"]


def locate(item: dict) -> Path | None:
    path = target_path(item)
    return path if path.exists() else None


def load_manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


@dataclass
class Outcome:
    item: dict
    kept: list[dict] = field(default_factory=list)
    left_out: int = 0
    left_out_why: str = ""
    errors: list[str] = field(default_factory=list)
    spot_held: int = 0
    spot_failed: list[str] = field(default_factory=list)

    @property
    def expected(self) -> int:
        return 0 if self.item.get("refused_with") else self.item["expected"]["entries"]

    @property
    def seen(self) -> int:
        return len(self.kept) + self.left_out

    @property
    def exact(self) -> bool:
        refusal = self.item.get("refused_with")  # a damaged file: the error it must get
        if refusal:
            return self.seen == 0 and any(refusal in e for e in self.errors)
        return self.seen == self.expected and not self.spot_failed and not self.errors

    @property
    def open_fault(self) -> bool:
        return bool(self.item.get("verdict", {}).get("open_fault"))

    def disagreement(self) -> str:
        parts = []
        if self.seen != self.expected:
            parts.append(f"entries: expected {self.expected}, Biographer kept {len(self.kept)}"
                         + (f" and left out {self.left_out} ({self.left_out_why})" if self.left_out else ""))
        parts += [f"spot check {s}" for s in self.spot_failed]
        parts += [f"error: {e}" for e in self.errors]
        return "; ".join(parts)


def _biographer() -> list[str]:
    script = Path(sys.executable).parent / "biographer"
    return [str(script)] if script.exists() else [sys.executable, "-c", "from bot.cli import main; main()"]


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BIOGRAPHER_")}
    env.update(BIOGRAPHER_DATA_DIR=str(data_dir), BIOGRAPHER_TIMEZONE="UTC")
    return env


def _ingest(paths: list[Path], data_dir: Path) -> tuple[int, str, list[str], int]:
    """Left-out count (entries only), its reasons, the errors of one `ingest` call, and how many
    documents or messages it found already stored."""
    done = subprocess.run([*_biographer(), "--data-dir", str(data_dir), "ingest", "--no-index", *map(str, paths)],
                          capture_output=True, text=True, env=_env(data_dir), cwd=ROOT, timeout=600)
    errors = [line.removeprefix("error: ") for line in done.stderr.splitlines() if line.startswith("error: ")]
    summary = _SUMMARY.search(done.stdout)
    if not summary:
        errors.append(f"no summary (exit {done.returncode}): {done.stderr.strip()[-300:]}")
    repeated = _number(summary[4]) + _number(summary[5] or "0") if summary else 0
    left_out, why = 0, ""
    match = _LEFT_OUT.search(done.stdout)
    if match:
        why = match[1].strip()
        for count, reason in re.findall(r"(\d[\d,]*) ([^,]+)", why):
            if reason.strip() not in _NOT_ENTRIES:
                left_out += _number(count)
    return left_out, why, errors, repeated


def _number(text: str) -> int:
    return int(text.replace(",", ""))


class ExportFailed(Exception):
    """`biographer export` could not read the messages back."""


def _export(data_dir: Path) -> dict[str, list[dict]]:
    """Messages by the path they were imported from."""
    out = data_dir / "export"
    done = subprocess.run([*_biographer(), "--data-dir", str(data_dir), "export", str(out)],
                          capture_output=True, text=True, env=_env(data_dir), cwd=ROOT, timeout=600)
    if done.returncode:
        raise ExportFailed(done.stderr.strip()[-300:] or done.stdout.strip()[-300:])
    paths = {}
    for line in (out / "data" / "sources.jsonl").read_text(encoding="utf-8").splitlines():
        source = json.loads(line)
        paths[source["id"]] = source.get("source_path") or ""
    by_path: dict[str, list[dict]] = defaultdict(list)
    for line in (out / "data" / "messages.jsonl").read_text(encoding="utf-8").splitlines():
        message = json.loads(line)
        by_path[paths.get(message["document_id"], "")].append(message)
    return by_path


def _words(text: str) -> set[str]:
    return {w.casefold() for w in re.findall(r"\w+", text)}


def _spot(outcome: Outcome) -> None:
    # the reader's checks, and any written by hand for what a count cannot see (kept across refreshes)
    for check in outcome.item["expected"]["spot"] + outcome.item.get("spot_by_hand", []):
        wanted = {w.casefold() for w in check["words"]}
        for message in outcome.kept:
            if check.get("sender") and (message.get("sender") or "").casefold() not in {
                    name.casefold() for name in check["sender"]}:
                continue
            if check.get("time") and message.get("time") != check["time"]:
                continue
            if check.get("kind") and message.get("kind") != check["kind"]:  # e.g. a notice: "system"
                continue
            if wanted <= _words(message.get("text") or ""):
                outcome.spot_held += 1
                break
        else:
            outcome.spot_failed.append(json.dumps(check, ensure_ascii=False))


def _alone(item: dict, path: Path) -> Outcome:
    """One file in a data folder of its own: for files that share an e-mail's Message-ID or a
    chat's messages with another file of their batch (the store keeps such things once)."""
    outcome = Outcome(item)
    with tempfile.TemporaryDirectory(prefix="conformance-alone-") as tmp:
        outcome.left_out, outcome.left_out_why, outcome.errors, _ = _ingest([path], Path(tmp))
        try:
            outcome.kept = [m for ms in _export(Path(tmp)).values() for m in ms]
        except ExportFailed as error:
            outcome.errors.append(f"export failed: {error}")
    _spot(outcome)
    return outcome


def _run_share(items: list[tuple[dict, Path]], batch: int = 8) -> list[Outcome]:
    """Files go in by batches (one process start each, the costly part); a batch whose summary
    says something was left out is imported again file by file into a second folder, only to
    learn each file's share of it; one that found something already stored, file by file alone."""
    with tempfile.TemporaryDirectory(prefix="conformance-") as tmp:
        data_dir, probe_dir = Path(tmp) / "data", Path(tmp) / "probe"
        outcomes = {item["id"]: Outcome(item) for item, _ in items}
        alone: set[str] = set()
        for start in range(0, len(items), batch):
            group = items[start:start + batch]
            left_out, why, errors, repeated = _ingest([path for _, path in group], data_dir)
            if repeated:
                for item, path in group:
                    outcomes[item["id"]] = _alone(item, path)
                    alone.add(item["id"])
                continue
            for item, path in group:
                outcomes[item["id"]].errors = [e for e in errors if e.startswith(path.name + ":")
                                               or not any(e.startswith(p.name + ":") for _, p in group)]
            if left_out and len(group) == 1:
                outcomes[group[0][0]["id"]].left_out, outcomes[group[0][0]["id"]].left_out_why = left_out, why
            elif left_out:
                for item, path in group:
                    outcome = outcomes[item["id"]]
                    outcome.left_out, outcome.left_out_why, _, _ = _ingest([path], probe_dir)
        try:
            by_path = _export(data_dir)
        except ExportFailed as error:
            by_path = {}
            for outcome in outcomes.values():
                outcome.errors.append(f"export failed: {error}")
        for item, path in items:
            if item["id"] in alone:
                continue
            outcome = outcomes[item["id"]]
            prefix = str(path) + os.sep
            outcome.kept = [m for p, ms in by_path.items() if p == str(path) or p.startswith(prefix) for m in ms]
            _spot(outcome)
        return list(outcomes.values())


def run(items: list[dict], *, workers: int = 2) -> list[Outcome]:
    """Each file through the CLI; files are shared among `workers` data folders, each file's
    messages told apart by the path they were imported from."""
    present = [(item, locate(item)) for item in items]
    present = [(item, path) for item, path in present if path is not None]
    present.sort(key=lambda pair: pair[0]["format"])  # batches of one format leave out alike
    shares = [present[k::workers] for k in range(workers)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = [o for share in pool.map(_run_share, [s for s in shares if s]) for o in share]
    order = {item["id"]: n for n, (item, _) in enumerate(present)}
    return sorted(results, key=lambda o: order[o.item["id"]])


def table(outcomes: list[Outcome]) -> str:
    rows = defaultdict(lambda: [0, 0, 0, 0, 0, 0, set()])
    for o in outcomes:
        row = rows[o.item["format"]]
        row[0] += 1
        row[1] += o.exact
        row[2] += o.expected
        row[3] += o.seen
        row[4] += o.spot_held
        row[5] += len(o.item["expected"]["spot"]) + len(o.item.get("spot_by_hand", []))
        row[6].add(o.item["repo"])
    lines = ["| format | files | repositories | exact | entries expected | kept + left out | spot checks held |",
             "|---|---|---|---|---|---|---|"]
    total = [0, 0, 0, 0, 0, 0, set()]
    for fmt in sorted(rows):
        r = rows[fmt]
        lines.append(f"| {fmt} | {r[0]} | {len(r[6])} | {r[1]} | {r[2]} | {r[3]} | {r[4]}/{r[5]} |")
        for k in range(6):
            total[k] += r[k]
        total[6] |= r[6]
    lines.append(f"| **all** | {total[0]} | {len(total[6])} | {total[1]} | {total[2]} | {total[3]} | "
                 f"{total[4]}/{total[5]} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redistributable", action="store_true", help="only the files copied into the repository")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--format", help="only this format")
    args = parser.parse_args(argv)
    items = [i for i in load_manifest()["files"]
             if (not args.redistributable or copied(i)) and (not args.format or i["format"] == args.format)]
    absent = sum(1 for i in items if locate(i) is None)
    started = time.perf_counter()
    outcomes = run(items, workers=args.workers)
    elapsed = time.perf_counter() - started
    print(table(outcomes))
    exact = sum(o.exact for o in outcomes)
    print(f"\n{exact}/{len(outcomes)} files exact ({100 * exact / max(len(outcomes), 1):.1f} %), "
          f"{absent} listed files absent (not in {cache_dir()}); {elapsed:.0f} s with {args.workers} workers")
    disagreements = [o for o in outcomes if not o.exact]
    if disagreements:
        print("\nDisagreements:")
    for o in disagreements:
        verdict = o.item.get("verdict", {}).get("text", "no verdict recorded")
        print(f"- {o.item['id']}: {o.disagreement()}\n  verdict: {verdict}")
    for o in outcomes:
        if o.exact and o.open_fault:
            print(f"- {o.item['id']}: now exact, but its verdict records an open fault: update the manifest")
    return 0 if all(o.exact or o.open_fault for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
