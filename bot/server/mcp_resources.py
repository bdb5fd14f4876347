"""MCP resources: bio.md, the timeline and the people, and templates for a person by name and a
source by locator, each read with the same checks as the tools.

A source is read through the `read` operation, so its sections and errors are the tool's. bio.md,
the timeline and the people are drawn from every section at once: they are offered, listed and
read only for a token that may `read` and sees every section (Client.require_every_section), so a
restricted client learns nothing through them that its tools hide."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import quote, unquote

from mcp import types

from bot.server.operations import Operations
from bot.server.schemas import ReadRequest
from core.errors import UserFacingError
from core.ledger.text import person_text
from core.serving.api_errors import NotFound
from core.serving.clients import Client

SCHEME = "biographer://"
PERSON_PREFIX = f"{SCHEME}people/"
SOURCE_PREFIX = f"{SCHEME}sources/"


@dataclass(frozen=True)
class Fixed:
    """A resource with one address."""

    uri: str
    name: str
    description: str
    mime_type: str
    read: Callable[[Operations], Awaitable[str]]


async def _bio(ops: Operations) -> str:
    return await ops.service.biographer.bio()


async def _timeline(ops: Operations) -> str:
    events = await ops.service.biographer.timeline()
    return json.dumps([e.to_json() for e in events], ensure_ascii=False)


async def _people(ops: Operations) -> str:
    people = await ops.service.people()
    return json.dumps([{"name": p.name, "aliases": list(p.aliases), "messages": p.messages,
                        "resource": person_uri(p.name)} for p in people], ensure_ascii=False)


FIXED = (
    Fixed(f"{SCHEME}bio.md", "bio.md",
          "The owner's living profile, written by the biographer from every source, each claim with its "
          "locator: read it first to know who the owner is and who their people are.", "text/markdown", _bio),
    Fixed(f"{SCHEME}timeline", "timeline",
          "The dated events of the owner's life (id, date, title, detail, locators), oldest first.",
          "application/json", _timeline),
    Fixed(f"{SCHEME}people", "people",
          "Everyone in the owner's sources (name, aliases, messages), most messages first, each with the "
          "address of their page.", "application/json", _people),
)

TEMPLATES = (
    types.ResourceTemplate(
        uri_template=f"{PERSON_PREFIX}{{name}}", name="person", mime_type="text/markdown",
        description="One person's page: who they are to the owner, last contact, what is open both ways, "
                    "the sources they appear in, the facts known, each with its source (the name URL-encoded)."),
    types.ResourceTemplate(
        uri_template=f"{SOURCE_PREFIX}{{locator}}", name="source", mime_type="application/json",
        description="The exact text at a locator from search or list (doc3 or doc3:100-900), with its senders, "
                    "time and source: what the `read` tool answers."),
)


def person_uri(name: str) -> str:
    return PERSON_PREFIX + quote(name, safe="")


def listed(client: Client) -> list[types.Resource]:
    """The fixed resources this token may read (decided by the token alone)."""
    if "read" not in client.operations or client.sections:
        return []
    return [types.Resource(uri=r.uri, name=r.name, description=r.description, mime_type=r.mime_type) for r in FIXED]


def templates(client: Client) -> list[types.ResourceTemplate]:
    if "read" not in client.operations:
        return []
    return list(TEMPLATES) if not client.sections else [t for t in TEMPLATES if t.name == "source"]


async def read(ops: Operations, client: Client, uri: str) -> types.TextResourceContents:
    """The resource at `uri`; refusals are the UserFacingErrors the tools raise."""
    client.require("read")
    if uri.startswith(SOURCE_PREFIX):
        answer = await ops.read(client, ReadRequest(locator=unquote(uri[len(SOURCE_PREFIX):]) or "-"))
        return types.TextResourceContents(uri=uri, mime_type="application/json",
                                          text=json.dumps(answer, ensure_ascii=False))
    if uri.startswith(PERSON_PREFIX):
        client.require_every_section("a person's page")
        try:
            page = await ops.service.person_page(unquote(uri[len(PERSON_PREFIX):]))
        except UserFacingError as error:  # its hint names CLI commands an agent cannot run
            raise UserFacingError(error.message, hint=f"read {SCHEME}people for everyone's name") from None
        return types.TextResourceContents(uri=uri, mime_type="text/markdown",
                                          text=person_text(page, ops.service.timezone))
    fixed = next((r for r in FIXED if r.uri == uri), None)
    if fixed is None:
        raise NotFound(f"no resource {uri[:200]!r}",
                       hint=f"use one of {', '.join(r.uri for r in FIXED)}, {PERSON_PREFIX}NAME or "
                            f"{SOURCE_PREFIX}LOCATOR (resources/list, resources/templates/list)")
    client.require_every_section(fixed.name)
    return types.TextResourceContents(uri=uri, mime_type=fixed.mime_type, text=await fixed.read(ops))

