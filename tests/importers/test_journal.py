"""Journals with dates inside: each dated section dates its own chunks, so date filters and the
timeline find a day written in the middle of a long file.

No journal with a licence that allows copying it was found among public repositories, so the
files are written here in the layouts journal tools write: Markdown day headings (Obsidian,
Logseq, hand-kept `journal.md`), long-form dates, and Day One's plain-text export (`Date:` lines).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from core.importers.base import ImportContext
from core.types import SearchFilters
from tests.core.helpers import memory_at
from tests.importers.conftest import parse_all

LISBON = ZoneInfo("Europe/Lisbon")
FILLER = "The ferry was late again and the river smelled of salt. " * 20  # longer than a chunk

JOURNAL = f"""# Journal

Notes before any date: the packing list.

## 2023-06-02 Lisbon
Flew in at noon. Maya met me at the airport. {FILLER}

## Monday, 5 June 2023
Physio appointment; the knee is better. {FILLER}

**June 7, 2023**

Dinner with Teo at the tasca near the castle.
On 2 June 2023 we had said we would go; a date inside a sentence dates nothing.
"""

DAY_ONE = """\tDate:\t12 March 2024 at 08:15:02 GMT
\tWeather:\t11°C Cloudy

First swim of the year at the lido. Cold!

\tDate:\t14 March 2024 at 21:40:11 GMT

Finished the book Maya lent me.
"""


def _day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=LISBON)


def test_sections_carry_their_days(tmp_path: Path) -> None:
    path = tmp_path / "journal.md"
    path.write_text(JOURNAL, encoding="utf-8")
    [(document, _)] = parse_all(path, ImportContext(timezone=LISBON))
    sections = [(day, text.split("\n")[0]) for day, text in document.text_sections]
    assert sections[0] == (None, "# Journal")
    assert sections[1] == (_day(2023, 6, 2), "## 2023-06-02 Lisbon")
    assert sections[2] == (_day(2023, 6, 5), "## Monday, 5 June 2023")
    assert sections[3] == (_day(2023, 6, 7), "**June 7, 2023**")
    assert len(sections) == 4  # the date in a sentence starts no section


async def test_date_filters_find_the_day_inside_a_long_journal(tmp_path: Path, embedder) -> None:
    journal = tmp_path / "journal.md"
    journal.write_text(JOURNAL, encoding="utf-8")
    day_one = tmp_path / "Journal.txt"
    day_one.write_text(DAY_ONE, encoding="utf-8")
    async with memory_at(tmp_path / "data", embedder) as memory:
        report = await memory.ingest([journal, day_one], index=False)
        on_the_5th = await memory.search("knee", mode="keyword", filters=SearchFilters(
            since=_day(2023, 6, 5), until=_day(2023, 6, 5).replace(hour=23, minute=59)))
        early_june = await memory.search("Maya airport", mode="keyword", filters=SearchFilters(
            since=_day(2023, 6, 1), until=_day(2023, 6, 3)))
        late_june = await memory.search("Maya airport", mode="keyword", filters=SearchFilters(
            since=_day(2023, 6, 20)))
        swim = await memory.search("lido swim", mode="keyword")
        async with memory.conn.execute(
                "SELECT name, time_start, time_end FROM documents ORDER BY id") as cur:
            documents = [tuple(r) for r in await cur.fetchall()]
    assert report.errors == []
    assert [h.text.count("knee") for h in on_the_5th] == [1]
    # each dated entry is a chunk of its own: the passage is that day's alone
    assert on_the_5th[0].time_start == _day(2023, 6, 5) == on_the_5th[0].time_end
    assert early_june and early_june[0].time_start == _day(2023, 6, 2)
    assert [h.document for h in late_june] == ["Journal.txt"]  # Maya, in 2024
    # the short Day One export is two chunks, one an entry, though both would fit one
    assert (swim[0].time_start, swim[0].time_end) == (_day(2024, 3, 12), _day(2024, 3, 12))
    assert "Finished the book" not in swim[0].text
    assert documents == [("journal.md", "2023-06-01T23:00:00Z", "2023-06-06T23:00:00Z"),
                         ("Journal.txt", "2024-03-12T00:00:00Z", "2024-03-14T00:00:00Z")]
