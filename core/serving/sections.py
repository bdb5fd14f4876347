"""Sections: how the memory server groups what it holds, so a client can be allowed some of it.

Imported sources fall into fixed, read-only sections by their kind (chats, email, documents...).
What agents save goes into sections of their own, named by the agent ("notes", "reading"); an
agent can never write into an imported section, nor touch bio.md, which is not a section at all."""

from __future__ import annotations

import re

from core.errors import UserFacingError

#: imported source kinds, by the section they fall into; a kind not named here is in "other"
IMPORTED_SECTIONS: dict[str, tuple[str, ...]] = {
    "chats": ("whatsapp", "telegram", "discord", "imessage", "instagram", "messenger", "facebook", "slack",
              "signal", "sms", "whatsapp_forward", "telegram_forward", "discord_forward"),
    "email": ("email",),
    "ai-chats": ("chatgpt", "claude"),
    "meetings": ("meeting",),
    "calendar": ("calendar",),
    "documents": ("text", "markdown", "pdf", "docx", "html", "json", "csv"),
    "journal": ("journal", "audio", "image", "biographer_chat"),
    "biographer": ("biographer_report",),
    "other": (),
}
_SECTION_OF_KIND = {kind: section for section, kinds in IMPORTED_SECTIONS.items() for kind in kinds}

#: what an agent may save, and where it goes unless it names a section
SAVE_KINDS = ("note", "preference", "decision", "recommendation", "link")
DEFAULT_SAVE_SECTION = "notes"
_SECTION_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


def imported_section(kind: str) -> str:
    return _SECTION_OF_KIND.get(kind, "other")


def is_imported_section(name: str) -> bool:
    return name in IMPORTED_SECTIONS


def imported_kinds_in(sections: tuple[str, ...], held_kinds: list[str]) -> tuple[str, ...]:
    """The kinds held in the store that fall into any of these imported sections."""
    return tuple(k for k in held_kinds if imported_section(k) in sections)


def check_section_name(name: str) -> str:
    """A section name as agents and `clients add --sections` give it: lower case, short."""
    name = name.strip().lower()
    if not _SECTION_NAME.match(name):
        raise UserFacingError(f"not a section name: {name!r}",
                              hint="use 1-40 lower-case letters, digits, '-' or '_', starting with a letter or digit")
    return name
