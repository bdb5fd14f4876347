"""What Instagram and Messenger write into an export instead of someone's words ("Ana reacted ❤
to your message", "X sent an attachment.", "You changed the group photo."), in the languages
seen so far.

The wordings live in one data table, meta_notices.tsv (kind, language, where seen, wording);
adding a language or a new wording is adding rows. This module only knows how a wording is
compared and what the importer makes of each kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

TABLE = Path(__file__).with_name("meta_notices.tsv")

#: no one's words and nothing worth keeping: left out, and counted under this name
DROPPED = {"reaction": "reactions", "unsent": "unsent messages"}
#: the export's stand-in for something it does not hold: a media message with this label, unless
#: the message carries the thing itself (a photo, a shared post), whose label then says it
PLACEHOLDERS = {"attachment": "[attachment]", "link": "[link]", "location": "[location]"}
#: group events, calls and poll votes: kept as system lines, in the words Meta wrote
SYSTEM = frozenset({"event", "call", "vote"})
#: a poll's creation: the sender's poll, kept with its question (the export holds no options)
POLL = "poll"

_END = " .\u00a0"


@dataclass(frozen=True)
class Notice:
    kind: str
    parts: tuple[str, ...]  # what `{}` stood for, in order (a poll's question last)


@dataclass(frozen=True)
class MetaNotices:
    exact: dict[str, str]  # whole wording, casefolded -> kind
    templates: tuple[tuple[str, re.Pattern[str]], ...]

    def match(self, text: str) -> Notice | None:
        """The notice a message's text is, or None for someone's words."""
        stripped = text.strip(_END)
        if not stripped or len(stripped) > 400:
            return None
        kind = self.exact.get(stripped.casefold())
        if kind is not None:
            return Notice(kind, ())
        for kind, pattern in self.templates:
            found = pattern.fullmatch(stripped)
            if found:
                return Notice(kind, tuple(part.strip(' "“”') for part in found.groups()))
        return None


def _template(wording: str) -> re.Pattern[str]:
    # a name or an emoji is short; a poll's question or a group's name may be long
    pieces = [re.escape(piece) for piece in wording.split("{}")]
    return re.compile("(.{1,200}?)".join(pieces), re.S | re.I)


@cache
def meta_notices() -> MetaNotices:
    exact: dict[str, str] = {}
    templates: list[tuple[str, re.Pattern[str]]] = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, _language, _seen, wording = line.split("\t")
        wording = wording.strip(_END)
        if "{}" in wording:
            templates.append((kind, _template(wording)))
        else:
            exact[wording.casefold()] = kind
    # the most specific wording first: "voted for {} and {} other options" before "voted for {}"
    templates.sort(key=lambda t: -len(t[1].pattern))
    return MetaNotices(exact=exact, templates=tuple(templates))
