"""The importer interface: sniff a file, parse it into SourceDocuments. No store access here."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol
from zoneinfo import ZoneInfo

from core.ports import Describer, Transcriber
from core.types import SourceDocument

#: how many bytes of a file importers get to recognise it
HEAD_BYTES = 64 * 1024

#: English month names and abbreviations, lower case -> number (old WhatsApp headers, journals)
MONTH_NUMBERS = {name: number for number, names in enumerate((
    ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
    ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
    ("oct", "october"), ("nov", "november"), ("dec", "december")), start=1) for name in names}


@dataclass(frozen=True)
class ImportContext:
    """What importers may know about the owner and the machine."""

    timezone: ZoneInfo = ZoneInfo("UTC")  # for formats that carry local time without a zone
    owner_aliases: frozenset[str] = frozenset()  # lower-cased names, numbers, handles, ids
    transcriber: Transcriber | None = None
    describer: Describer | None = None  # vision model for photos; None: photos are skipped
    spelling_hints: Sequence[str] = field(default_factory=tuple)

    def is_owner(self, *names: str | None) -> bool:
        return any(n is not None and n.strip().lower() in self.owner_aliases for n in names)

    def owns(self, sender: str, sender_id: str | None) -> bool:
        """Whether a stored sender is one of the owner's aliases: by name, by id, or by a
        Telegram id without its `user` prefix (the forms the importers compare)."""
        bare = sender_id.removeprefix("user") if sender_id else None
        return self.is_owner(sender, sender_id, bare)


def reads_media_beside(importer: Importer) -> bool:
    """True for exports whose voice notes and photos lie in their folder and are read with them
    (unzipped WhatsApp, Telegram Desktop; they set `reads_media_beside = True`): a folder walk
    leaves those files to the export instead of importing them twice."""
    return bool(getattr(importer, "reads_media_beside", False))


def companion_suffixes(importer: Importer) -> frozenset[str]:
    """Suffixes of the files an export keeps beside its main file only to display itself (the
    style sheet and script of Telegram's HTML export): a folder walk skips them, quietly."""
    return frozenset(getattr(importer, "companion_suffixes", ()))


class Importer(Protocol):
    name: str  # the source kind it produces, e.g. "whatsapp"

    def sniff(self, path: Path, head: bytes) -> bool:
        """True if this importer recognises the file from its name and first bytes."""
        ...

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        """Yield the documents in the file (a full-account export yields many).

        Raise ImportFailed with a clear reason for a file that is recognised but broken.
        """
        ...


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_head(path: Path) -> bytes:
    with path.open("rb") as f:
        return f.read(HEAD_BYTES)
