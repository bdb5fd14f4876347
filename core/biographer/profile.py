"""bio.md as text: the skeleton, exact-match edits, citations and sections, and the checks a
consolidated rewrite must pass. Pure functions; storage and history live in core/biographer/profile_book.py."""

from __future__ import annotations

import difflib
import re
from importlib import resources

from core.errors import UserFacingError
from core.types import LOCATOR_PATTERN
from core.words import counted

SECTIONS = ("Summary", "Identity", "Timeline", "People & Relationships", "Interests & Preferences",
            "Patterns", "Hypotheses", "Inferences", "Open Questions")
# rendered from their tables, so the model changes them through their own tools
GENERATED = {"Timeline": "add_timeline_event", "Open Questions": "add_open_question"}

LOCATOR_RE = re.compile(LOCATOR_PATTERN)
_HEADING_RE = re.compile(r"^## (.+?)[ \t]*$", re.MULTILINE)


class EditRejected(UserFacingError):
    """An edit that does not apply to the current profile; the message says why."""


def skeleton() -> str:
    return resources.files("core.biographer").joinpath("profile_skeleton.md").read_text(encoding="utf-8")


def sections_of(text: str) -> list[str]:
    return [m.group(1) for m in _HEADING_RE.finditer(text)]


def citations_in(text: str) -> set[str]:
    return set(LOCATOR_RE.findall(text))


def section_span(text: str, section: str) -> tuple[int, int]:
    """(start, end) of a section's body: after its heading line, up to the next heading."""
    for match in _HEADING_RE.finditer(text):
        if match.group(1).lower() == section.lower():
            start = match.end() + 1 if match.end() < len(text) else match.end()
            following = _HEADING_RE.search(text, match.end())
            return start, following.start() if following else len(text)
    raise EditRejected(f"there is no section {section!r} in bio.md",
                       hint="use one of: " + ", ".join(SECTIONS))


def section_body(text: str, section: str) -> str:
    start, end = section_span(text, section)
    return text[start:end]


def section_at(text: str, offset: int) -> str | None:
    current = None
    for match in _HEADING_RE.finditer(text):
        if match.start() > offset:
            break
        current = match.group(1)
    return current


def apply_edit(profile: str, old_text: str, new_text: str, *, section: str | None = None) -> tuple[str, str | None]:
    """Apply one surgical edit; return (new profile, section touched).

    Empty `old_text` appends `new_text` to `section`; empty `new_text` deletes `old_text`.
    `old_text` must occur exactly once, or the error names the nearest match.
    """
    if re.search(r"^\s*#{1,6}\s", new_text, re.MULTILINE):
        raise EditRejected("section headings are fixed", hint="write bullet points under an existing heading")
    if not old_text:
        if not section:
            raise EditRejected("an edit with empty old_text appends, and needs a section",
                               hint="pass section, e.g. \"People & Relationships\"")
        if not new_text.strip():
            raise EditRejected("nothing to add", hint="new_text is empty")
        _refuse_generated(section)
        start, end = section_span(profile, section)
        body = profile[start:end].rstrip("\n")
        addition = (body if body.strip() else "") + "\n" + new_text.strip("\n") + "\n\n"
        return profile[:start] + addition + profile[end:].lstrip("\n"), _canonical(section)
    count = profile.count(old_text)
    if count == 0:
        nearest = nearest_match(profile, old_text)
        raise EditRejected(
            "old_text does not occur in bio.md exactly as written",
            hint=(f"the nearest text is: {nearest!r}" if nearest else "nothing similar is in bio.md")
            + "; copy old_text from the current profile character for character",
        )
    if count > 1:
        raise EditRejected(f"old_text occurs {counted(count, 'time')} in bio.md",
                           hint="include more of the surrounding text so it matches one place")
    at = profile.index(old_text)
    touched = section_at(profile, at)
    if touched in GENERATED or old_text.lstrip().startswith("## "):
        _refuse_generated(touched or "")
        if old_text.lstrip().startswith("## "):
            raise EditRejected("section headings are fixed", hint="edit the text under a heading instead")
    return profile[:at] + new_text + profile[at + len(old_text):], touched


def _refuse_generated(section: str) -> None:
    for name, tool in GENERATED.items():
        if section.lower() == name.lower():
            raise EditRejected(f"the {name} section is generated from its table",
                               hint=f"use the {tool} tool instead")


def _canonical(section: str) -> str:
    return next((s for s in SECTIONS if s.lower() == section.lower()), section)


def nearest_match(profile: str, wanted: str) -> str | None:
    """The stretch of the profile most like `wanted` (same number of lines), if any is close."""
    lines = profile.splitlines()
    width = max(1, len(wanted.splitlines()))
    best, best_ratio = None, 0.5
    for i in range(max(1, len(lines) - width + 1)):
        candidate = "\n".join(lines[i:i + width])
        if not candidate.strip():
            continue
        ratio = difflib.SequenceMatcher(None, candidate, wanted, autojunk=False).ratio()
        if ratio > best_ratio:
            best, best_ratio = candidate, ratio
    return best


def consolidation_problems(old: str, new: str) -> list[str]:
    """Why a rewrite may not replace the profile: lost sections or dropped citations."""
    problems = []
    missing_sections = [s for s in sections_of(old) if s not in sections_of(new)]
    if missing_sections:
        problems.append("sections lost: " + ", ".join(missing_sections))
    dropped = sorted(citations_in(old) - citations_in(new))
    if dropped:
        problems.append("citations dropped: " + ", ".join(dropped))
    return problems


def unified_diff(before: str, after: str, *, label_before: str = "before", label_after: str = "now") -> str:
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=label_before, tofile=label_after))
