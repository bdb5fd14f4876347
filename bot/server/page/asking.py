"""The Ask box's answer as server-sent events: the agent's steps as they happen ("searching
'Porto'…"), the reply's text as the model writes it, then the answer with its citations checked
(rendered by the server, everything escaped), or the problem with its hint.

Events: `step` {"words"}, `reply` {} (a new reply starts: what was drafted is not the answer),
`text` {"text"}, `answer` {"html"}, `problem` {"error", "hint"}."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable

from core.agent.loop import Watcher
from core.biographer.gate import AgentGate
from core.errors import UserFacingError
from core.types import Answer

QUOTED_CHARS = 60  # of a query shown in a step
WAITING = "waiting: the biographer is busy with other work (one run at a time)…"


def event(name: str, data: dict) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def step_words(name: str, arguments: str) -> str:
    """A tool call as the page says it is happening."""
    try:
        args = json.loads(arguments)
    except ValueError:  # the model's JSON was broken: the loop tells it so
        args = {}
    args = args if isinstance(args, dict) else {}

    def quoted(key: str) -> str:
        value = args.get(key)
        if not isinstance(value, str) or not value.strip():
            return ""
        value = value.strip()
        return f" '{value[:QUOTED_CHARS]}…'" if len(value) > QUOTED_CHARS else f" '{value}'"

    locator = args.get("locator")
    document = locator.split(":", 1)[0] if isinstance(locator, str) and locator else "a source"
    words = {
        "search": f"searching{quoted('query')}",
        "grep": f"looking for every{quoted('pattern')}",
        "read_source": f"reading {document}",
        "edit_profile": "updating bio.md",
        "add_open_question": "noting a question for you",
        "resolve_open_question": "closing an open question",
        "add_timeline_event": "adding to the timeline",
        "remember": "keeping what you said as a source",
        "ledger_query": "looking in the ledger",
        "ledger_save": "noting it in the ledger",
        "ledger_update": "updating the ledger",
    }.get(name, f"using {name}")
    return words + "…"


class _Queued(Watcher):
    """The loop's watcher, putting what it sees on the stream's queue (all on the event loop)."""

    def __init__(self, queue: asyncio.Queue[str]) -> None:
        self.queue = queue

    def reply(self) -> None:
        self.queue.put_nowait(event("reply", {}))

    def text(self, piece: str) -> None:
        self.queue.put_nowait(event("text", {"text": piece}))

    def step(self, name: str, arguments: str) -> None:
        self.queue.put_nowait(event("step", {"words": step_words(name, arguments)}))


async def answer_events(ask: Callable[[Watcher], Awaitable[Answer]], rendered: Callable[[Answer], str], *,
                        gate: AgentGate) -> AsyncIterator[str]:
    """Runs `ask` when the agent is free (saying so while it waits) and yields its events as they
    come; a reader that goes away stops the run, or its wait."""
    queue: asyncio.Queue[str] = asyncio.Queue()

    async def busy_note() -> None:
        queue.put_nowait(event("step", {"words": WAITING}))

    async def when_free() -> Answer:
        async with gate.turn(on_wait=busy_note):
            return await ask(_Queued(queue))

    run = asyncio.ensure_future(when_free())
    waiting: asyncio.Future[str] | None = None
    try:
        while not run.done():
            waiting = asyncio.ensure_future(queue.get())
            await asyncio.wait({waiting, run}, return_when=asyncio.FIRST_COMPLETED)
            if waiting.done():
                yield waiting.result()
            else:
                waiting.cancel()
        while not queue.empty():
            yield queue.get_nowait()
        try:
            answer = run.result()
        except UserFacingError as error:
            yield event("problem", {"error": error.message, "hint": error.hint})
            return
        yield event("answer", {"html": rendered(answer)})
    finally:
        for pending in (run, waiting):
            if pending is not None and not pending.done():
                pending.cancel()
