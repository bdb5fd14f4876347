"""Put the conformance corpus's files in place from local repository snapshots (never the network).

Each manifest entry names a public repository, a path and a commit. This reads that blob (or
folder) out of a bare snapshot under `--mirror` (default /work/.mirror/OWNER+NAME/repo, as the
project's search tool's `fetch` leaves them) and writes it where `bench/conformance.py` looks:
tests/conformance/files/ for redistributable files, the cache folder for the others.

    python -m bench.conformance_fetch                     # every entry whose file is missing
    python -m bench.conformance_fetch add OWNER/NAME FORMAT LICENCE yes|no PATH...   # new entries
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path, PurePosixPath

from bench.conformance import MANIFEST, cache_dir, target_path

DEFAULT_MIRROR = Path("/work/.mirror")


def git_dir(mirror: Path, repo: str) -> Path:
    base = mirror / repo.replace("/", "+") / "repo"
    return base / ".git" if (base / ".git").is_dir() else base


def git(gdir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={gdir}", *args], check=True, capture_output=True).stdout


def extract(gdir: Path, commit: str, path: str, target: Path, only: str | None = None) -> None:
    """One file, or a folder (`only`: the names in it to take, a glob such as "messages*.html")."""
    if only:
        where = [] if path == "." else [path.rstrip("/") + "/"]
        names = git(gdir, "ls-tree", "--name-only", commit, *where)
        for name in names.decode().splitlines():
            if fnmatch.fnmatch(PurePosixPath(name).name, only):
                out = target / PurePosixPath(name).name
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(git(gdir, "show", f"{commit}:{name}"))
        return
    kind = b"tree" if path == "." else git(gdir, "cat-file", "-t", f"{commit}:{path}").strip()
    target.parent.mkdir(parents=True, exist_ok=True)
    if kind == b"blob":
        target.write_bytes(git(gdir, "show", f"{commit}:{path}"))
        return
    # a folder (a Slack export): its tree as it is at that commit
    archive = git(gdir, "archive", "--format=tar", commit, *([] if path == "." else [path]))
    prefix = PurePosixPath(path)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            relative = PurePosixPath(member.name).relative_to(prefix)
            out = target / Path(*relative.parts)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(tar.extractfile(member).read())


def entry_id(fmt: str, repo: str, path: str) -> str:
    name = PurePosixPath(path).name if path != "." else "export"
    return f"{fmt}/{repo.replace('/', '-')}/{name}"


def add(manifest: dict, mirror: Path, repo: str, fmt: str, licence: str, redistributable: bool,
        paths: list[str], only: str | None = None) -> None:
    gdir = git_dir(mirror, repo)
    commit = git(gdir, "rev-parse", "HEAD").decode().strip()
    known = {item["id"] for item in manifest["files"]}
    for path in paths:
        item = {"id": entry_id(fmt, repo, path), "format": fmt, "repo": repo, "path": path,
                "commit": commit, "licence": licence, "redistributable": redistributable}
        if only:
            item["only"] = only
        if item["id"] in known:
            print(f"already listed: {item['id']}")
            continue
        extract(gdir, commit, path, target_path(item), only)
        manifest["files"].append(item)
        known.add(item["id"])
        print(f"added {item['id']}")


def fetch_missing(manifest: dict, mirror: Path) -> int:
    missing = 0
    for item in manifest["files"]:
        target = target_path(item)
        if target.exists():
            continue
        gdir = git_dir(mirror, item["repo"])
        if not gdir.exists():
            print(f"no snapshot of {item['repo']} under {mirror}: {item['id']} stays absent")
            missing += 1
            continue
        extract(gdir, item["commit"], item["path"], target, item.get("only"))
        print(f"wrote {target}")
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    sub = parser.add_subparsers(dest="command")
    adding = sub.add_parser("add", help="list new files from one repository snapshot")
    adding.add_argument("repo")
    adding.add_argument("format")
    adding.add_argument("licence")
    adding.add_argument("redistributable", choices=["yes", "no"])
    adding.add_argument("paths", nargs="+")
    adding.add_argument("--only", help="in a folder, only the names matching this glob")
    args = parser.parse_args(argv)
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    if args.command == "add":
        add(manifest, args.mirror, args.repo, args.format, args.licence,
            args.redistributable == "yes", args.paths, args.only)
        MANIFEST.write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        return 0
    print(f"cache for files that may not be copied: {cache_dir()}")
    return 1 if fetch_missing(manifest, args.mirror) else 0


if __name__ == "__main__":
    sys.exit(main())
