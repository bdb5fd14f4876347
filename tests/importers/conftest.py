"""Shared helpers for importer tests: a context for an owner, and parsing a file to messages."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core.importers import default_importers, pick_importer
from core.importers.base import ImportContext
from core.types import Message, SourceDocument


@pytest.fixture
def context() -> ImportContext:
    return ImportContext(timezone=ZoneInfo("Europe/Lisbon"),
                         owner_aliases=frozenset({"mara lind", "+447700900123", "mara@example.com"}))


def parse_all(path: Path, context: ImportContext) -> list[tuple[SourceDocument, list]]:
    """Parse through the registry (so sniffing is tested too), draining each document in turn."""
    importer = pick_importer(path, default_importers())
    out = []
    for document in importer.parse(path, context):
        messages: list[Message] = list(document.messages) if document.messages is not None else []
        out.append((document, messages))
    return out


def only_messages(path: Path, context: ImportContext) -> list[Message]:
    documents = parse_all(path, context)
    assert len(documents) == 1, [d.name for d, _ in documents]
    return documents[0][1]
