"""The biographer's commands: ask, chat, bio, questions, answer, timeline, report, analyze,
consolidate, usage. Each parses its input, calls the service, renders the result."""

from __future__ import annotations

import argparse
import sys
from functools import partial
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli_args import add_command, add_json_option, cli_service, count, date_text, print_json, stderr
from core.words import counted

if TYPE_CHECKING:
    from core.agent.config import AnalysisStatus
    from core.config import Settings
    from core.service.admin import AdminFacet
    from core.types import Answer, ProfileEdit


def render_usage(usage: dict, *, days: int = 7) -> str:
    """Token usage per day and role, newest day first."""
    lines = []
    for day, roles in list(usage.items())[:days]:
        for role, row in roles.items():
            lines.append(f"  {day}  {role:<9} {counted(row['runs'], 'run'):>9} {row['prompt_tokens']:>10,} in "
                         f"{row['completion_tokens']:>9,} out")
    return "model tokens:\n" + "\n".join(lines) if lines else "model tokens: none used yet"


def answer_json(answer: Answer) -> dict:
    return {"text": answer.text, "removed_citations": answer.removed, "run_id": answer.run_id,
            "citations": [{"n": c.n, "locator": str(c.locator), "document": c.document,
                           "when": c.when.isoformat() if c.when else None, "quote": c.quote}
                          for c in answer.citations]}


def _print_answer(answer: Answer, args: argparse.Namespace) -> None:
    print_json(answer_json(answer)) if args.json else print(answer.render())


def _edit_line(edit: ProfileEdit, zone) -> str:
    when = edit.at.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    what = (edit.new_text or f"(deleted) {edit.old_text}").strip().splitlines()
    summary = (what[0][:90] + (" …" if len(what) > 1 or len(what[0]) > 90 else "")) if what else ""
    origin = f"run {edit.run_id}" if edit.run_id else ("undo of " + str(edit.undoes) if edit.undoes else "")
    return f"#{edit.id:<5} {when}  {edit.kind:<13} {edit.section or '':<24} {origin:<10} {summary}"


CLI_CONVERSATIONS = "cli:"


def new_conversation(mode: str) -> str:
    """A conversation of its own: nothing said in an earlier `ask` or `chat` leaks into it."""
    import secrets

    return f"{CLI_CONVERSATIONS}{mode}:{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"


async def _conversation(service: AdminFacet, mode: str, resume: bool) -> str:
    if resume:
        latest = await service.biographer.last_conversation(CLI_CONVERSATIONS)
        if latest:
            return latest
        print("nothing to continue: starting a new conversation", file=sys.stderr)
    return new_conversation(mode)


async def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    """Answer one question with cited sources; a fresh conversation unless --continue."""
    async with cli_service(settings) as service:
        conversation = await _conversation(service, "ask", args.resume)
        answer = await service.biographer.ask(" ".join(args.question), conversation=conversation)
    _print_answer(answer, args)
    return 0


async def cmd_remember(args: argparse.Namespace, settings: Settings) -> int:
    """Keep the owner's words as a dated source."""
    from core.dates import parse_bound

    async with cli_service(settings, model=False) as service:
        when = parse_bound(args.when, zone=service.timezone, end=False) if args.when else None
        locator = await service.biographer.remember(" ".join(args.text), when=when)
    print_json({"locator": str(locator)}) if args.json else print(f"kept as {locator}")
    return 0


async def cmd_chat(args: argparse.Namespace, settings: Settings) -> int:
    """A terminal conversation; an empty line or Ctrl-D ends it."""
    import asyncio

    from core.errors import UserFacingError

    async with cli_service(settings) as service:
        service.biographer.require_model()
        conversation = await _conversation(service, "chat", args.resume)
        print("Talk to your biographer (empty line to stop).", file=sys.stderr)
        while True:
            try:
                line = await asyncio.to_thread(input, "you> ")
            except EOFError:
                break
            if not line.strip():
                break
            try:
                answer = await service.biographer.ask(line, conversation=conversation)
            except UserFacingError as error:  # a model hiccup should not end the conversation
                print(f"error: {error.message}" + (f"\n  → {error.hint}" if error.hint else ""), file=sys.stderr)
                continue
            print(answer.render() + "\n")
    return 0


async def cmd_bio(args: argparse.Namespace, settings: Settings) -> int:
    """Show bio.md, its history, a diff since a date, or undo an edit."""
    from core.dates import parse_bound

    async with cli_service(settings, model=False) as service:
        zone = service.timezone
        if args.undo is not None:
            edit = await service.biographer.book.undo(args.undo)
            print_json(edit_json(edit)) if args.json else print(f"undid edit #{args.undo} (recorded as #{edit.id})")
        elif args.history:
            edits = await service.biographer.book.history(limit=args.limit)
            if args.json:
                print_json([edit_json(e) for e in edits])
            else:
                for edit in edits:
                    print(_edit_line(edit, zone))
        elif args.diff:
            diff = await service.biographer.book.diff_since(parse_bound(args.diff, zone=zone, end=False))
            print_json({"diff": diff}) if args.json else print(diff or "no changes since then")
        else:
            bio = await service.biographer.bio()
            print_json({"bio": bio}) if args.json else print(bio, end="")
    return 0


def edit_json(edit: ProfileEdit) -> dict:
    return {"id": edit.id, "at": edit.at.isoformat(), "kind": edit.kind, "section": edit.section,
            "old_text": edit.old_text, "new_text": edit.new_text, "run_id": edit.run_id,
            "locators": list(edit.locators), "undoes": edit.undoes}


async def cmd_questions(args: argparse.Namespace, settings: Settings) -> int:
    """The open questions, most valuable first."""
    async with cli_service(settings, model=False) as service:
        questions = await service.biographer.open_questions()
    if args.json:
        print_json([{"id": q.id, "text": q.text, "why": q.why, "priority": q.priority, "status": q.status,
                     "times_asked": q.times_asked} for q in questions])
        return 0
    for q in questions:
        print(f"#{q.id} (priority {q.priority}{', asked' if q.asked_at else ''}) {q.text}"
              + (f"\n    why: {q.why}" if q.why else ""))
    if not questions:
        print("no open questions")
    return 0


async def cmd_answer(args: argparse.Namespace, settings: Settings) -> int:
    """Answer an open question; the biographer folds it into bio.md."""
    async with cli_service(settings) as service:
        answer = await service.biographer.answer_question(args.id, " ".join(args.text))
    _print_answer(answer, args)
    return 0


async def cmd_timeline(args: argparse.Namespace, settings: Settings) -> int:
    """The timeline of the owner's life, with sources (and as a picture with --png)."""
    async with cli_service(settings, model=False) as service:
        events = await service.biographer.timeline()
        picture = await service.pictures.make("timeline") if args.png else None
    if picture is not None:
        from bot.cli_pictures import write_picture

        path = write_picture(picture, args.png)
        if not args.json:  # the path, then the events as the picture's caption lists them, with sources
            print(f"{path}\n\n{picture.caption}")
            return 0
        stderr(f"wrote {path}")  # stdout stays one JSON document
    if args.json:
        print_json([e.to_json() for e in events])
        return 0
    for event in events:
        print(f"{event.date:<10}  {event.title}" + (f" — {event.detail}" if event.detail else "")
              + (f"  [{', '.join(event.locators)}]" if event.locators else ""))
    if not events:
        print("no timeline events yet: run `biographer analyze` after an import")
    return 0


async def cmd_report(args: argparse.Namespace, settings: Settings) -> int:
    """The pattern report of the last N days (stored as a document too)."""
    async with cli_service(settings) as service:
        answer = await service.report(days=args.days)
    _print_answer(answer, args)
    return 0


async def cmd_analyze(args: argparse.Namespace, settings: Settings) -> int:
    """Read new material into bio.md, oldest first, in budgeted batches."""
    from bot.progress import TerminalProgress

    progress = TerminalProgress()
    async with cli_service(settings) as service:
        try:
            result = await service.biographer.analyze(progress=progress, max_batches=args.batches)
        finally:
            progress.close()
    print(f"read {counted(result.chunks_read, 'passage')} from {counted(result.documents, 'source')} in "
          f"{counted(result.batches, 'run')}: {counted(result.edits, 'profile edit')}, "
          f"{counted(result.events_added, 'timeline event')}, {counted(result.questions_added, 'new question')}")
    if result.stopped:
        print(f"stopped: {result.stopped}; {counted(result.remaining_chunks, 'passage')} "
              f"wait{'s' if result.remaining_chunks == 1 else ''}", file=sys.stderr)
    return 0


async def cmd_consolidate(args: argparse.Namespace, settings: Settings) -> int:
    """Rewrite bio.md coherently, keeping every fact and citation (verified before replacing)."""
    async with cli_service(settings) as service:
        replaced = await service.biographer.consolidate(force=True)
    print("bio.md consolidated (undo with `biographer bio --undo ID`, see --history)" if replaced
          else "bio.md kept as it was: no rewrite passed the checks (see `biographer -v consolidate`)")
    return 0


def render_analysis(status: AnalysisStatus) -> str:
    """What waits for analysis; loud when the last run left its batch unread."""
    one = status.pending == 1
    line = (f"analysis: {counted(status.pending, 'passage')} wait{'s' if one else ''} to be read into bio.md"
            if status.pending else "analysis: everything imported has been read")
    if status.last_unread:
        line += (f"\n  the last analysis run ({status.last_unread[:16].replace('T', ' ')} UTC) left its batch unread: "
                 f"{status.note}; check that the analysis model supports tool calling, then run `biographer analyze`")
    return line


async def cmd_usage(args: argparse.Namespace, settings: Settings) -> int:
    """Model tokens used per day and role, and what waits for analysis."""
    async with cli_service(settings, model=False) as service:
        usage = await service.usage()
        status = await service.biographer.analysis_status()
    if args.json:
        print_json(usage)
    else:
        print(render_usage(usage, days=args.days))
        print(render_analysis(status))
    return 0


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    command = partial(add_command, sub, parent)

    p = command("remember", "keep something about your life as a dated source (questions are not kept)",
                'biographer remember "I started swimming lessons today" --when 2024-05-06', cmd_remember)
    p.add_argument("text", nargs="+", help="what to keep, in your own words")
    p.add_argument("--when", type=date_text, metavar="DATE", help="when it happened (default: now)")
    add_json_option(p, "the new source's locator")

    p = command("ask", "ask your biographer a question (a cited answer; needs a model; each ask stands alone)",
                'biographer ask "When did I decide to move to Porto?"', cmd_ask)
    p.add_argument("question", nargs="+", help="your question, in your own words")
    p.add_argument("--continue", dest="resume", action="store_true",
                   help="go on from the last `ask` or `chat` instead of starting afresh")
    add_json_option(p, "the answer and its citations")

    p = command("chat", "a conversation with your biographer in the terminal (empty line to stop)",
                "biographer chat", cmd_chat)
    p.add_argument("--continue", dest="resume", action="store_true", help="go on from the last `ask` or `chat`")

    p = command("bio", "show bio.md, your living profile (or its history, a diff, an undo)",
                "biographer bio --diff 2024-05-01", cmd_bio)
    group = p.add_mutually_exclusive_group()
    group.add_argument("--history", action="store_true", help="list every edit, newest first")
    group.add_argument("--diff", type=date_text, metavar="SINCE", help="what changed since a date (2024-05-01, last week)")
    group.add_argument("--undo", type=count(1, 2**62), metavar="EDIT_ID", help="reverse one edit (kept in history)")
    p.add_argument("--limit", type=count(1, 10_000), default=50, help="edits to list with --history (default: 50)")
    add_json_option(p)

    p = command("questions", "the open questions about your life, most valuable first",
                "biographer questions", cmd_questions)
    add_json_option(p, "the questions")

    p = command("answer", "answer an open question; the biographer folds it into bio.md",
                'biographer answer 3 "I moved for the bakery job"', cmd_answer)
    p.add_argument("id", type=count(1, 2**62), help="the question's number in `biographer questions`")
    p.add_argument("text", nargs="+", help="your answer")
    add_json_option(p, "the reply and its citations")

    p = command("timeline", "the timeline of your life, with sources", "biographer timeline --png timeline.png",
                cmd_timeline)
    p.add_argument("--png", type=Path, metavar="FILE",
                   help="also draw it (years across, coloured by kind) into this PNG and print its path first")
    add_json_option(p, "the events")

    p = command("report", "the pattern report of the last days (needs a model)", "biographer report --days 30",
                cmd_report)
    p.add_argument("--days", type=count(1, 3660), default=7, help="how many days back (default: 7)")
    add_json_option(p, "the report and its citations")

    p = command("analyze", "read newly imported material into bio.md (needs a model)",
                "biographer analyze --batches 3", cmd_analyze)
    p.add_argument("--batches", type=count(1, 100_000), help="stop after this many runs (default: until done)")

    command("consolidate", "rewrite bio.md coherently, keeping every fact and citation (needs a model)",
            "biographer consolidate", cmd_consolidate)

    p = command("usage", "model tokens used per day and role", "biographer usage --days 30", cmd_usage)
    p.add_argument("--days", type=count(1, 3660), default=7, help="days to show (default: 7)")
    add_json_option(p)
