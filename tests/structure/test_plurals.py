"""Counts read as English: "1 passage", "2 passages", never "1 documents" or "passage(s)". One
helper says them (core/words.py); this test holds every message of bot/, core/ and storage/ to it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from core.words import counted, counted_plural, plural_of, singular_of

ROOT = Path(__file__).resolve().parents[2]
# nouns this product counts; a number put straight before one of them is "1 documents" waiting to happen
COUNTED_NOUNS = ("passages", "messages", "documents", "matches", "notices", "sources", "chunks", "events", "items",
                 "records", "files", "lines", "days", "runs", "windows", "conversations", "versions", "backups",
                 "pages", "people", "e-mails", "threads", "chats", "batches", "times", "questions", "edits",
                 "problems", "photos", "copies", "results", "hits", "words", "senders")
# names, not counts, before a counted noun: "Whatsapp sources", "saved 'note' records"
NOT_COUNTS = {"kind", "kind.capitalize()", "note_name(kind.capitalize())"}
_BARE = re.compile(rf"^ ({'|'.join(map(re.escape, COUNTED_NOUNS))})\b")


@pytest.mark.parametrize(("n", "noun", "plural", "expected"), [
    (1, "passage", None, "1 passage"), (0, "passage", None, "0 passages"), (2, "match", None, "2 matches"),
    (1, "match", None, "1 match"), (3, "entry", None, "3 entries"), (2, "day", None, "2 days"),
    (2, "box", None, "2 boxes"), (1, "person", "people", "1 person"), (5, "person", "people", "5 people"),
    (12_345, "message", None, "12,345 messages"), (1, "kept copy", "kept copies", "1 kept copy"),
])
def test_counts_read_as_english(n, noun, plural, expected):
    assert counted(n, noun, plural) == expected


@pytest.mark.parametrize(("plural", "singular"), [
    # what the importers name what they leave out by (IngestReport.skipped and remarks)
    ("notices", "notice"), ("empty messages", "empty message"), ("spam e-mails", "spam e-mail"),
    ("messages with nothing to read", "message with nothing to read"), ("reactions", "reaction"),
    ("events without a readable date", "event without a readable date"), ("matches", "match"),
    ("conversations with no messages", "conversation with no messages"),
    ("deleted or superseded messages", "deleted or superseded message"),
    ("e-mails with no date at all, kept undated", "e-mail with no date at all, kept undated"),
])
def test_a_phrase_named_in_the_plural_has_its_singular(plural, singular):
    assert singular_of(plural) == singular
    assert counted_plural(1, plural) == f"1 {singular}" and counted_plural(2, plural) == f"2 {plural}"
    assert plural_of("match") == "matches"


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if "(s)" in node.value:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value.strip()[:60]!r}")
        if isinstance(node, ast.JoinedStr):
            for before, after in zip(node.values, node.values[1:]):
                if (isinstance(before, ast.FormattedValue) and isinstance(after, ast.Constant)
                        and _BARE.match(after.value) and ast.unparse(before.value) not in NOT_COUNTS):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {{{ast.unparse(before.value)}}}"
                                 f"{after.value[:30]!r}")
    return found


def test_every_count_in_a_message_goes_through_the_one_helper():
    """A number straight before a counted noun in an f-string, or a "(s)" anywhere in a message:
    both are wrong for one of 1 and 2. Log lines are held to it too (they are read by people)."""
    offences = [o for package in ("bot", "core", "storage") for path in sorted((ROOT / package).rglob("*.py"))
                for o in _offences(path)]
    assert offences == []


def test_page_templates_count_through_the_filter():
    templates = ROOT / "bot" / "server" / "page" / "templates"
    bare = re.compile(rf"\}}\}} ?({'|'.join(map(re.escape, COUNTED_NOUNS))})\b")
    offences = [f"{t.name}: {m.group(0)}" for t in sorted(templates.glob("*.html"))
                for m in bare.finditer(t.read_text(encoding="utf-8"))]
    assert offences == []
