"""The `biographer` command. Each subcommand parses its input, calls the core, renders the result."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Callable
from datetime import datetime, time, timezone
from pathlib import Path

from bot.compose import open_memory, timezone_of
from bot.progress import TerminalProgress
from bot.render import forgotten_text, sources_text
from core.config import Settings
from core.errors import UserFacingError
from core.sources import forget_source, list_sources
from core.types import GrepPage, SearchFilters, SearchHit
from storage.documents import get_document

Handler = Callable[[argparse.Namespace, Settings], "asyncio.Future[int] | int"]


def _date(value: str) -> datetime:
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date: {value!r} (use YYYY-MM-DD)") from None


def add_filter_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", action="append", default=[], help="only this source kind (repeatable)")
    parser.add_argument("--person", help="only chunks where this person speaks")
    parser.add_argument("--since", type=_date, help="only from this date (YYYY-MM-DD)")
    parser.add_argument("--until", type=_date, help="only up to this date (YYYY-MM-DD, inclusive)")


def filters_from(args: argparse.Namespace, settings: Settings) -> SearchFilters:
    zone = timezone_of(settings)

    def local(moment: datetime | None, *, end: bool) -> datetime | None:
        if moment is None:
            return None
        if end and moment.time() == time(0):
            moment = moment.replace(hour=23, minute=59, second=59)
        return moment if moment.tzinfo else moment.replace(tzinfo=zone)

    return SearchFilters(kinds=tuple(args.kind), person=args.person,
                         since=local(args.since, end=False), until=local(args.until, end=True))


def _when(hit_start: datetime | None, hit_end: datetime | None, settings: Settings) -> str:
    if hit_start is None:
        return "undated"
    zone = timezone_of(settings)
    a = hit_start.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    if hit_end and hit_end != hit_start:
        return f"{a} – {hit_end.astimezone(zone).strftime('%Y-%m-%d %H:%M')}"
    return a


def render_hit(n: int, hit: SearchHit, settings: Settings) -> str:
    head = f"{n}. {hit.document} · {_when(hit.time_start, hit.time_end, settings)} · {hit.locator}"
    body = "\n".join("   " + line for line in hit.text.splitlines())
    return f"{head}  (score {hit.score:.4f})\n{body}"


# ---------------------------------------------------------------- commands

async def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    progress = TerminalProgress()
    async with open_memory(settings) as memory:
        try:
            report = await memory.ingest([Path(p) for p in args.paths], progress=progress,
                                         index=not args.no_index)
        finally:
            progress.close()
        stats = await memory.stats()
    for error in report.errors:
        print(f"error: {error}", file=sys.stderr)
    print(f"added {report.documents_added} documents ({report.chunks_added} chunks, "
          f"{report.messages_added} messages); skipped {report.documents_skipped} already imported"
          + (f", {report.messages_skipped} messages already stored" if report.messages_skipped else "")
          + (f"; {report.media_with_exports} media files read with their chat export"
             if report.media_with_exports else "")
          + (f"; left out {', '.join(f'{n} {why}' for why, n in report.skipped.most_common())}"
             if report.skipped else "")
          + "".join(f"; {n} {what}" for what, n in report.remarks.most_common())
          + (f"; {len(report.errors)} failed" if report.errors else ""))
    if stats["chunks_pending_index"]:
        print(f"{stats['chunks_pending_index']} chunks wait for their embeddings: "
              "keyword search finds them now; run `biographer reindex --pending` to embed them")
    return 1 if report.errors else 0


async def _search_once(memory, query: str, args, settings) -> list[SearchHit]:
    return await memory.search(query, limit=args.limit, mode=args.mode, filters=filters_from(args, settings))


async def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    if not args.query and not args.queries:
        raise UserFacingError("nothing to search for", hint="give a QUERY or --queries FILE")
    async with open_memory(settings) as memory:
        if args.queries:
            lines = Path(args.queries).read_text(encoding="utf-8").split("\n")
            for line in lines:
                if not line.strip():
                    continue
                hits = await _search_once(memory, line, args, settings)
                print(json.dumps([h.to_json() for h in hits], ensure_ascii=False), flush=True)
            return 0
        hits = await _search_once(memory, " ".join(args.query), args, settings)
    if args.json:
        print(json.dumps([h.to_json() for h in hits], ensure_ascii=False, indent=1))
    elif not hits:
        print("no results")
    else:
        print("\n\n".join(render_hit(i + 1, h, settings) for i, h in enumerate(hits)))
    return 0


def render_grep(page: GrepPage, settings: Settings) -> str:
    zone = timezone_of(settings)
    lines = [f"{m.time.astimezone(zone).strftime('%Y-%m-%d %H:%M') if m.time else 'undated'}  "
             f"{m.document}  {m.locator}\n    {m.line}" for m in page.matches]
    pages = max(1, -(-page.total // page.page_size))
    lines.append(f"{page.total} matches; page {page.page} of {pages}"
                 + (f" (next: --page {page.page + 1})" if page.has_more else ""))
    return "\n".join(lines)


async def cmd_grep(args: argparse.Namespace, settings: Settings) -> int:
    async with open_memory(settings) as memory:
        page = await memory.grep(args.pattern, regex=args.regex, page=args.page,
                                 page_size=args.page_size, newest_first=not args.oldest_first,
                                 filters=filters_from(args, settings))
    if args.json:
        print(json.dumps({
            "total": page.total, "page": page.page, "page_size": page.page_size,
            "matches": [{"locator": str(m.locator), "document": m.document, "kind": m.kind,
                         "line": m.line, "time": m.time.isoformat() if m.time else None}
                        for m in page.matches],
        }, ensure_ascii=False, indent=1))
    else:
        print(render_grep(page, settings))
    return 0


async def cmd_read(args: argparse.Namespace, settings: Settings) -> int:
    async with open_memory(settings) as memory:
        source = await memory.read(args.locator, window=args.window)
    print(f"# {source.document} ({source.kind}) {source.locator}")
    print(source.text)
    return 0


async def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    from bot.cli_agent import render_usage
    from core.service import Service

    async with open_memory(settings) as memory:
        stats = await memory.stats()
        stats["token_usage"] = await Service(memory=memory).usage()  # per day and role
    if args.json:
        print(json.dumps(stats, indent=1))
        return 0
    print(f"{stats['documents']} documents, {stats['chunks']} chunks, {stats['messages']} messages")
    for kind, row in stats["by_kind"].items():
        print(f"  {kind:<12} {row['documents']:>6} documents {row['chunks']:>8} chunks")
    pending = stats["chunks_pending_index"]
    print(f"embedding model: {stats['embedding_model'] or '(none yet)'}"
          + (f"; {pending} chunks not embedded yet (keyword search only)" if pending else ""))
    print(render_usage(stats["token_usage"]))
    return 0


async def cmd_sources(args: argparse.Namespace, settings: Settings) -> int:
    """Everything imported, numbered for `forget`."""
    async with open_memory(settings) as memory:
        print(sources_text(await list_sources(memory.conn)))
    return 0


async def cmd_forget(args: argparse.Namespace, settings: Settings) -> int:
    """Delete a source and everything taken from it, after a confirmation."""
    async with open_memory(settings) as memory:
        document = await get_document(memory.conn, args.source)
        if document is None:
            raise UserFacingError(f"there is no source #{args.source}", hint="`biographer sources` lists them")
        if not args.yes:
            if not sys.stdin.isatty():
                raise UserFacingError("not deleting without a confirmation", hint="add --yes to confirm")
            answer = input(f"Delete #{document.id} {document.name} and everything taken from it? [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                print("Kept.")
                return 0
        print(forgotten_text(await forget_source(memory.conn, args.source)))
    return 0


async def cmd_reindex(args: argparse.Namespace, settings: Settings) -> int:
    progress = TerminalProgress()
    async with open_memory(settings) as memory:
        try:
            if args.pending:
                n = await memory.index_pending(progress=progress)
            else:
                n = await memory.reindex(progress=progress)
        finally:
            progress.close()
    print(f"embedded {n} chunks")
    return 0


# ---------------------------------------------------------------- parser

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="biographer", description="Your life's sources, searchable, offline.")
    parser.add_argument("--data-dir", type=Path, help="where the store lives (env BIOGRAPHER_DATA_DIR, default ./data)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("ingest", help="import files or folders (chat exports, notes, documents)")
    p.add_argument("paths", nargs="+")
    p.add_argument("--no-index", action="store_true", help="save now, embed later (`reindex --pending`)")
    p.set_defaults(handler=cmd_ingest)

    p = sub.add_parser("search", help="hybrid search (meaning + keywords)")
    p.add_argument("query", nargs="*")
    p.add_argument("--limit", "-k", type=int, default=10)
    p.add_argument("--mode", choices=["hybrid", "keyword", "semantic"], default="hybrid")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--queries", help="a file with one query per line; prints one JSON list per line")
    add_filter_options(p)
    p.set_defaults(handler=cmd_search)

    p = sub.add_parser("grep", help="every occurrence of a word, phrase or regex")
    p.add_argument("pattern")
    p.add_argument("--regex", action="store_true")
    p.add_argument("--page", type=int, default=1)
    p.add_argument("--page-size", type=int, default=20)
    p.add_argument("--oldest-first", action="store_true")
    p.add_argument("--json", action="store_true")
    add_filter_options(p)
    p.set_defaults(handler=cmd_grep)

    p = sub.add_parser("read", help="read the source at a locator (e.g. doc3:100-900)")
    p.add_argument("locator")
    p.add_argument("--window", type=int, default=0, help="characters of context on each side")
    p.set_defaults(handler=cmd_read)

    p = sub.add_parser("stats", help="what the store holds")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_stats)

    p = sub.add_parser("sources", help="everything imported, numbered")
    p.set_defaults(handler=cmd_sources)

    p = sub.add_parser("forget", help="delete a source and everything taken from it (bio.md lines too)")
    p.add_argument("source", type=int, help="its number in `biographer sources`")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(handler=cmd_forget)

    p = sub.add_parser("reindex", help="re-embed everything with the configured model")
    p.add_argument("--pending", action="store_true", help="only embed chunks that have no vector yet")
    p.set_defaults(handler=cmd_reindex)

    for module in _extension_modules():
        module.register(sub)
    return parser


def _extension_modules() -> list:
    """Subcommands defined next to their feature (people, the biographer, the bots)."""
    import importlib

    modules = []
    for name in ("bot.cli_people", "bot.cli_agent", "bot.cli_run"):
        try:
            modules.append(importlib.import_module(name))
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
    return modules


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    overrides = {"data_dir": args.data_dir} if args.data_dir else {}
    try:
        settings = Settings(**overrides)
        result = args.handler(args, settings)
        return asyncio.run(result) if asyncio.iscoroutine(result) else int(result)
    except UserFacingError as error:
        print(f"error: {error.message}" + (f"\n  → {error.hint}" if error.hint else ""), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: everything saved so far is kept; run the same command again to resume",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
