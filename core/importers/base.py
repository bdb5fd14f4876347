"""The importer interface: sniff a file, parse it into SourceDocuments. No store access here."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol
from zoneinfo import ZoneInfo

from core.ports import Describer, Transcriber

if TYPE_CHECKING:
    from core.types import SourceDocument

#: how many bytes of a file importers get to recognise it
HEAD_BYTES = 64 * 1024

#: English month names and abbreviations, lower case -> number (old WhatsApp headers, journals)
MONTH_NUMBERS = {name: number for number, names in enumerate((
    ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
    ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
    ("oct", "october"), ("nov", "november"), ("dec", "december")), start=1) for name in names}


@contextmanager
def system_scratch(prefix: str) -> Iterator[Path]:
    """A private folder in the system's temporary folder (where no data folder is known)."""
    with tempfile.TemporaryDirectory(prefix=f"biographer-{prefix}") as folder:
        yield Path(folder)


@dataclass(frozen=True)
class ImportContext:
    """What importers may know about the owner and the machine."""

    timezone: ZoneInfo = ZoneInfo("UTC")  # for formats that carry local time without a zone
    owner_aliases: frozenset[str] = frozenset()  # lower-cased names, numbers, handles, ids
    transcriber: Transcriber | None = None
    describer: Describer | None = None  # vision model for photos; None: photos are skipped
    spelling_hints: Sequence[str] = field(default_factory=tuple)
    # a private folder for the length of a `with` block (an archive unpacked while it is read): the
    # memory's, inside the data folder (storage/uploads.py); the system's temporary folder without one
    scratch: Callable[[str], AbstractContextManager[Path]] = field(default=system_scratch)

    def is_owner(self, *names: str | None) -> bool:
        return any(n is not None and n.strip().lower() in self.owner_aliases for n in names)

    def owns(self, sender: str, sender_id: str | None) -> bool:
        """Whether a stored sender is one of the owner's aliases: by name, by id, or by a
        Telegram id without its `user` prefix (the forms the importers compare)."""
        bare = sender_id.removeprefix("user") if sender_id else None
        return self.is_owner(sender, sender_id, bare)


class Importer(Protocol):
    """What every importer is (importers inherit the capability defaults from ImporterBase)."""

    name: str  # the source kind it produces, e.g. "whatsapp"
    #: an export whose voice notes and photos lie in its folder and are read with it (unzipped
    #: WhatsApp, Telegram Desktop): a folder walk leaves those files to it, not importing them twice
    reads_media_beside: bool
    #: suffixes of files an export keeps beside its main file only to display itself (the style
    #: sheet and script of Telegram's HTML export): a folder walk skips them, quietly
    companion_suffixes: frozenset[str]

    def sniff(self, path: Path, head: bytes) -> bool:
        """True if this importer recognises the file from its name and first bytes."""
        ...

    def parse(self, path: Path, context: ImportContext) -> Iterator[SourceDocument]:
        """Yield the documents in the file (a full-account export yields many).

        Raise ImportFailed with a clear reason for a file that is recognised but broken.
        """
        ...


def read_head(path: Path) -> bytes:
    with path.open("rb") as f:
        return f.read(HEAD_BYTES)


class ImporterBase:
    """The capability flags' defaults: an importer says what it can do by overriding them."""

    reads_media_beside: ClassVar[bool] = False
    companion_suffixes: ClassVar[frozenset[str]] = frozenset()
