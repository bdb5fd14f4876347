"""What the model may propose for the ledger: one tool, `record_ledger`, whose arguments are
checked against a JSON schema before anything else looks at them. A proposal is only a claim:
core/ledger/validation.py decides what of it is true to the sources."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from jsonschema import Draft202012Validator

from core.agent.tool_markup import unwrapped_arguments

KINDS = ("commitment", "owed", "recommendation", "fact")
CATEGORIES = ("book", "show", "film", "podcast", "music", "place", "product", "article", "person", "other")
FACT_TYPES = ("relationship", "life_event", "request", "other")
STATUSES = ("open", "in_progress", "done", "dropped")
TOOL = "record_ledger"

_EVIDENCE = {
    "type": "array", "minItems": 1, "maxItems": 6,
    "description": "the lines that say it",
    "items": {"type": "object", "additionalProperties": False, "required": ["locator", "quote"], "properties": {
        "locator": {"type": "string", "description": "the locator at the start of the line, exactly as shown"},
        "quote": {"type": "string", "minLength": 1, "maxLength": 400,
                  "description": "words copied exactly from that line"}}},
}
# [0-9], not \d: servers that turn the schema into a grammar (llama.cpp) know no \d
_DATE = {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "YYYY-MM-DD"}
_ITEM = {
    "type": "object", "additionalProperties": False, "required": ["kind", "text", "evidence"],
    "properties": {
        "kind": {"type": "string", "enum": list(KINDS)},
        "text": {"type": "string", "minLength": 1, "maxLength": 300,
                 "description": "short, as a to-do or a fact: 'Send Maya the deck'"},
        "person": {"type": "string", "maxLength": 120,
                   "description": "who it was promised to, who owes it, who recommended it, who it is about"},
        "title": {"type": "string", "maxLength": 200, "description": "a recommendation's title"},
        "category": {"type": "string", "enum": list(CATEGORIES) + list(FACT_TYPES),
                     "description": "a recommendation's category, or a fact's type"},
        "due": _DATE,
        "status": {"type": "string", "enum": list(STATUSES)},
        "evidence": _EVIDENCE,
        "status_evidence": {**_EVIDENCE, "minItems": 0,
                            "description": "the later lines that complete, cancel or start it"},
        "same_as": {"type": "integer", "description": "the id of a listed open item this repeats"},
    },
}
_UPDATE = {
    "type": "object", "additionalProperties": False, "required": ["id", "evidence"],
    "properties": {
        "id": {"type": "integer", "description": "a listed open item"},
        "status": {"type": "string", "enum": list(STATUSES)},
        "due": _DATE,
        "evidence": _EVIDENCE,
    },
}
PARAMETERS = {
    "type": "object", "additionalProperties": False,
    "properties": {"items": {"type": "array", "items": _ITEM, "maxItems": 60},
                   "updates": {"type": "array", "items": _UPDATE, "maxItems": 60}},
}
_VALIDATOR = Draft202012Validator(PARAMETERS)


def tool_schema() -> dict:
    return {"type": "function", "function": {
        "name": TOOL, "parameters": PARAMETERS,
        "description": "Record what this part of the conversation adds to the owner's ledger: new items, "
                       "and updates of the listed open items. Call it once; empty lists when there is nothing."}}


@dataclass(frozen=True)
class Cited:
    locator: str
    quote: str


@dataclass(frozen=True)
class ProposedItem:
    kind: str
    text: str
    evidence: tuple[Cited, ...]
    person: str | None = None
    title: str | None = None
    category: str | None = None
    due: str | None = None
    status: str = "open"
    status_evidence: tuple[Cited, ...] = ()
    same_as: int | None = None


@dataclass(frozen=True)
class ProposedUpdate:
    id: int
    evidence: tuple[Cited, ...]
    status: str | None = None
    due: str | None = None


@dataclass(frozen=True)
class Proposals:
    items: tuple[ProposedItem, ...] = ()
    updates: tuple[ProposedUpdate, ...] = ()


class BadProposal(ValueError):
    """The model's output is not a valid `record_ledger` call; the message says what to fix."""


def _cited(values: list[dict]) -> tuple[Cited, ...]:
    return tuple(Cited(v["locator"].strip(), v["quote"]) for v in values)


_DATETIME = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})[T ][0-9:.]+(?:Z|[+-][0-9:]+)?$")


def _tidied(raw: object) -> object:
    """What small models write that means no more than the schema allows: `null` for a field
    left out, and a due date with a time of day (the day is what a promise is due on)."""
    if not isinstance(raw, dict):
        return raw
    tidy = {}
    for key in ("items", "updates"):
        value = raw.get(key)
        if isinstance(value, list):
            value = [_tidied_entry(entry) for entry in value]
        if value is not None:
            tidy[key] = value
    return tidy | {k: v for k, v in raw.items() if k not in ("items", "updates")}


def _tidied_entry(entry: object) -> object:
    if not isinstance(entry, dict):
        return entry
    entry = {k: v for k, v in entry.items() if v is not None}
    if isinstance(entry.get("due"), str) and (moment := _DATETIME.match(entry["due"].strip())):
        entry["due"] = moment.group(1)
    return entry


def parse(raw: str | dict) -> Proposals:
    """Arguments (JSON text or an object) checked against the schema; BadProposal otherwise."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw or "{}")
        except json.JSONDecodeError as error:
            raise BadProposal(f"the arguments are not valid JSON ({error.msg} at char {error.pos})") from None
    raw = _tidied(unwrapped_arguments(raw))
    errors = sorted(_VALIDATOR.iter_errors(raw), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "the arguments"
        raise BadProposal(f"{where}: {first.message}" + (f" (and {len(errors) - 1} more problems)"
                                                          if len(errors) > 1 else ""))
    items = tuple(ProposedItem(
        kind=i["kind"], text=i["text"].strip(), evidence=_cited(i["evidence"]), person=_blank(i.get("person")),
        title=_blank(i.get("title")), category=i.get("category"), due=i.get("due"),
        status=i.get("status", "open"), status_evidence=_cited(i.get("status_evidence", [])),
        same_as=i.get("same_as")) for i in raw.get("items", []))
    updates = tuple(ProposedUpdate(id=u["id"], evidence=_cited(u["evidence"]), status=u.get("status"),
                                   due=u.get("due")) for u in raw.get("updates", []))
    return Proposals(items, updates)


def _blank(value: str | None) -> str | None:
    return value.strip() or None if value else None


_FENCE = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.DOTALL)


def from_content(content: str) -> str | None:
    """The JSON object a model wrote as its answer instead of calling the tool (some local models
    do), or None when there is none."""
    text = content.strip()
    fenced = _FENCE.search(text)
    if fenced:
        return fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    return text[start:end + 1] if 0 <= start < end else None
