"""`biographer ingest | search | grep | read | stats | sources | forget | reindex | export`: the memory
core from the terminal. Each command parses its input, calls the service, renders the result."""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli_args import (add_command, add_filter_options, add_json_option, cli_memory, cli_service, count,
                          filters_from, print_json, stderr)
from core.words import counted, counted_plural

if TYPE_CHECKING:
    from core.config import Settings
    from core.types import GrepPage, SearchHit

#: a store from before the multilingual space, or one whose fill was cut short, holds chunks
#: waiting for a vector until the next import or this (stats, doctor)
FILL_HINT = "`biographer reindex --pending` embeds them"
#: ... and chunks too short to tell a language whose context (storage/language_context.py) the
#: next fill reads before embedding those it covers
UNREAD_HINT = "`biographer reindex --pending` reads them and embeds those in another language"


def _when(start, end, zone) -> str:
    if start is None:
        return "undated"
    a = start.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    if end and end != start:
        return f"{a} – {end.astimezone(zone).strftime('%Y-%m-%d %H:%M')}"
    return a


def render_hit(n: int, hit: SearchHit, zone) -> str:
    head = f"{n}. {hit.document} · {_when(hit.time_start, hit.time_end, zone)} · {hit.locator}"
    body = "\n".join("   " + line for line in hit.text.splitlines())
    return f"{head}  (score {hit.score:.2f})\n{body}"


async def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    """Import files and folders; a bad file is named and skipped, the others go on."""
    from bot.progress import TerminalProgress

    progress = TerminalProgress()
    async with cli_service(settings, model=False) as service:
        try:
            report = await service.memory.ingest([Path(p) for p in args.paths], progress=progress,
                                                index=not args.no_index, on_busy=_busy_note())
        finally:
            progress.close()
        stats = await service.stats()
    for error in report.errors:
        stderr(f"error: {error}")
    print(f"added {counted(report.documents_added, 'document')} ({counted(report.chunks_added, 'chunk')}, "
          f"{counted(report.messages_added, 'message')}); skipped {report.documents_skipped:,} already imported"
          + (f", {counted(report.messages_skipped, 'message')} already stored" if report.messages_skipped else "")
          + (f"; {counted(report.media_with_exports, 'media file')} read with their chat export"
             if report.media_with_exports else "")
          + (f"; left out {', '.join(counted_plural(n, why) for why, n in report.skipped.most_common())}"
             if report.skipped else "")
          + "".join(f"; {counted_plural(n, what)}" for what, n in report.remarks.most_common())
          + (f"; {len(report.errors)} failed" if report.errors else ""))
    for note in report.notes:
        print(note)
    if stats["chunks_pending_index"]:
        print(f"{counted(stats['chunks_pending_index'], 'chunk')} wait{'s' if stats['chunks_pending_index'] == 1 else ''} for their embeddings: "
              "keyword search finds them now; run `biographer reindex --pending` to embed them")
    return 1 if report.errors else 0


def _busy_note():
    """A note on stderr, at most every 10 s, while another process holds the store's write lock."""
    shown = {"at": -10.0}

    def note(waited: float) -> None:
        if waited - shown["at"] >= 10:
            shown["at"] = waited
            stderr(f"waiting for the store: another process is writing to it ({waited:.0f} s so far)…")

    return note


async def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    """Ranked passages for a question or keywords."""
    from core.errors import UserFacingError

    if not args.query and not args.queries:
        raise UserFacingError("nothing to search for", hint="give a QUERY or --queries FILE")
    async with cli_memory(settings) as memory:
        zone = memory.context.timezone
        filters = filters_from(args, zone)

        async def one(query: str) -> list:
            return await memory.search(query, limit=args.limit, mode=args.mode, filters=filters)

        if args.queries:
            import json

            for line in Path(args.queries).read_text(encoding="utf-8").split("\n"):
                if line.strip():
                    print(json.dumps([h.to_json() for h in await one(line)], ensure_ascii=False), flush=True)
            return 0
        hits = await one(" ".join(args.query))
    if args.json:
        print_json([h.to_json() for h in hits])  # each hit carries exhaustive_list (and the hint)
    elif not hits:
        print("no results")
    else:
        if hits[0].hint:
            print(f"note: {hits[0].hint}\n")
        print("\n\n".join(render_hit(i + 1, h, zone) for i, h in enumerate(hits)))
    return 0


def render_grep(page: GrepPage, zone, next_page: str) -> str:
    lines = [f"{m.time.astimezone(zone).strftime('%Y-%m-%d %H:%M') if m.time else 'undated'}  "
             f"{m.document}  {m.locator}\n    {m.line}" for m in page.matches]
    pages = max(1, -(-page.total // page.page_size))
    about = "about " if page.total_is_estimate else ""
    lines.append(f"{about}{counted(page.total, 'match')}; page {page.page} of {about}{pages:,}"
                 + (f" (next: {next_page})" if page.has_more else ""))
    return "\n".join(lines)


def _next_page_command(argv: list[str], page: int) -> str:
    """The same command line with `--page` moved on, every other flag kept."""
    out, skip = [], False
    for word in argv:
        if skip:
            skip = False
            continue
        if word == "--page":
            skip = True
            continue
        if word.startswith("--page="):
            continue
        out.append(word)
    import shlex

    return "biographer " + " ".join(shlex.quote(w) for w in out + ["--page", str(page + 1)])


async def cmd_grep(args: argparse.Namespace, settings: Settings) -> int:
    """Every occurrence of a word, phrase or pattern, newest first, a page at a time."""
    from core.errors import UserFacingError

    async with cli_memory(settings) as memory:
        zone = memory.context.timezone
        page = await memory.grep(args.pattern, regex=args.regex, page=args.page, page_size=args.page_size,
                                 newest_first=not args.oldest_first, filters=filters_from(args, zone))
    pages = max(1, -(-page.total // page.page_size))
    if not page.matches and page.total:  # past the last page (the total may be an estimate)
        about = "about " if page.total_is_estimate else ""
        raise UserFacingError(f"there is no page {args.page}: {about}{counted(page.total, 'match')} "
                              f"make{'s' if page.total == 1 else ''} "
                              f"{about}{counted(pages, 'page')}",
                              hint=f"use --page 1 to {pages}")
    if args.json:
        print_json({
            "total": page.total, "total_is_estimate": page.total_is_estimate,
            "page": page.page, "page_size": page.page_size,
            "matches": [{"locator": str(m.locator), "document": m.document, "kind": m.kind, "line": m.line,
                         "sender": m.sender, "time": m.time.isoformat() if m.time else None}
                        for m in page.matches]})
    else:
        print(render_grep(page, zone, _next_page_command(args.argv, page.page)))
    return 0


async def cmd_read(args: argparse.Namespace, settings: Settings) -> int:
    """The exact text at a locator (or a whole document: doc4), widened to whole lines."""
    async with cli_memory(settings) as memory:
        source = await memory.read(args.locator, window=args.window)
    if args.json:
        print_json({"locator": str(source.locator), "document": source.document, "kind": source.kind,
                    "text": source.text, "document_length": source.document_length})
        return 0
    print(f"# {source.document} ({source.kind}) {source.locator}")
    print(source.text)
    return 0


async def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    """What the store holds, and the model tokens used."""
    from bot.cli_agent import render_usage

    # the memory alone, as grep and read open it: the service's parts and the agent are not needed
    # for counts and the runs table (bench/startup.py)
    async with cli_memory(settings) as memory:
        stats = await memory.stats()
        stats["token_usage"] = await memory.token_usage()
    if args.json:
        print_json(stats)
        return 0
    print(f"{counted(stats['documents'], 'document')}, {counted(stats['chunks'], 'chunk')}, "
          f"{counted(stats['messages'], 'message')}")
    for kind, row in stats["by_kind"].items():
        print(f"  {kind:<18} {counted(row['documents'], 'document'):>16} {counted(row['chunks'], 'chunk'):>15}")
    pending = stats["chunks_pending_index"]
    print(f"embedding model: {stats['embedding_model'] or '(none yet)'}"
          + (f"; {counted(pending, 'chunk')} not embedded yet (keyword search only)" if pending else ""))
    waiting, unread = stats["chunks_pending_multilingual"], stats.get("chunks_unread_language", 0)
    if stats["multilingual_vectors"] or waiting or unread:
        print(f"multilingual vectors: {counted(stats['multilingual_vectors'], 'chunk')}"
              + (f"; {counted(waiting, 'chunk')} waiting for one ({FILL_HINT})" if waiting else "")
              + (f"; {counted(unread, 'chunk')} too short to tell a language, not yet read in context "
                 f"({UNREAD_HINT})" if unread else ""))
    print(render_usage(stats["token_usage"]))
    return 0


async def cmd_sources(args: argparse.Namespace, settings: Settings) -> int:
    """Everything imported, numbered for `forget`."""
    from bot.render import sources_text

    async with cli_service(settings, model=False) as service:
        sources = await service.sources()
        policies = await service.disclosure.for_documents([s.id for s in sources])
        feeds = await service.feeds.feeds_of([s.id for s in sources]) if service.feeds else {}
        zone = service.timezone
    if args.json:
        print_json([{**source_json(s), "policy": policies.get(s.id, "allow"),
                     **({"feed": {"kind": feeds[s.id].kind, "name": feeds[s.id].name,
                                  "last_read": feeds[s.id].last_run_at}} if s.id in feeds else {})}
                    for s in sources])
    else:
        print(sources_text(sources, policies, feeds, zone=zone))
    return 0


def source_json(source) -> dict:
    return {"id": source.id, "name": source.name, "kind": source.kind, "imported_at": source.imported_at,
            "file_name": source.file_name, "time_start": source.time_start, "time_end": source.time_end,
            "participants": source.participants, "messages": source.messages, "passages": source.chunk_count, "characters": source.text_length, "platform": source.platform,
            "note": source.note}


async def cmd_forget(args: argparse.Namespace, settings: Settings) -> int:
    """Delete a source and everything taken from it, after a confirmation."""
    from bot.render import forgotten_text
    from core.errors import UserFacingError

    async with cli_service(settings, model=False) as service:
        source = await service.source(args.source)
        if not args.yes:
            if not sys.stdin.isatty():
                raise UserFacingError("not deleting without a confirmation", hint="add --yes to confirm")
            answer = input(f"Delete #{source.id} {source.name} and everything taken from it? [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                print("Kept.")
                return 0
        print(forgotten_text(await service.memory.forget(args.source)))
    return 0


async def cmd_reindex(args: argparse.Namespace, settings: Settings) -> int:
    """Embed what waits (--pending), or everything again with the configured model."""
    from bot.progress import TerminalProgress

    progress = TerminalProgress()
    async with cli_service(settings, model=False) as service:
        try:
            n = await (service.memory.index_pending(progress=progress) if args.pending else service.memory.reindex(progress=progress))
            space = service.memory.multilingual
            filled = space.filled if space is not None else 0
        finally:
            progress.close()
    print(f"embedded {counted(n, 'chunk')}"
          + (f"; {counted(filled, 'chunk')} in the multilingual space" if filled else ""))
    return 0


async def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    """Everything, to take away: JSON lines, bio.md with its history, and a Markdown vault."""
    async with cli_service(settings, model=False) as service:
        written = await service.export_all(Path(args.directory))
    print(f"exported to {Path(args.directory).resolve()}:")
    for what, n in written.items():
        print(f"  {counted_plural(n, what)}")
    return 0


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    command = partial(add_command, sub, parent)

    p = command("ingest", "import files or folders (chat exports, notes, documents, recordings)",
                'biographer ingest "examples/WhatsApp Chat with Maya.txt" examples/journal/', cmd_ingest)
    p.add_argument("paths", nargs="+", metavar="PATH", help="a file or a folder (walked)")
    p.add_argument("--no-index", action="store_true",
                   help="save now and embed later with `biographer reindex --pending` (keyword search works at once)")

    p = command("search", "ranked passages by meaning and keywords",
                'biographer search "what did Maya say about my knee?" --since 2024-03 --limit 5', cmd_search)
    p.add_argument("query", nargs="*", help="what to look for, in your own words")
    p.add_argument("--limit", "-k", type=count(1, 100), default=10, help="passages to return (default: 10)")
    p.add_argument("--mode", choices=["hybrid", "keyword", "semantic"], default="hybrid",
                   help="hybrid (default): meaning and keywords; keyword: words only; semantic: meaning only")
    add_json_option(p, "a JSON list of passages")
    p.add_argument("--queries", metavar="FILE", help="answer one query per line of FILE, one JSON list per line")
    add_filter_options(p)

    p = command("grep", "every occurrence of a word, phrase or pattern (not ranked)",
                "biographer grep knee --person Maya --oldest-first", cmd_grep)
    p.add_argument("pattern", help="whole words or a phrase, case-insensitive (a regular expression with --regex)")
    p.add_argument("--regex", action="store_true", help="PATTERN is a regular expression")
    p.add_argument("--page", type=count(1, 10**9), default=1, help="page number (default: 1)")
    p.add_argument("--page-size", type=count(1, 1000), default=20, help="matches per page (default: 20)")
    p.add_argument("--oldest-first", action="store_true", help="oldest matches first (default: newest first)")
    add_json_option(p, "a page of matches")
    add_filter_options(p)

    p = command("read", "the exact text at a locator, or a whole document",
                "biographer read doc1:0-300 --window 200", cmd_read)
    p.add_argument("locator", help="as printed by search and grep (doc3:120-980), or a whole document (doc3)")
    p.add_argument("--window", type=count(0, 100_000), default=0,
                   help="characters of context on each side, widened to whole lines (default: 0)")
    add_json_option(p)

    p = command("stats", "what the store holds", "biographer stats --json", cmd_stats)
    add_json_option(p)

    p = command("sources", "everything imported, numbered", "biographer sources --json", cmd_sources)
    add_json_option(p, "the list")

    p = command("forget", "delete a source and everything taken from it (bio.md lines too)",
                "biographer forget 3 --yes", cmd_forget)
    p.add_argument("source", type=count(1, 2**62), help="its number in `biographer sources`")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")

    p = command("reindex", "embed again with the configured model", "biographer reindex --pending", cmd_reindex)
    p.add_argument("--pending", action="store_true", help="only embed chunks that have no vector yet")

    p = command("export", "everything, to take away: JSON lines, bio.md and its history, a Markdown vault",
                "biographer export ~/biographer-export", cmd_export)
    p.add_argument("directory", help="where to write it (created; existing files of an earlier export are replaced)")
