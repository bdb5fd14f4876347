"""What WhatsApp writes into a chat export instead of someone's words (the encryption notice,
"this message was deleted", missed calls, "image omitted"...), in every language its apps ship.

The phrases live in one data table, whatsapp_notices.tsv (kind, language, platform, phrase), built
from WhatsApp's own iOS and Android string tables; adding a language or a new wording is adding
rows. This module only knows how each kind is compared and what the importer makes of it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

TABLE = Path(__file__).with_name("whatsapp_notices.tsv")

#: notices that are no one's words and carry nothing worth keeping: left out, and counted
DROPPED = {"encryption notice": "notices", "deleted": "deleted messages",
           "unreadable": "unreadable messages"}
#: call events: kept as system lines, in English whatever the phone's language
SYSTEM = {"missed voice call": "Missed voice call", "missed video call": "Missed video call",
          "missed group voice call": "Missed group voice call",
          "missed group video call": "Missed group video call",
          "security code changed": "Security code changed"}
#: placeholders for media left out of the export: a media message, labelled in English
MEDIA = {"image omitted": "[image omitted]", "video omitted": "[video omitted]",
         "audio omitted": "[audio omitted]", "sticker omitted": "[sticker omitted]",
         "GIF omitted": "[GIF omitted]", "contact card omitted": "[contact card omitted]",
         "document omitted": "[document omitted]", "media omitted": "[media omitted]"}

_ENCRYPTION_PREFIX = 30  # characters of the notice compared: its first words in any language
_END = " .。"


def _key(text: str) -> str:
    return text.rstrip(_END).casefold()


@dataclass(frozen=True)
class NoticeTable:
    exact: dict[str, str]  # whole text (casefolded, no final full stop) -> kind
    longest_exact: int
    document_suffixes: tuple[str, ...]  # iOS: "Itinerary.pdf • 2 pages document omitted"
    encryption: dict[int, frozenset[str]]  # prefix length -> casefolded opening words
    templates: tuple[tuple[str, str, str], ...]  # (kind, text before the name, text after it)

    def kind(self, text: str, *, marked: bool) -> str | None:
        """The notice kind of a message body's first line, or None for someone's words.

        `marked`: WhatsApp itself flagged the line (no author, an invisible mark before the body,
        or the chat as author). Suffix, prefix and template comparisons, which a person's words
        could meet by chance, are made only on marked lines, or for the encryption notice on a
        line naming WhatsApp."""
        if len(text) <= self.longest_exact:
            found = self.exact.get(_key(text))
            if found is not None:
                return found
        if not marked and "WhatsApp" not in text:
            return None
        if self.is_encryption_notice(text):
            return "encryption notice"
        if not marked:
            return None
        folded = _key(text)
        if folded.endswith(self.document_suffixes):
            return "document omitted"
        for kind, before, after in self.templates:
            if folded.startswith(before) and after in folded[len(before):]:
                return kind
        return None

    def document_name(self, text: str) -> str:
        """The file an iOS "document omitted" line names ("Itinerary.pdf • 2 pages document
        omitted" -> "Itinerary.pdf"): the message's only content, kept with its label."""
        stripped = text.rstrip(_END)
        folded = _key(text)
        for suffix in self.document_suffixes:
            if folded.endswith(suffix) and len(folded) == len(stripped):
                return stripped[: len(stripped) - len(suffix)].split(" \u2022 ")[0].strip()
        return ""

    def is_encryption_notice(self, text: str) -> bool:
        folded = text.casefold()
        return any(folded[:length] in prefixes for length, prefixes in self.encryption.items())


@cache
def notice_table() -> NoticeTable:
    exact: dict[str, str] = {}
    documents: set[str] = set()
    encryption: dict[int, set[str]] = defaultdict(set)
    templates: set[tuple[str, str, str]] = set()
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, _language, _platform, phrase = line.split("\t")
        folded = _key(phrase)
        if kind == "encryption notice":
            prefix = folded[:_ENCRYPTION_PREFIX]
            encryption[len(prefix)].add(prefix)
        elif "{}" in folded:
            before, _, after = folded.partition("{}")
            templates.add((kind, before, after.split("{}")[0]))
        elif kind == "document omitted":
            documents.add(" " + folded)
            exact[folded] = kind  # "document omitted" on its own, without a file name
        else:
            exact[folded] = kind
    return NoticeTable(
        exact=exact, longest_exact=max(map(len, exact)) + 2,
        document_suffixes=tuple(sorted(documents)),
        encryption={n: frozenset(p) for n, p in encryption.items()},
        templates=tuple(sorted(templates)),
    )
