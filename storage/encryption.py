"""The store's secret and what it locks: the key file beside the store, the keys derived from the
owner's passphrase, and the sealed files (kept copies, the inbox, backups' kept copies).

- **Derivation.** The passphrase is stretched with scrypt (N=2^17, r=8, p=1: about 128 MB and
  most of a second, OWASP's recommended minimum) over a random 16-byte salt, into a 32-byte master
  key; HKDF-SHA256 splits that into independent keys: one for SQLCipher (given raw, as
  `x'..'`, so SQLCipher's own PBKDF2 does not run again on every connection), one for files, and
  a check value kept in the key file, so a wrong passphrase is told apart before anything is read.
- **Key file.** `DATA_DIR/encryption.json`: the salt, scrypt's costs, the check value and the
  state (`encrypted`, or `encrypting`/`decrypting` while a conversion runs). It holds no secret:
  without the passphrase nothing can read the store.
- **Imports.** `cryptography` is imported on first use: a store in the clear never loads it.
- **Sealed files.** AES-256-GCM in chunks of 64 KiB (memory stays flat for a file of any size):
  a header (magic, 8 random bytes), then each chunk with its 16-byte tag, under the nonce
  random||counter, its additional data marking the last chunk, so a file cut short or chunks
  reordered fail to open.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO

from core.errors import UserFacingError
from storage.permissions import private_file

KEY_FILE = "encryption.json"
NEXT_KEY_FILE = "encryption.next.json"  # the new passphrase's, while a change of passphrase runs
ENCRYPTED, ENCRYPTING, DECRYPTING, CHANGING = "encrypted", "encrypting", "decrypting", "changing"
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**17, 8, 1
MAGIC = b"BIOGSEAL"  # the first bytes of every sealed file
CHUNK = 64 * 1024
_TAG = 16
_HEADER = len(MAGIC) + 8
_FORMAT = 1


class WrongStoreKey(UserFacingError):
    """The passphrase given does not open this store."""


@dataclass(frozen=True)
class StoreKey:
    """The keys derived from the passphrase. Never printed: its repr shows nothing of them."""
    database: bytes = field(repr=False)  # SQLCipher's raw key
    files: bytes = field(repr=False)  # AES-256-GCM for sealed files
    check: bytes = field(repr=False)

    def pragma_value(self) -> str:
        """The key as SQLCipher's PRAGMA key takes a raw key."""
        return f"\"x'{self.database.hex()}'\""


@dataclass(frozen=True)
class Retired:
    """A passphrase the store no longer opens with, known by its salt: a backup copied away
    before the change still has it, and is told apart by it."""
    salt: bytes
    replaced_at: str  # when it was changed (UTC, ISO 8601)


@dataclass(frozen=True)
class KeyFile:
    salt: bytes
    check: str  # hex digest that the right key reproduces
    state: str
    n: int = SCRYPT_N
    r: int = SCRYPT_R
    p: int = SCRYPT_P
    retired: tuple[Retired, ...] = ()

    def with_state(self, state: str) -> KeyFile:
        return replace(self, state=state)

    def replacing(self, old: KeyFile, *, at: str) -> KeyFile:
        """This key file as the one that took over from `old`, whose passphrase is retired."""
        return replace(self, state=ENCRYPTED, retired=(*old.retired, Retired(old.salt, at)))

    def retired_at(self, salt: bytes) -> str | None:
        return next((r.replaced_at for r in self.retired if r.salt == salt), None)


def derive(passphrase: str, salt: bytes, *, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P) -> StoreKey:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    master = hashlib.scrypt(passphrase.encode("utf-8"), salt=salt, n=n, r=r, p=p,
                            maxmem=2 * 128 * n * r * p, dklen=32)

    def part(info: bytes) -> bytes:
        return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(master)

    return StoreKey(database=part(b"biographer sqlcipher"), files=part(b"biographer files"),
                    check=part(b"biographer check"))


def _check_value(key: StoreKey) -> str:
    return hashlib.sha256(key.check).hexdigest()


def new_key_file(passphrase: str, *, state: str) -> tuple[KeyFile, StoreKey]:
    salt = secrets.token_bytes(16)
    n = SCRYPT_N  # read now, not when the module loaded: the key file records it (tests stretch less)
    key = derive(passphrase, salt, n=n)
    return KeyFile(salt=salt, check=_check_value(key), state=state, n=n), key


def unlock(key_file: KeyFile, passphrase: str) -> StoreKey:
    """The keys for `key_file`, or WrongStoreKey when the passphrase is not the one it was made with."""
    key = derive(passphrase, key_file.salt, n=key_file.n, r=key_file.r, p=key_file.p)
    if not hmac.compare_digest(_check_value(key), key_file.check):
        raise WrongStoreKey("that key does not open this store",
                            hint="give the passphrase the store was encrypted with (BIOGRAPHER_STORE_KEY, "
                                 "the OS keyring or the prompt); without it nothing can read the store")
    return key


def read_key_file(folder: Path, name: str = KEY_FILE) -> KeyFile | None:
    """The key file in `folder` (a data folder or a backup's); None: what is there is not encrypted."""
    path = folder / name
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return KeyFile(salt=bytes.fromhex(data["salt"]), check=data["check"], state=data["state"],
                       n=int(data["n"]), r=int(data["r"]), p=int(data["p"]),
                       retired=tuple(Retired(bytes.fromhex(r["salt"]), str(r["replaced_at"]))
                                     for r in data.get("retired", ())))
    except (ValueError, KeyError, TypeError) as error:
        raise UserFacingError(f"{path} cannot be read ({error})",
                              hint="restore it from a backup folder (each holds a copy); it holds no secret") from None


def write_key_file(folder: Path, key_file: KeyFile, name: str = KEY_FILE) -> Path:
    data = {"format": _FORMAT, "kdf": "scrypt", "n": key_file.n, "r": key_file.r, "p": key_file.p,
            "salt": key_file.salt.hex(), "check": key_file.check, "state": key_file.state,
            "cipher": {"database": "SQLCipher 4 (AES-256-CBC, HMAC-SHA512)", "files": "AES-256-GCM, 64 KiB chunks"}}
    if key_file.retired:
        data["retired"] = [{"salt": r.salt.hex(), "replaced_at": r.replaced_at} for r in key_file.retired]
    path = folder / name
    partial = _new_partial(path)
    with partial.open("w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    partial.replace(path)
    return path


def _new_partial(target: Path) -> Path:
    """A new, empty, owner-only `.part` beside `target`. One left by a killed run is removed, never
    opened: it may be a hard link to `target` itself (kept copies are linked into backups), and
    writing it would empty the very file being read."""
    partial = target.with_name(target.name + ".part")
    partial.unlink(missing_ok=True)
    return private_file(partial)


# ---------------------------------------------------------------- sealed files

def is_sealed(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(len(MAGIC)) == MAGIC


def _nonce(prefix: bytes, counter: int) -> bytes:
    return prefix + counter.to_bytes(4, "big")


class Sealer:
    """Seals what is written to it into `target`, as it arrives (an upload streamed to disk);
    `close` writes the last chunk and must be called once everything is written."""

    def __init__(self, target: BinaryIO, key: bytes) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        self._target, self._aes, self._prefix = target, AESGCM(key), secrets.token_bytes(8)
        self._header = MAGIC + self._prefix
        self._counter, self._pending = 0, bytearray()
        target.write(self._header)

    def write(self, data: bytes) -> None:
        self._pending += data
        # a full chunk is written only once more follows: the last one is marked as such
        while len(self._pending) > CHUNK:
            self._emit(bytes(self._pending[:CHUNK]), last=False)
            del self._pending[:CHUNK]

    def close(self) -> None:
        self._emit(bytes(self._pending), last=True)
        self._pending.clear()

    def _emit(self, chunk: bytes, *, last: bool) -> None:
        self._target.write(self._aes.encrypt(_nonce(self._prefix, self._counter), chunk,
                                             self._header + (b"\x01" if last else b"\x00")))
        self._counter += 1


def seal_stream(source: BinaryIO, target: BinaryIO, key: bytes) -> None:
    sealer = Sealer(target, key)
    while block := source.read(CHUNK):
        sealer.write(block)
    sealer.close()


def open_stream(source: BinaryIO, key: bytes, *, name: str) -> Iterator[bytes]:
    """The plaintext of a sealed stream, chunk by chunk; a wrong key or a changed, cut or reordered
    file raises WrongStoreKey before the chunk concerned is given out."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    header = source.read(_HEADER)
    if header[:len(MAGIC)] != MAGIC or len(header) != _HEADER:
        raise UserFacingError(f"{name} is not a sealed file", hint="it was not written by an encrypted store")
    aes, prefix = AESGCM(key), header[len(MAGIC):]
    counter, block = 0, source.read(CHUNK + _TAG)
    while True:
        following = source.read(CHUNK + _TAG)
        last = not following
        try:
            yield aes.decrypt(_nonce(prefix, counter), block, header + (b"\x01" if last else b"\x00"))
        except InvalidTag:
            raise WrongStoreKey(f"{name} cannot be opened with this key (a wrong key, or the file was changed)",
                                hint="give the store's passphrase; a changed file can be taken from a backup") from None
        if last:
            return
        counter, block = counter + 1, following


def opens_with(path: Path, key: bytes) -> bool:
    """Whether the sealed file at `path` is sealed with `key` (its first chunk alone is opened)."""
    with path.open("rb") as f:
        try:
            next(open_stream(f, key, name=path.name))
        except WrongStoreKey:
            return False
    return True


def _write_through_partial(target: Path, write: Callable[[BinaryIO], None]) -> Path:
    """`write` fills a `.part` beside `target`, which is synced and renamed over `target` when
    complete; on any failure the `.part` is removed, so no half-written file is left or seen."""
    partial = _new_partial(target)
    try:
        with partial.open("wb") as dst:
            write(dst)
            dst.flush()
            os.fsync(dst.fileno())
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(target)
    return target


def reseal_file(path: Path, old: bytes, new: bytes) -> Path:
    """`path`, sealed with `old`, sealed with `new` in its place (the plaintext is never on disk)."""
    def write(dst: BinaryIO) -> None:
        with path.open("rb") as src:
            sealer = Sealer(dst, new)
            for block in open_stream(src, old, name=path.name):
                sealer.write(block)
            sealer.close()
    return _write_through_partial(path, write)


def seal_file(source: Path, target: Path, key: bytes) -> Path:
    """Write `source` sealed to `target` (0600)."""
    def write(dst: BinaryIO) -> None:
        with source.open("rb") as src:
            seal_stream(src, dst, key)
    return _write_through_partial(target, write)


def unseal_file(source: Path, target: Path, key: bytes) -> Path:
    def write(dst: BinaryIO) -> None:
        with source.open("rb") as src:
            for block in open_stream(src, key, name=source.name):
                dst.write(block)
    return _write_through_partial(target, write)


def seal_bytes(data: bytes, key: bytes) -> bytes:
    import io

    out = io.BytesIO()
    seal_stream(io.BytesIO(data), out, key)
    return out.getvalue()


def unseal_bytes(data: bytes, key: bytes, *, name: str) -> bytes:
    import io

    return b"".join(open_stream(io.BytesIO(data), key, name=name))
