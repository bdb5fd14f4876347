"""Everything the store holds, written out for the owner to take away (`biographer export DIR`).

- `data/*.jsonl`: sources, messages, passages of prose, people, timeline, open questions and every
  bio.md edit, one JSON object per line (streamed: a big store never sits in memory);
- `bio.md` as it is now;
- `vault/`: an Obsidian-compatible Markdown vault: one note per source (its whole text, with
  properties: kind, dates, people as links, source id, locator), one per person (names, first and
  last contact, the sources they appear in), an index note per kind of source, `Timeline.md`, and
  `bio.md` whose citations link to the source notes. Source notes are named with their number
  zero-padded (`Sources/0002 2024-03-10 journal.md`), so a file list sorts them in import order.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from dataclasses import asdict
from pathlib import Path
from typing import Any, TYPE_CHECKING

from core.files import write_private
from core.types import CITED_LOCATORS, LOCATOR_PATTERN, Locator
from core.words import counted
from storage import documents as document_store
from storage import people as people_store
from storage import source_admin

if TYPE_CHECKING:
    from storage.db import Store

_CITATION = re.compile(rf"\[({CITED_LOCATORS})\]")
_LOCATOR = re.compile(LOCATOR_PATTERN)
_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f]+')
# a source named after its file ("2024-03-10.md") would otherwise give "2024-03-10.md.md"
_FILE_EXTENSION = re.compile(r"\.(md|markdown|txt|json|html?|pdf|docx|eml|emlx|mbox|ics|vtt|srt|csv|zip)$", re.I)


def note_name(text: str) -> str:
    """A file name Obsidian and every file system accept."""
    return _UNSAFE.sub(" ", text).strip().strip(".")[:120] or "untitled"


def source_note(source: document_store.DocumentRow, *, width: int = 4) -> str:
    """`Sources/0012 WhatsApp with Maya`: the number padded to `width` digits so notes sort as numbers."""
    return f"Sources/{source.id:0{width}d} {note_name(_FILE_EXTENSION.sub('', source.name))}"


def properties(values: dict[str, str | list[str] | int | None]) -> str:
    """YAML front matter (Obsidian's properties, Dataview's fields). Every string is written as a
    JSON string, which YAML reads as the same string whatever it holds (colons, quotes, brackets)."""
    lines = ["---"]
    for key, value in values.items():
        if value is None or value == []:
            continue
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines += [f"  - {json.dumps(item, ensure_ascii=False)}" for item in value]
        elif isinstance(value, int):
            lines.append(f"{key}: {value}")
        else:
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join([*lines, "---"])


def kind_index_note(kind: str) -> str:
    return f"Index/{note_name(kind.capitalize())} sources"


def link_citations(text: str, notes: dict[int, str]) -> str:
    """`[doc12:100-900]` -> `[[Sources/12 WhatsApp with Maya|doc12:100-900]]` (each locator of a
    bracket of several too)."""
    def link(locator: str) -> str:
        note = notes.get(Locator.parse(locator).document_id)
        return f"[[{note}|{locator}]]" if note else locator

    def bracket(match: re.Match) -> str:
        return ", ".join(link(loc) for loc in _LOCATOR.findall(match.group(1)))

    return _CITATION.sub(bracket, text)


class JsonLines:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0
        self._file = path.open("w", encoding="utf-8")
        path.chmod(0o600)

    def write(self, value: Any) -> None:
        self._file.write(json.dumps(value, ensure_ascii=False, default=str) + "\n")
        self.count += 1

    def close(self) -> None:
        self._file.close()


async def _each(rows: AsyncIterator[Any], out: JsonLines) -> None:
    async for row in rows:
        out.write(row)
    out.close()


async def export_all(conn: Store, directory: Path, *, read_document, bio: str,
                     history: list, timeline: list, questions: list) -> dict[str, int]:
    """Write the export into `directory`; returns what was written, by kind. `read_document(id)`
    returns a source's whole text (the memory's reader, so chunks are put back together exactly)."""
    data, vault = directory / "data", directory / "vault"
    for folder in (directory, data, vault, vault / "Sources", vault / "People"):
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    written: dict[str, int] = {}

    sources = await document_store.list_documents(conn)
    width = max(4, len(str(max((s.id for s in sources), default=0))))
    notes = {s.id: source_note(s, width=width) for s in sources}
    by_kind: dict[str, list[document_store.DocumentRow]] = {}
    out = JsonLines(data / "sources.jsonl")
    for source in sources:
        out.write(asdict(source))
        by_kind.setdefault(source.kind, []).append(source)
        text = (await read_document(source.id)).text
        front = properties({
            "kind": source.kind, "start": source.time_start, "end": source.time_end,
            "people": [f"[[People/{note_name(p)}|{p}]]" for p in source.participants],
            "source": source.id, "locator": f"doc{source.id}", "imported": source.imported_at,
            "index": f"[[{kind_index_note(source.kind)}]]", "note": source.note or None,
        })
        when = " – ".join(t for t in (source.time_start, source.time_end) if t) or "undated"
        write_private(vault / f"{notes[source.id]}.md", f"{front}\n\n# {source.name}\n\n{when}\n\n{text}\n")
    out.close()
    for kind, of_kind in by_kind.items():
        lines = [properties({"kind": kind, "sources": len(of_kind)}), "", f"# {kind.capitalize()} sources", ""]
        lines += [f"- [[{notes[s.id]}|{s.name}]] ({(s.time_start or 'undated')[:10]}"
                  + (f" – {s.time_end[:10]}" if s.time_end and s.time_end[:10] != (s.time_start or '')[:10] else "")
                  + ")" for s in sorted(of_kind, key=lambda s: (s.time_start or "", s.id))]
        write_private(vault / f"{kind_index_note(kind)}.md", "\n".join(lines) + "\n")
    written["sources"] = len(sources)

    messages = JsonLines(data / "messages.jsonl")
    await _each(source_admin.iter_messages(conn), messages)
    written["messages"] = messages.count

    people = await people_store.list_people(conn)
    out = JsonLines(data / "people.jsonl")
    for person in people:
        appearances = await people_store.appearances(conn, person.aliases)
        out.write({**asdict(person), "sources": [asdict(a) for a in appearances]})
        lines = [f"# {person.name}", ""]
        others = [a for a in person.aliases if a != person.name]
        if others:
            lines.append("Also: " + ", ".join(others))
        if appearances:
            firsts = [a.first for a in appearances if a.first]  # none: undated e-mails only
            lasts = [a.last for a in appearances if a.last]
            span = f", first {min(firsts)[:10]}, last contact {max(lasts)[:10]}" if firsts else ", undated"
            lines += [f"{counted(person.messages, 'message')}{span}.", "", "## Sources", ""]
            lines += [f"- [[{notes[a.document_id]}|{a.document}]]: {counted(a.messages, 'message')}, "
                      + (f"{a.first[:10]} – {(a.last or '')[:10]}" if a.first else "undated")
                      for a in appearances if a.document_id in notes]
        write_private(vault / "People" / f"{note_name(person.name)}.md", "\n".join(lines) + "\n")
    out.close()
    written["people"] = len(people)

    out = JsonLines(data / "timeline.jsonl")
    lines = ["# Timeline", ""]
    for event in timeline:
        out.write(asdict(event))
        cited = " ".join(link_citations(f"[{loc}]", notes) for loc in event.locators)
        lines.append(f"- **{event.date}** {event.title}" + (f": {event.detail}" if event.detail else "")
                     + (f" {cited}" if cited else ""))
    out.close()
    write_private(vault / "Timeline.md", "\n".join(lines) + "\n")
    written["timeline events"] = len(timeline)

    out = JsonLines(data / "open_questions.jsonl")
    for question in questions:
        out.write(asdict(question))
    out.close()
    written["open questions"] = len(questions)

    out = JsonLines(data / "bio_history.jsonl")
    for edit in history:
        out.write(asdict(edit))
    out.close()
    written["bio.md edits"] = len(history)

    write_private(directory / "bio.md", bio)
    write_private(vault / "bio.md", link_citations(bio, notes))
    return written
