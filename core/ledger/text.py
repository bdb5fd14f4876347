"""The ledger as plain text, the same for the command line, the chat bots, the reminders and the
agent's tool: each item with its number, its people, its date and status, and where it comes from."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, tzinfo

from core.ledger.book import LedgerItem, LedgerSource
from core.ledger.people import PersonPage
from core.times import parse_utc
from core.words import counted

STATUS_WORDS = {"open": "open", "in_progress": "in progress", "done": "done", "dropped": "dropped"}
RECOMMENDATION_STATUS = {"open": "to do", "in_progress": "in progress", "done": "done", "dropped": "dropped"}
HEADINGS = {"commitment": "What you promised", "owed": "Owed to you", "recommendation": "Recommended to you",
            "fact": "Facts about people"}


def day(value: str | date) -> str:
    """`Fri 10 May 2024`"""
    moment = date.fromisoformat(value) if isinstance(value, str) else value
    return f"{moment:%a} {moment.day} {moment:%b %Y}"


def local_day(moment: str | None, zone: tzinfo) -> str:
    parsed = parse_utc(moment)
    return day(parsed.astimezone(zone).date()) if parsed else "undated"


def status_word(item: LedgerItem) -> str:
    return (RECOMMENDATION_STATUS if item.kind == "recommendation" else STATUS_WORDS)[item.status]


def headline(item: LedgerItem) -> str:
    """`#12 Send Maya the deck · to Maya · due Fri 10 May 2024 · open`"""
    if item.kind == "recommendation":
        what = f"{item.title or item.text} ({item.category or 'other'})"
        if item.text and item.title and item.text != item.title:
            what += f": {item.text}"
    else:
        what = item.text
    who = {"commitment": f"to {item.person}", "owed": f"from {item.person}",
           "recommendation": f"recommended by {item.person}" if item.person else "",
           "fact": f"about {item.person}" + (f" ({item.category})" if item.category else "")}[item.kind]
    parts = [f"#{item.id} {what}", who]
    if item.due:
        parts.append(f"due {day(item.due)}")
    if item.kind != "fact":
        parts.append(status_word(item))
    return " · ".join(p for p in parts if p)


def source_line(source: LedgerSource, zone: tzinfo) -> str:
    """`“I'll send it Friday” (Lena, WhatsApp with Maya, Mon 6 May 2024 · doc3:58-120)`"""
    when = local_day(source.said_at, zone)
    role = "" if source.role == "stated" else f"{STATUS_WORDS.get(source.role, source.role)}: "
    if source.document_id is None:
        how = {"button": "with a button", "cli": "on the command line"}.get(source.via, f"by {source.via}")
        return f"{role}you, {how}, {when}"
    return f"{role}“{source.quote}” ({source.speaker}, {source.document}, {when} · {source.locator})"


def item_block(item: LedgerItem, zone: tzinfo, *, sources: int = 3) -> str:
    lines = [headline(item)]
    shown = list(item.sources)[:sources]
    lines += [f"    {source_line(s, zone)}" for s in shown]
    if len(item.sources) > len(shown):
        lines.append(f"    … and {counted(len(item.sources) - len(shown), 'more source')}")
    return "\n".join(lines)


def items_text(items: Sequence[LedgerItem], zone: tzinfo, *, heading: str = "", empty: str = "Nothing here.",
               sources: int = 3) -> str:
    if not items:
        return f"{heading}: nothing." if heading else empty
    body = "\n".join(item_block(i, zone, sources=sources) for i in items)
    return f"{heading} ({len(items)}):\n{body}" if heading else body


def person_text(page: PersonPage, zone: tzinfo) -> str:
    lines = [page.name]
    others = [a for a in page.aliases if a != page.name]
    if others:
        lines.append("Also known as: " + ", ".join(others))
    if page.relationship:
        lines.append("Relationship: " + "; ".join(_fact(f, zone) for f in page.relationship))
    else:
        lines.append("Relationship: not known yet")
    if page.last_contact:
        c = page.last_contact
        lines.append(f"Last contact: {local_day(c.time, zone)}, {c.document} (doc{c.document_id}:{c.char_start}-"
                     f"{c.char_end}): {c.sender}: “{_short(c.text)}”")
    else:
        lines.append("Last contact: none in your sources")
    for heading, items in (("You promised them", page.promised_them), ("They owe you", page.they_owe),
                           ("Their recommendations still to do", page.recommended)):
        lines += ["", items_text(items, zone, heading=heading, sources=2)]
    lines += ["", "Recent interactions:" if page.interactions else "Recent interactions: none"]
    lines += [f"- {a.document} (doc{a.document_id}): {counted(a.messages, 'message')}, "
              f"{local_day(a.first, zone)} – {local_day(a.last, zone)}" for a in page.interactions]
    lines += ["", "Facts:" if page.facts else "Facts: none recorded yet"]
    lines += [f"- {_fact(f, zone)}" for f in page.facts]
    return "\n".join(lines)


def _fact(item: LedgerItem, zone: tzinfo) -> str:
    stated = next((s for s in item.sources if s.role == "stated"), None)
    return f"{item.text} (#{item.id}" + (f"; {source_line(stated, zone)})" if stated else ")")


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def item_json(item: LedgerItem) -> dict:
    """An item as plain data (the CLI's --json, exports)."""
    return {"id": item.id, "kind": item.kind, "text": item.text, "person": item.person, "title": item.title,
            "category": item.category, "due": item.due, "status": item.status, "origin": item.origin,
            "first_said": item.first_said, "created_at": item.created_at, "updated_at": item.updated_at,
            "sources": [{"role": s.role, "locator": s.locator, "document": s.document, "quote": s.quote,
                         "speaker": s.speaker, "said_at": s.said_at, "via": s.via} for s in item.sources]}
