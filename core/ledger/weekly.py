"""The weekly report's part about promises: what was promised in the period (both ways) and what is
still open, straight from the ledger (so it is exact), each with its source as a citation."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from core.ledger.book import OPEN, LedgerItem
from core.ledger.text import day
from core.times import parse_utc, utc_iso
from core.types import Answer, Citation, Locator
from storage import ledger as store

if TYPE_CHECKING:
    from storage.db import Store

PROMISES = ("commitment", "owed")
STILL_OPEN_SHOWN = 20


def _line(item: LedgerItem) -> str:
    who = f"You promised {item.person}" if item.kind == "commitment" else f"{item.person} promised you"
    due = f" (due {day(item.due)})" if item.due else ""
    state = "" if item.status in OPEN else f" · {item.status}"
    return f"- {who}: {item.text}{due}{state} · #{item.id}"


async def with_promises(answer: Answer, conn: Store, *, since: datetime, until: datetime,
                        zone: tzinfo) -> Answer:
    made = await store.list_items(conn, store.ItemFilter(kinds=PROMISES, said_since=utc_iso(since),
                                                         said_until=utc_iso(until)))
    still_open = await store.list_items(conn, store.ItemFilter(kinds=PROMISES, statuses=OPEN))
    if not made and not still_open:
        return answer
    citations = list(answer.citations)
    numbers = {str(c.locator): c.n for c in citations}

    def cited(item: LedgerItem) -> str:
        source = next((s for s in item.sources if s.role == "stated" and s.document_id is not None), None)
        if source is None:
            return ""
        key = source.locator
        if key not in numbers:
            numbers[key] = len(numbers) + 1
            when = parse_utc(source.said_at)
            citations.append(Citation(n=numbers[key], locator=Locator.parse(key), document=source.document or "",
                                      when=when.astimezone(zone) if when else None, quote=source.quote))
        return f" [{numbers[key]}]"

    lines = ["", "## Promises", "", "Made in these days:" if made else "None made in these days."]
    lines += [_line(item) + cited(item) for item in made]
    if still_open:
        lines += ["", f"Still open ({len(still_open)}):"]
        lines += [_line(item) + cited(item) for item in still_open[:STILL_OPEN_SHOWN]]
        if len(still_open) > STILL_OPEN_SHOWN:
            lines.append(f"- … and {len(still_open) - STILL_OPEN_SHOWN} more (/todo and /owed list them all)")
    return replace(answer, text=answer.text.rstrip() + "\n" + "\n".join(lines), citations=citations)
