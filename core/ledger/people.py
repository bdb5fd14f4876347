"""A person's page: how they relate to the owner, when they were last in touch, what is open
between them both ways, where they appear, and what is known about them, each with its source.
One page for every front end: `people show`, /who and the local web page."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.ledger.book import OPEN, Ledger, LedgerItem
from core.biographer.profile import EditRejected, section_body
from storage import ledger as store
from storage import people as people_store

if TYPE_CHECKING:
    from storage.db import Store

RECENT_SOURCES = 5
RELATIONSHIP_SECTION = "People & Relationships"


def lines_naming(text: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """The non-empty lines of `text` that name any of `names` as a whole word."""
    if not names:
        return ()
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                         + r")(?!\w)", re.IGNORECASE)
    return tuple(line.strip() for line in text.splitlines() if line.strip() and pattern.search(line))


@dataclass(frozen=True)
class PersonPage:
    name: str
    aliases: tuple[str, ...]
    relationship: tuple[LedgerItem, ...]  # facts of the relationship kind, newest first
    last_contact: store.Contact | None
    promised_them: tuple[LedgerItem, ...]  # the owner's open promises to them
    they_owe: tuple[LedgerItem, ...]  # their open promises to the owner
    recommended: tuple[LedgerItem, ...]  # their recommendations the owner has not finished
    interactions: tuple[people_store.Appearance, ...]  # the sources they appear in, latest first
    facts: tuple[LedgerItem, ...]  # everything else known about them
    messages: int
    first_contact: str | None = None  # UTC ISO, of their first message in the sources
    bio_lines: tuple[str, ...] = ()  # the lines of bio.md's People & Relationships naming them, cited


async def person_page(conn: Store, ledger: Ledger, name: str, *, bio: str = "") -> PersonPage:
    person = await ledger.person(name)
    items = await store.list_items(conn, store.ItemFilter(person_names=person.aliases))

    def still_open(kind: str) -> tuple[LedgerItem, ...]:
        return tuple(i for i in items if i.kind == kind and i.status in OPEN)

    appearances = await people_store.appearances(conn, person.aliases)
    newest_first = sorted(items, key=lambda i: i.first_said or i.created_at, reverse=True)
    facts = tuple(i for i in newest_first if i.kind == "fact")
    return PersonPage(
        name=person.name, aliases=person.aliases,
        relationship=tuple(i for i in facts if i.category == "relationship"),
        last_contact=await store.last_contact(conn, person.aliases),
        promised_them=still_open("commitment"), they_owe=still_open("owed"),
        recommended=still_open("recommendation"),
        interactions=tuple(appearances[:RECENT_SOURCES]),
        facts=tuple(i for i in facts if i.category != "relationship"),
        messages=sum(a.messages for a in appearances),
        first_contact=min((a.first for a in appearances if a.first), default=None),
        bio_lines=_bio_lines(bio, person.aliases),
    )


def _bio_lines(bio: str, names: tuple[str, ...]) -> tuple[str, ...]:
    try:
        return lines_naming(section_body(bio, RELATIONSHIP_SECTION), names)
    except EditRejected:  # a bio.md without that section (rewritten by hand): nothing said there
        return ()
