"""The biographer's commands: ask, chat, bio, questions, answer, timeline, report, analyze,
consolidate, usage. Each parses its input, calls the service, renders the result."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from bot.cli import positive_int
from bot.compose import open_service, timezone_of
from bot.progress import TerminalProgress
from core.config import Settings
from core.errors import UserFacingError
from core.types import ProfileEdit


def render_usage(usage: dict, *, days: int = 7) -> str:
    """Token usage per day and role, newest day first."""
    lines = []
    for day, roles in list(usage.items())[:days]:
        for role, row in roles.items():
            lines.append(f"  {day}  {role:<9} {row['runs']:>4} runs {row['prompt_tokens']:>10,} in "
                         f"{row['completion_tokens']:>9,} out")
    return "model tokens:\n" + "\n".join(lines) if lines else "model tokens: none used yet"


def _edit_line(edit: ProfileEdit, settings: Settings) -> str:
    when = edit.at.astimezone(timezone_of(settings)).strftime("%Y-%m-%d %H:%M")
    what = (edit.new_text or f"(deleted) {edit.old_text}").strip().splitlines()
    summary = (what[0][:90] + (" …" if len(what) > 1 or len(what[0]) > 90 else "")) if what else ""
    origin = f"run {edit.run_id}" if edit.run_id else ("undo of " + str(edit.undoes) if edit.undoes else "")
    return f"#{edit.id:<5} {when}  {edit.kind:<13} {edit.section or '':<24} {origin:<10} {summary}"


async def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    """Answer one question with cited sources."""
    async with open_service(settings) as service:
        answer = await service.ask(" ".join(args.question), conversation="cli")
    print(answer.render())
    return 0


async def cmd_chat(args: argparse.Namespace, settings: Settings) -> int:
    """A terminal conversation; an empty line or Ctrl-D ends it."""
    async with open_service(settings) as service:
        print("Talk to your biographer (empty line to stop).", file=sys.stderr)
        while True:
            try:
                line = await asyncio.to_thread(input, "you> ")
            except EOFError:
                break
            if not line.strip():
                break
            try:
                answer = await service.ask(line, conversation="cli-chat")
            except UserFacingError as error:  # a model hiccup should not end the conversation
                print(f"error: {error.message}" + (f"\n  → {error.hint}" if error.hint else ""), file=sys.stderr)
                continue
            print(answer.render() + "\n")
    return 0


async def cmd_bio(args: argparse.Namespace, settings: Settings) -> int:
    """Show bio.md, its history, a diff since a date, or undo an edit."""
    async with open_service(settings) as service:
        if args.undo is not None:
            edit = await service.undo_edit(args.undo)
            print(f"undid edit #{args.undo} (recorded as #{edit.id})")
        elif args.history:
            for edit in await service.bio_history(limit=args.limit):
                print(_edit_line(edit, settings))
        elif args.diff:
            since = args.diff if args.diff.tzinfo else args.diff.replace(tzinfo=timezone_of(settings))
            print(await service.bio_diff(since) or "no changes since then")
        else:
            print(await service.bio(), end="")
    return 0


async def cmd_questions(args: argparse.Namespace, settings: Settings) -> int:
    """The open questions, most valuable first."""
    async with open_service(settings) as service:
        questions = await service.open_questions()
    if args.json:
        print(json.dumps([{"id": q.id, "text": q.text, "why": q.why, "priority": q.priority, "status": q.status,
                           "times_asked": q.times_asked} for q in questions], ensure_ascii=False, indent=1))
        return 0
    for q in questions:
        print(f"#{q.id} (priority {q.priority}{', asked' if q.asked_at else ''}) {q.text}"
              + (f"\n    why: {q.why}" if q.why else ""))
    if not questions:
        print("no open questions")
    return 0


async def cmd_answer(args: argparse.Namespace, settings: Settings) -> int:
    """Answer an open question; the biographer folds it into bio.md."""
    async with open_service(settings) as service:
        answer = await service.answer_question(args.id, " ".join(args.text))
    print(answer.render())
    return 0


async def cmd_timeline(args: argparse.Namespace, settings: Settings) -> int:
    """The timeline of the owner's life, with sources."""
    async with open_service(settings) as service:
        events = await service.timeline()
    for event in events:
        print(f"{event.date:<10}  {event.title}" + (f" — {event.detail}" if event.detail else "")
              + (f"  [{', '.join(event.locators)}]" if event.locators else ""))
    if not events:
        print("no timeline events yet: run `biographer analyze` after an import")
    return 0


async def cmd_report(args: argparse.Namespace, settings: Settings) -> int:
    """The pattern report of the last N days (stored as a document too)."""
    async with open_service(settings) as service:
        answer = await service.report(days=args.days)
    print(answer.render())
    return 0


async def cmd_analyze(args: argparse.Namespace, settings: Settings) -> int:
    """Read new material into bio.md, oldest first, in budgeted batches."""
    progress = TerminalProgress()
    async with open_service(settings) as service:
        try:
            result = await service.analyze(progress=progress, max_batches=args.batches)
        finally:
            progress.close()
    print(f"read {result.chunks_read} passages from {result.documents} sources in {result.batches} runs: "
          f"{result.edits} profile edits, {result.events_added} timeline events, "
          f"{result.questions_added} new questions")
    if result.stopped:
        print(f"stopped: {result.stopped}; {result.remaining_chunks} passages wait", file=sys.stderr)
    return 0


async def cmd_consolidate(args: argparse.Namespace, settings: Settings) -> int:
    """Rewrite bio.md coherently, keeping every fact and citation (verified before replacing)."""
    async with open_service(settings) as service:
        replaced = await service.consolidate(force=True)
    print("bio.md consolidated (undo with `biographer bio --undo ID`, see --history)" if replaced
          else "bio.md kept as it was: no rewrite passed the checks (see `biographer -v consolidate`)")
    return 0


async def cmd_usage(args: argparse.Namespace, settings: Settings) -> int:
    """Model tokens used per day and role."""
    async with open_service(settings) as service:
        usage = await service.usage()
    print(json.dumps(usage, indent=1) if args.json else render_usage(usage, days=args.days))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    from bot.cli import _date

    p = sub.add_parser("ask", help="ask your biographer a question (cited answer)")
    p.add_argument("question", nargs="+")
    p.set_defaults(handler=cmd_ask)

    p = sub.add_parser("chat", help="a conversation with your biographer in the terminal")
    p.set_defaults(handler=cmd_chat)

    p = sub.add_parser("bio", help="show bio.md, your living profile")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--history", action="store_true", help="list every edit, newest first")
    group.add_argument("--diff", type=_date, metavar="SINCE", help="what changed since a date (YYYY-MM-DD)")
    group.add_argument("--undo", type=positive_int, metavar="EDIT_ID", help="reverse one edit (kept in history)")
    p.add_argument("--limit", type=positive_int, default=50, help="edits to list with --history")
    p.set_defaults(handler=cmd_bio)

    p = sub.add_parser("questions", help="the open questions about your life")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_questions)

    p = sub.add_parser("answer", help="answer an open question: biographer answer ID \"...\"")
    p.add_argument("id", type=positive_int)
    p.add_argument("text", nargs="+")
    p.set_defaults(handler=cmd_answer)

    p = sub.add_parser("timeline", help="the timeline of your life, with sources")
    p.set_defaults(handler=cmd_timeline)

    p = sub.add_parser("report", help="the pattern report of the last days")
    p.add_argument("--days", type=positive_int, default=7)
    p.set_defaults(handler=cmd_report)

    p = sub.add_parser("analyze", help="read newly imported material into bio.md")
    p.add_argument("--batches", type=positive_int, help="stop after this many runs (default: until done)")
    p.set_defaults(handler=cmd_analyze)

    p = sub.add_parser("consolidate", help="rewrite bio.md coherently, keeping every fact and citation")
    p.set_defaults(handler=cmd_consolidate)

    p = sub.add_parser("usage", help="model tokens used per day and role")
    p.add_argument("--days", type=positive_int, default=7)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_usage)
