"""The conformance corpus's redistributable part through `biographer ingest`, as a user runs it.

Every file must come out exact (kept + left out = the independent reader's count, and every spot
check found), unless its manifest verdict records an open Biographer fault; see
tests/conformance/README.md and `python -m bench.conformance` for the whole corpus.
"""

from __future__ import annotations

from functools import cache

import pytest

from bench.conformance import FILES, Outcome, copied, load_manifest, run, target_path
from bench.conformance_readers import READERS

MANIFEST = load_manifest()
COPIED = [item for item in MANIFEST["files"] if copied(item)]


@cache
def outcomes() -> dict[str, Outcome]:
    """One run for the whole module: the CLI is started once per batch of files, not per test."""
    return {o.item["id"]: o for o in run(COPIED, workers=2)}


def test_every_entry_says_where_it_comes_from_and_what_to_expect() -> None:
    ids = [item["id"] for item in MANIFEST["files"]]
    assert len(ids) == len(set(ids))
    for item in MANIFEST["files"]:
        assert item["repo"].count("/") == 1 and item["path"] and len(item["commit"]) == 40, item["id"]
        assert item["licence"] and item["format"] in READERS, item["id"]
        assert item["expected"]["entries"] >= 1 or item.get("refused_with"), item["id"]
        if copied(item):
            assert target_path(item).exists(), f"{item['id']}: listed as copied but absent from {FILES}"
        if "verdict" in item:
            assert item["verdict"]["fault"] in ("biographer", "reader", "file") and item["verdict"]["text"]


def test_no_file_under_files_is_left_out_of_the_manifest() -> None:
    listed = {target_path(item) for item in COPIED}
    on_disk = {p for p in FILES.glob("*/*/*")}
    assert on_disk <= listed, sorted(map(str, on_disk - listed))[:5]


@pytest.mark.parametrize("item", COPIED, ids=[item["id"] for item in COPIED])
def test_real_export_imports_as_its_format_defines_it(item: dict) -> None:
    outcome = outcomes()[item["id"]]
    if outcome.open_fault:
        if outcome.exact:
            pytest.xfail(f"now exact: update the verdict in the manifest ({item['verdict']['text'][:80]})")
        pytest.xfail(f"open Biographer fault: {item['verdict']['text']}")
    assert outcome.exact, outcome.disagreement()
