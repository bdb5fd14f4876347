"""The owner's own words captured from a chat: voice transcripts and photos become dated journal entries."""

from __future__ import annotations

import hashlib
from datetime import datetime

from core.types import SourceDocument


def journal_document(text: str, *, when: datetime, source: str, note: str = "") -> SourceDocument:
    """A dated journal entry in the owner's words; `source` says where it came from ("voice note")."""
    stamp = when.strftime("%Y-%m-%d %H:%M")
    digest = hashlib.sha1(f"{when.isoformat()}|{text}".encode()).hexdigest()[:16]
    return SourceDocument(kind="journal", name=f"{source.capitalize()} {stamp}",
                          identity=f"journal:{source}:{digest}", text=text, time_start=when, note=note)
