"""The generation a client is told. It moves on whenever a source is added, removed or corrected,
so an agent can bind a read to what it saw. For a client limited to some sections it is the
latest generation of what that client may see: the store's own counter would move when the owner
imports or forgets something elsewhere, and so tell the client what the owner holds and when."""

from __future__ import annotations

from core.serving.clients import Client
from core.serving.sections import imported_section
from storage import listing
from storage.db import Store
from storage.listing import Removal


def section_of(kind: str, saved_section: str | None) -> str:
    return saved_section or imported_section(kind)


async def generation_for(conn: Store, client: Client | None) -> int:
    """The store's generation for the owner and clients that see every section; else the latest
    at which anything in the client's sections was added or removed (0: nothing yet)."""
    if client is None or not client.sections:
        return await listing.generation(conn)
    return max((moved.generation for moved in await listing.generations_by_kind(conn)
                if moved.kind is not None and client.may_see(section_of(moved.kind, moved.saved_section))),
               default=0)


def removal_seen_by(client: Client, removal: Removal | None) -> Removal | None:
    """A removal as the client may know of it: one outside its sections (or too old to say what it
    was) never happened, as far as it can tell."""
    if removal is None or not client.sections:
        return removal
    if removal.kind is None or not client.may_see(section_of(removal.kind, removal.saved_section)):
        return None
    return removal
