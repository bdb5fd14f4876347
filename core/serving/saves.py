"""What other agents save into the owner's memory: notes, preferences, decisions, recommendations
and links, each in a section of the agents' own (never among imported sources, never in bio.md).

A saved record is a document like any other, so it is readable by its locator as soon as it is
saved and keyword-searchable at once; it is "searchable" in full once its vectors are in. A retry
with the same idempotency key returns the first record. A correction names the record and the
content hash it expects: if another agent changed it meanwhile, it is refused (Conflict); if not,
the new version becomes current and the old one stays readable as history."""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from urllib.parse import urlsplit

from core.serving.api_errors import Conflict, NotPermitted, no_document, no_record
from core.serving.generations import generation_for
from core.serving.clients import OWNER, Client, saves_allowed_in
from core.dates import parse_bound
from core.errors import UserFacingError
from core.memory.facade import Memory
from core.serving.sections import DEFAULT_SAVE_SECTION, SAVE_KINDS, check_section_name, imported_section
from core.steering import STEERING_REFUSAL, addresses_the_model
from core.types import Locator, SourceDocument
from storage import documents as document_store
from storage import listing
from storage import saves as save_store

MAX_SAVE_CHARS = 20_000
MAX_FIELD_CHARS = 2_000
REPLACES_HINT = "send the record id or the locator that save, read or list gave"
OWNER_ID = OWNER.id  # the owner (the CLI, the page) deletes what any agent saved
LINK_NOT_READ = "(only the address was saved: the page was not fetched or read)"


def passage_hash(text: str) -> str:
    """The content hash the server reports for a passage and checks reads and corrections against."""
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SaveRequest:
    text: str = ""
    kind: str = "note"
    section: str = DEFAULT_SAVE_SECTION
    date: str | None = None  # when it was said or decided (a date filter form or ISO), not when saved
    source: str | None = None  # where it came from: "told to Claude", "e-mail from Maya"
    url: str | None = None
    person: str | None = None  # who recommended it, or whom it concerns
    replaces: str | None = None  # a record id, or a locator of any version of it
    expected_hash: str | None = None  # the current version's hash, required with `replaces`

    def digest(self) -> str:
        return _digest(json.dumps(asdict(self), sort_keys=True, ensure_ascii=False))


@dataclass(frozen=True)
class SavedRecord:
    record: int
    version: int
    locator: Locator
    hash: str
    section: str
    kind: str
    generation: int
    searchable: bool  # its vectors are in: every kind of search finds it
    replayed: bool = False  # a retry: this is the record the first request saved
    replaced: Locator | None = None  # the version this one superseded

    def to_json(self) -> dict:
        return {"record": self.record, "version": self.version, "locator": str(self.locator), "hash": self.hash,
                "section": self.section, "kind": self.kind, "generation": self.generation, "status": "saved",
                "searchable": self.searchable, "replayed": self.replayed,
                "replaced": str(self.replaced) if self.replaced else None}


def compose_text(request: SaveRequest) -> str:
    """The record's text as the store keeps it: the words, then who/where/which link."""
    lines = [request.text.strip()] if request.text.strip() else []
    if request.person:
        lines.append(("Recommended by: " if request.kind == "recommendation" else "Person: ") + request.person.strip())
    if request.url:
        lines.append(f"Link: {request.url.strip()} {LINK_NOT_READ}")
    if request.source:
        lines.append(f"Source: {request.source.strip()}")
    return "\n".join(lines)


def check_request(request: SaveRequest) -> None:
    if request.kind not in SAVE_KINDS:
        raise UserFacingError(f"unknown kind {request.kind!r}", hint=f"use one of {', '.join(SAVE_KINDS)}")
    if not request.text.strip() and not (request.kind == "link" and request.url):
        raise UserFacingError("nothing to save: text is empty", hint="give the text (a link may come with a url alone)")
    if len(request.text) > MAX_SAVE_CHARS:
        raise UserFacingError(f"text is {len(request.text)} characters long", hint=f"save at most {MAX_SAVE_CHARS}")
    for name in ("source", "url", "person"):
        value = getattr(request, name)
        if value is not None and len(value) > MAX_FIELD_CHARS:
            raise UserFacingError(f"{name} is too long", hint=f"at most {MAX_FIELD_CHARS} characters")
    if addresses_the_model(compose_text(request)):
        raise UserFacingError(f"not saved: {STEERING_REFUSAL}",
                              hint="save what the owner told you, in your words, without instructions to a model")
    if request.url and urlsplit(request.url.strip()).scheme not in ("http", "https"):
        raise UserFacingError(f"not a web address: {request.url!r}", hint="give an http:// or https:// URL")
    if request.replaces and not request.expected_hash:
        raise UserFacingError("a correction needs expected_hash",
                              hint="send the hash read, list or search gave for the version you are correcting")
    if request.expected_hash and not request.replaces:
        raise UserFacingError("expected_hash without replaces", hint="name the record you are correcting in replaces")


class SaveBook:
    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.conn = memory.conn
        # saves take turns in this process, so a retry racing its first attempt finds its key
        self._lock = asyncio.Lock()

    async def save(self, client: Client, request: SaveRequest, *, idempotency_key: str | None) -> SavedRecord:
        """Save (or correct) a record. Without a key the request's own content is the key: the
        same save sent twice is still one record."""
        client.require("save")
        section = check_section_name(request.section or DEFAULT_SAVE_SECTION)
        saves_allowed_in(section)
        client.require_section(section)
        check_request(request)
        request_digest = request.digest()
        key_digest = _digest(idempotency_key if idempotency_key else f"content:{request_digest}")
        async with self._lock:
            prior = await save_store.idempotent_save(self.conn, client=client.name, key_digest=key_digest)
            if prior is not None:
                if prior.request_digest != request_digest:
                    raise Conflict("this idempotency key was used for a different save",
                                   hint="use a new key for a new save; reuse a key only to retry the same request")
                return await self._saved(client, prior.document_id, replayed=True)
            current = await self._version_to_replace(client, request, section) if request.replaces else None
            return await self._write(client, request, section, current, key_digest, request_digest)

    async def _version_to_replace(self, client: Client, request: SaveRequest, section: str) -> save_store.SavedVersion:
        record_id = await self._record_named(client, request.replaces or "")
        current = await save_store.current_version(self.conn, record_id)
        if current is None or not client.may_see(current.section):
            raise no_record(record_id)
        if current.section != section:
            raise UserFacingError(f"record {record_id} is in section {current.section!r}, not {section!r}",
                                  hint=f"send section {current.section!r} with the correction")
        if request.kind != current.kind:
            raise UserFacingError(f"record {record_id} is a {current.kind}", hint=f"send kind {current.kind!r}")
        if current.content_hash != request.expected_hash:
            raise Conflict(f"record {record_id} changed since you read it (it is at version {current.version} now)",
                           hint="read the current version, then correct that one",
                           details=self._current_details(current))
        return current

    async def _record_named(self, client: Client, replaces: str) -> int:
        """A record id, or the record a locator's document is a version of. What the client may
        not see reads exactly as what does not exist (no title, no section)."""
        value = replaces.strip()
        if value.isascii() and value.isdigit():
            if len(value) > 18:  # beyond SQLite's integers: no record has such an id
                raise UserFacingError(f"record id {value[:20]}... is too large", hint=REPLACES_HINT)
            return int(value)
        locator = Locator.parse(value)
        versions = await save_store.versions_of_documents(self.conn, [locator.document_id])
        version = versions.get(locator.document_id)
        if version is not None:
            if not client.may_see(version.section):
                raise no_document(locator.document_id)
            return version.record_id
        document = await document_store.get_document(self.conn, locator.document_id)
        if document is None or not client.may_see(imported_section(document.kind)):
            raise no_document(locator.document_id)
        raise NotPermitted(f"doc{locator.document_id} is one of the owner's imported sources; agents never rewrite "
                           "those", hint="save a note about it instead")

    @staticmethod
    def _current_details(current: save_store.SavedVersion) -> dict:
        return {"record": current.record_id, "version": current.version, "hash": current.content_hash,
                "locator": str(version_locator(current))}

    async def _write(self, client: Client, request: SaveRequest, section: str,
                     current: save_store.SavedVersion | None, key_digest: str, request_digest: str) -> SavedRecord:
        now = datetime.now(timezone.utc)
        when = parse_bound(request.date, zone=self.memory.context.timezone, end=False) if request.date else now
        identity = f"agent-save:{_digest(client.name + '|' + key_digest)}"
        document = SourceDocument(
            kind=request.kind, name=f"{request.kind.capitalize()} saved by {client.name}", identity=identity,
            text=compose_text(request), time_start=when,
            note=f"saved through the memory server by client {client.name!r} in section {section!r}")
        stamp = now.isoformat(timespec="seconds")

        async def record_version(document_id: int) -> None:
            """In the document's own transaction: a save is all there or not at all, even killed."""
            written = await self.memory.read(Locator(document_id, 0, 2**62))
            if current is not None:
                latest = await save_store.current_version(self.conn, current.record_id)
                if latest is None or latest.document_id != current.document_id:  # another process was faster
                    raise Conflict(f"record {current.record_id} changed while saving", hint="read it again")
                record_id, version = current.record_id, current.version + 1
            else:
                record_id = await save_store.insert_record(self.conn, section=section, kind=request.kind,
                                                           client=client.name, at=stamp)
                version = 1
            await save_store.insert_version(self.conn, document_id=document_id, record_id=record_id, version=version,
                                            content_hash=passage_hash(written.text), client=client.name, at=stamp,
                                            person=request.person, url=request.url)
            if current is not None:
                await save_store.supersede(self.conn, current.document_id, by=document_id,
                                           generation=await listing.generation(self.conn))
            await save_store.remember_key(self.conn, client=client.name, key_digest=key_digest,
                                          request_digest=request_digest, document_id=document_id, at=stamp)

        # readable at once; its vectors follow in the background
        await self.memory.save([document], index=False, then=record_version)
        document_id = await document_store.find_by_identity(self.conn, identity)
        assert document_id is not None
        return await self._saved(client, document_id)

    async def _saved(self, client: Client, document_id: int, *, replayed: bool = False) -> SavedRecord:
        version = (await save_store.versions_of_documents(self.conn, [document_id]))[document_id]
        previous = await save_store.version_replaced_by(self.conn, document_id)
        pending = await listing.pending_chunks_of(self.conn, [document_id])
        return SavedRecord(record=version.record_id, version=version.version, locator=version_locator(version),
                           hash=version.content_hash, section=version.section, kind=version.kind,
                           generation=await generation_for(self.conn, client), searchable=not pending,
                           replayed=replayed, replaced=version_locator(previous) if previous else None)


@dataclass(frozen=True)
class DeletedRecord:
    record: int
    versions: int  # how many versions were forgotten with it
    generation: int

    def to_json(self) -> dict:
        return {"record": self.record, "status": "deleted", "versions": self.versions,
                "generation": self.generation}


class SaveShelf:
    """What agents saved, as the owner (or an agent with `delete`) lists and deletes it. Deleting
    forgets every version, as `forget` does: its vectors, its bytes, and its copies in backups."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.conn = memory.conn

    async def list(self, *, client: str | None = None) -> list[save_store.SavedVersion]:
        return await save_store.current_versions(self.conn, client=client)

    async def delete(self, client: Client, record_id: int) -> DeletedRecord:
        """Delete a saved record whole. An agent may delete only records it made, in sections it
        may see; any other reads as a record that does not exist."""
        client.require("delete")
        if not 0 < record_id < 2**63:
            raise no_record(record_id)
        maker = await save_store.record_maker(self.conn, record_id)
        current = await save_store.current_version(self.conn, record_id) if maker else None
        if current is None or not client.may_see(current.section) or (client.id != OWNER_ID and maker != client.name):
            raise no_record(record_id)
        versions = 1 + len(await save_store.versions_beside(self.conn, current.document_id))
        await self.memory.forget(current.document_id)
        return DeletedRecord(record=record_id, versions=versions, generation=await generation_for(self.conn, client))


def version_locator(version: save_store.SavedVersion) -> Locator:
    return Locator(version.document_id, 0, version.text_length)
