"""What may leave the machine, per source or kind: the owner's disclosure policies.

- allow: the source's text may be embedded by a remote endpoint and read by a remote chat model.
- descriptors_only: only a short description leaves (its kind, the people in it, its date); the
  text stays here. Its passages are embedded from that description, and a remote chat model is
  shown the description with the text withheld.
- deny: nothing of it leaves. Its passages get no vector from a remote endpoint (keyword search
  and grep find them; `read` shows them here), a query that matches it here is not sent to a
  remote embedding endpoint, and a remote chat model is told only that something was withheld.

A model on this machine (the bundled embedders, a chat or embedding endpoint on localhost) is
always allowed everything: nothing leaves. Text sent to a remote embedding endpoint is also made
provider-safe: links, e-mail addresses, phone numbers and file paths are taken out first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from core.errors import UserFacingError
from core.times import Clock, utc_iso_precise, utc_now
from storage import disclosure as store
from storage import documents as document_store
from storage.db import Store

ALLOW, DESCRIPTORS_ONLY, DENY = "allow", "descriptors_only", "deny"
POLICIES = (ALLOW, DESCRIPTORS_ONLY, DENY)
WITHHELD = "withheld by your policy"

_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.[^\s/]+\.\S+", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PATH = re.compile(r"(?<![\w/\\])(?:~|[A-Za-z]:)?[\\/](?:[\w.@-]+[\\/])+[\w.@-]*")
_PHONE = re.compile(r"(?<![\w+])\+?\(?\d[\d\s().-]{5,18}\d(?!\w)")
_DATE = re.compile(r"\d{4}-\d\d-\d\d|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}[./]\d\d[./]\d\d")
MIN_PHONE_DIGITS = 7


def _phone_or_not(match: re.Match) -> str:
    found = match.group(0)
    digits = sum(c.isdigit() for c in found)
    if digits < MIN_PHONE_DIGITS or _DATE.fullmatch(found.strip()):
        return found
    return "[phone]"


def provider_safe(text: str) -> str:
    """The text without links, e-mail addresses, file paths and phone numbers (a date stays)."""
    text = _URL.sub("[link]", text)
    text = _EMAIL.sub("[e-mail]", text)
    text = _PATH.sub("[path]", text)
    return _PHONE.sub(_phone_or_not, text)


class Shown(Enum):
    """What of a source a model may see (a chat model reading it, an embedding model embedding it)."""

    TEXT = "text"
    DESCRIPTOR = "descriptor"  # its kind, people and date (`descriptor`), the text withheld
    NOTHING = "nothing"  # not even that it is there, beyond a count of what was withheld


def model_sees(policy: str | None, *, remote: bool) -> Shown:
    """What a source's policy lets a model see of it: a model on this machine sees everything
    (nothing leaves); one elsewhere sees the text under allow, the descriptor under
    descriptors_only, and nothing under deny or when the policy is unknown (None)."""
    if not remote or policy == ALLOW:
        return Shown.TEXT
    if policy == DESCRIPTORS_ONLY:
        return Shown.DESCRIPTOR
    return Shown.NOTHING


def descriptor(kind: str, people: tuple[str, ...] | list[str], when: str | datetime | None) -> str:
    """What a descriptors_only passage is known by outside: kind, people, date."""
    day = when.date().isoformat() if isinstance(when, datetime) else (when or "")[:10]
    parts = [kind.replace("_", " ")]
    if people:
        parts.append("people: " + ", ".join(people))
    if day:
        parts.append(day)
    return provider_safe(" · ".join(parts))


@dataclass(frozen=True)
class PolicyChange:
    scope: str  # "source" or "kind"
    target: str  # "doc4 Name" or the kind
    policy: str  # what is now in force ("allow" after a clear)
    documents: list[int]  # the sources it reaches


def parse_target(target: str) -> tuple[str, str]:
    """("source", "12") for `12`, `#12` or `doc12`; ("kind", name) otherwise."""
    value = target.strip()
    number = value.removeprefix("#").removeprefix("doc")
    return ("source", number) if number.isdigit() else ("kind", value)


class Disclosure:
    """The owner's policies, kept in the store."""

    def __init__(self, conn: Store, *, clock: Clock = utc_now) -> None:
        self.conn = conn
        self.clock = clock

    async def _resolve(self, target: str) -> tuple[str, str, list[int]]:
        scope, value = parse_target(target)
        if scope == "source":
            document = await document_store.get_document(self.conn, int(value))
            if document is None:
                raise UserFacingError(f"no source #{value}", hint="`biographer sources` lists them with their numbers")
            return scope, value, [document.id]
        kinds = await document_store.kinds(self.conn)
        if value not in kinds:
            raise UserFacingError(f"{value!r} is neither a source number nor a kind of source in your store",
                                  hint="kinds here: " + (", ".join(kinds) or "none yet")
                                       + "; sources by number: `biographer sources`")
        return scope, value, await store.documents_of(self.conn, kind=value)

    async def set(self, target: str, policy: str) -> PolicyChange:
        if policy not in POLICIES:
            raise UserFacingError(f"unknown policy {policy!r}", hint=f"use one of {', '.join(POLICIES)}")
        scope, value, documents = await self._resolve(target)
        async with self.conn.transaction():
            if scope == "source":
                await store.set_source_policy(self.conn, int(value), policy, at=utc_iso_precise(self.clock()))
            else:
                await store.set_kind_policy(self.conn, value, policy, at=utc_iso_precise(self.clock()))
        return PolicyChange(scope, value, policy, documents)

    async def clear(self, target: str) -> PolicyChange:
        """Back to the kind's policy (a source) or to allow (a kind)."""
        scope, value, documents = await self._resolve(target)
        async with self.conn.transaction():
            if scope == "source":
                await store.clear_source_policy(self.conn, int(value))
            else:
                await store.clear_kind_policy(self.conn, value)
        now = await store.document_policies(self.conn, documents[:1])
        return PolicyChange(scope, value, now.get(documents[0], ALLOW) if documents else ALLOW, documents)

    async def list(self) -> list[store.PolicyRow]:
        return await store.list_policies(self.conn)

    async def for_documents(self, document_ids: list[int]) -> dict[int, str]:
        return await store.document_policies(self.conn, document_ids)

    async def counts(self) -> dict[str, int]:
        return await store.count_policies(self.conn)
