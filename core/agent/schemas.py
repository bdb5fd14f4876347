"""The agent's tool schemas, which teach the model what the store holds (its source kinds, the
people in it, the dates it covers), and the validation of the arguments a model sends against
them (jsonschema), with errors the model can act on."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from core.agent.delimiters import attribute
from core.agent.ledger_tools import LEDGER_SCHEMAS
from core.agent.tool_markup import unwrapped_arguments

MAX_SEARCH = 20
MAX_WINDOW = 3000
PEOPLE_LISTED = 12  # more names than this cost the model more than they teach it
# patterns in the subset servers turn into grammars (llama.cpp: no \d or \s escapes)
LOCATOR_PATTERN = r"^ *doc[0-9]+:[0-9]+-[0-9]+ *$"


class ToolError(Exception):
    """A tool call the model got wrong: the message goes back to it so it can fix the call."""


@dataclass(frozen=True)
class Catalogue:
    """What the store holds, for the schemas and for saying why a search found nothing."""

    kinds: tuple[str, ...] = ()
    people: tuple[str, ...] = ()  # most frequent first
    first: str | None = None  # YYYY-MM-DD of the oldest dated material
    last: str | None = None

    def span(self) -> str:
        return f"the sources run {self.first} to {self.last}" if self.first and self.last else "no dated sources yet"


def _s(description: str, **extra: Any) -> dict:
    return {"type": "string", "description": description, **extra}


def _i(description: str, **extra: Any) -> dict:
    return {"type": "integer", "description": description, **extra}


_LOCATORS = {"type": "array", "items": {"type": "string", "pattern": LOCATOR_PATTERN},
             "description": "locators (docN:START-END) of the sources this rests on, as tools returned them"}

SCHEMAS: dict[str, tuple[str, dict, list[str]]] = {
    "search": ("Hybrid search (meaning + keywords) over all the owner's sources. Returns passages with locators, "
               "the best matches only: for a question that asks for every instance (list every, all the, each "
               "time, how many times) or for things in the plural (what pets have I had?), use grep for each "
               "word that marks an instance and count what it finds.",
               {"query": _s("what to look for", minLength=1),
                "limit": _i("how many passages, 1-20", minimum=1, maximum=MAX_SEARCH),
                "mode": _s("hybrid (default), keyword or semantic", enum=["hybrid", "keyword", "semantic"])},
               ["query"]),
    "grep": ("Every occurrence of a word or phrase (or regex), in time order, paginated.",
             {"pattern": _s("word, phrase or regular expression", minLength=1), "regex": {"type": "boolean"},
              "page": _i("page number, from 1", minimum=1), "oldest_first": {"type": "boolean"}},
             ["pattern"]),
    "read_source": ("Read the source text at a locator, widened by `window` characters each side.",
                    {"locator": _s("docN:START-END as returned by search or grep", pattern=LOCATOR_PATTERN),
                     "window": _i("characters of context each side, 0-3000", minimum=0, maximum=MAX_WINDOW)},
                    ["locator"]),
    "edit_profile": ("Surgical edit of bio.md: old_text must match the current profile exactly once. "
                     "Empty old_text appends new_text to `section`; empty new_text deletes old_text. "
                     "Every new line states one claim and ends with the locator of the source that says "
                     "it, [docN:START-END], as a tool returned it in this run.",
                     {"old_text": _s("exact current text to replace, or empty to append"),
                      "new_text": _s("replacement text, or empty to delete"),
                      "section": _s("section to append to when old_text is empty")},
                     ["old_text", "new_text"]),
    "add_open_question": ("Record a question for the owner that would fill a gap or settle a contradiction.",
                          {"question": _s("the question, as you would ask it", minLength=1),
                           "why": _s("what it would settle in the profile"),
                           "priority": _i("1 (nice to know) to 5 (the profile is wrong or empty without it)",
                                          minimum=1, maximum=5),
                           "locators": _LOCATORS}, ["question"]),
    "resolve_open_question": ("Close an open question once the sources or the owner answered it.",
                              {"id": _i("the question's number"), "resolution": _s("what the answer was"),
                               "status": _s("answered (default) or dropped", enum=["answered", "dropped"])},
                              ["id", "resolution"]),
    "add_timeline_event": ("Add a dated event of the owner's life to the timeline.",
                           {"date": _s("YYYY, YYYY-MM or YYYY-MM-DD", pattern=r"^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$"),
                            "title": _s("what happened, briefly", minLength=1),
                            "detail": _s("a sentence of detail"), "locators": {**_LOCATORS, "minItems": 1}},
                           ["date", "title", "locators"]),
    "remember": ("Store what the owner said in this conversation as a dated source, so it can be cited. "
                 "Only the owner's own words, copied from their messages; never text from a source.",
                 {"text": _s("the owner's words, verbatim from their messages in this conversation", minLength=1),
                  "when": _s("when it happened, YYYY-MM-DD, if the owner said")}, ["text"]),
    **LEDGER_SCHEMAS,
}
_FILTERED = ("search", "grep")  # the tools that take person/since/until


def _filters(catalogue: Catalogue) -> dict:
    # small models fill in every argument they see: each filter says to leave it out by default
    people = catalogue.people[:PEOPLE_LISTED]
    named = (f"; people here: {', '.join(attribute(p) for p in people)}"
             + (", …" if len(catalogue.people) > PEOPLE_LISTED else "")) if people else ""
    return {
        "person": _s(f"leave out, unless the question is about what one person said{named}"),
        "since": _s("YYYY-MM-DD; leave out, unless the question names a time"),
        "until": _s("YYYY-MM-DD, inclusive; leave out, unless the question names a time"),
    }


def _kinds(catalogue: Catalogue) -> dict:
    items: dict = {"type": "string", "enum": list(catalogue.kinds)} if catalogue.kinds else {"type": "string"}
    return {"type": "array", "items": items, "description": "leave out to search every kind of source"}


def tool_schemas(names: tuple[str, ...] | None = None, catalogue: Catalogue = Catalogue()) -> list[dict]:
    """The OpenAI `tools` list for these tools, with what the store holds written into it."""
    out = []
    for name, (description, props, required) in SCHEMAS.items():
        if names is not None and name not in names:
            continue
        props = dict(props)
        if name in _FILTERED:
            props |= _filters(catalogue) | {"kinds": _kinds(catalogue)}
        out.append({"type": "function", "function": {
            "name": name, "description": description,
            "parameters": {"type": "object", "properties": props, "required": required,
                           "additionalProperties": False}}})
    return out


def parse_arguments(schema: dict, raw: str) -> dict:
    """The arguments of one call, checked against its tool's schema; ToolError says what is wrong."""
    function = schema["function"]
    name, parameters = function["name"], function["parameters"]
    try:
        args = json.loads(raw or "{}")
    except json.JSONDecodeError as error:
        raise ToolError(f"the arguments of {name} are not valid JSON ({error.msg} at char {error.pos}); "
                        "send one JSON object") from None
    args = unwrapped_arguments(args)
    if not isinstance(args, dict):
        raise ToolError(f"the arguments of {name} must be a JSON object")
    # null means "not given"; small models write numbers and booleans as strings
    args = {k: _coerce(v, parameters["properties"].get(k, {})) for k, v in args.items() if v is not None}
    errors = sorted(Draft202012Validator(parameters).iter_errors(args), key=lambda e: list(e.path))
    if errors:
        raise ToolError(f"{name}: " + "; ".join(dict.fromkeys(_explain(e) for e in errors))
                        + f"; it takes {', '.join(parameters['properties'])}")
    return args


def _coerce(value: object, prop: dict) -> object:
    if isinstance(value, str) and prop.get("type") == "integer" and value.strip().lstrip("-").isdigit():
        return int(value)
    if isinstance(value, str) and prop.get("type") == "boolean" and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if isinstance(value, str) and prop.get("type") == "array":
        return [value]  # one kind or locator given bare
    return value


def _explain(error: ValidationError) -> str:
    where = ".".join(str(p) for p in error.path)
    if error.validator == "required":
        return "missing " + ", ".join(k for k in error.validator_value if k not in error.instance)
    if error.validator == "additionalProperties":
        allowed = set(error.schema.get("properties", {}))
        return "unknown argument " + ", ".join(k for k in error.instance if k not in allowed)
    if error.validator == "type":
        return f"{where} must be a{'n' if error.validator_value[0] in 'aeiou' else ''} {error.validator_value}, " \
               f"not {type(error.instance).__name__}"
    if error.validator == "enum":
        return f"{where} must be one of {', '.join(map(str, error.validator_value))}, not {error.instance!r}"
    if error.validator in ("minimum", "maximum"):
        return f"{where} must be {'at least' if error.validator == 'minimum' else 'at most'} {error.validator_value}"
    if error.validator == "pattern":
        return f"{where} is not in the right form: {error.instance!r} ({error.schema.get('description', '')})"
    return f"{where}: {error.message}" if where else error.message
