"""One person as the owner's page shows them: their names, when the owner was last in touch, the
sources they appear in, and what bio.md says about how they relate to the owner.

The relationship is what the biographer wrote, with its citations, in bio.md's "People &
Relationships": the lines that name the person. The ledger (issue #13) will add open items both
ways; until then this is all the store knows about a person."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

import aiosqlite

from core.errors import UserFacingError
from core.profile import EditRejected, section_body
from core.ranking import parse_time
from storage import people as people_store

RELATIONSHIP_SECTION = "People & Relationships"


@dataclass(frozen=True)
class PersonView:
    name: str
    aliases: tuple[str, ...]
    messages: int
    first_contact: datetime | None
    last_contact: datetime | None
    sources: list[people_store.Appearance]  # most recent first
    relationship: list[str]  # the lines of bio.md's People & Relationships that name them


def lines_naming(text: str, names: tuple[str, ...]) -> list[str]:
    """The non-empty lines of `text` that name any of `names` as a whole word."""
    if not names:
        return []
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                         + r")(?!\w)", re.IGNORECASE)
    return [line.strip() for line in text.splitlines() if line.strip() and pattern.search(line)]


async def person_view(conn: aiosqlite.Connection, name: str, *, bio: str) -> PersonView:
    """The person known by `name` (any of their names), or a UserFacingError saying where to look."""
    await people_store.sync_from_messages(conn)
    wanted = name.strip().lower()
    person = next((p for p in await people_store.list_people(conn) if wanted in (a.lower() for a in p.aliases)),
                  None)
    if person is None:
        raise UserFacingError(f"no person is known as {name!r}", hint="the people page lists everyone by name")
    sources = await people_store.appearances(conn, person.aliases)
    firsts = [parse_time(a.first) for a in sources if a.first]
    lasts = [parse_time(a.last) for a in sources if a.last]
    try:
        relationship = lines_naming(section_body(bio, RELATIONSHIP_SECTION), person.aliases)
    except EditRejected:  # a bio.md without that section (rewritten by hand): nothing said there
        relationship = []
    return PersonView(name=person.name, aliases=person.aliases, messages=person.messages,
                      first_contact=min(firsts, default=None), last_contact=max(lasts, default=None),
                      sources=sources, relationship=relationship)
