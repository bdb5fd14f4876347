"""Reading zip exports safely: bounded member count and size, no path escaping, cp437 names fixed.

Exports arrive as zips (WhatsApp with media, Discord's package, Takeout parts). A zip is read member
by member; a member is extracted only when a parser needs a real file (a voice note for the
transcriber, a PDF for pypdf), and always under a folder the caller owns.
"""

from __future__ import annotations

import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

from core.errors import ImportFailed
from core.words import counted

#: A life's WhatsApp-with-media or Discord package stays far below these; a zip bomb does not.
MAX_MEMBERS = 200_000
MAX_TOTAL_BYTES = 32 * 1024**3
#: deflate compresses ordinary files at most ~20:1; bombs reach thousands
MAX_RATIO = 200
_RATIO_FLOOR = 1 << 20  # small members may compress extremely well (runs of spaces); ignore them

ZIP_MAGIC = b"PK\x03\x04"


def zip_holds(path: Path, head: bytes, find: Callable[[zipfile.ZipFile], object | None]) -> bool:
    """Whether `path` is a zip in which `find` finds what an importer reads (for a sniff: a
    damaged zip is no match here; opening it for real says what is wrong with it)."""
    if not head.startswith(ZIP_MAGIC):
        return False
    try:
        with zipfile.ZipFile(path) as archive:
            return find(archive) is not None
    except (zipfile.BadZipFile, OSError):
        return False


def member_name(info: zipfile.ZipInfo) -> str:
    """The member's real name: zips without the UTF-8 flag get cp437-decoded by Python."""
    if info.flag_bits & 0x800:
        return info.filename
    try:
        return info.filename.encode("cp437").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return info.filename


def open_zip(path: Path) -> zipfile.ZipFile:
    """Open a zip and refuse it before reading anything if it is too big to be an export."""
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as error:
        raise ImportFailed(path.name, f"is not a readable zip ({error})",
                           hint="download or export the archive again") from None
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        archive.close()
        raise ImportFailed(path.name, f"holds {counted(len(infos), 'file')}, more than {MAX_MEMBERS:,}",
                           hint="unzip it and import the folders you need")
    total = sum(info.file_size for info in infos)
    if total > MAX_TOTAL_BYTES:
        archive.close()
        raise ImportFailed(path.name, f"would unpack to {total / 1024**3:.1f} GB, over the limit",
                           hint="unzip it yourself and import the files you need")
    for info in infos:
        if info.file_size > _RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            archive.close()
            raise ImportFailed(path.name, f"member {member_name(info)!r} is compressed "
                               f"{info.file_size // max(info.compress_size, 1):,}:1 (a zip bomb?)",
                               hint="this is not an export Biographer will unpack")
    return archive


def copy_member_to(archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path) -> Path:
    """Copy one member to an exact path chosen by the caller: a member's own name (`../../x`, `/etc/x`)
    is never used as a path, so nothing in an archive can land outside the import's folder."""
    with archive.open(info) as source, target.open("wb") as sink:
        shutil.copyfileobj(source, sink, 1 << 20)
    return target
