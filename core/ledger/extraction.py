"""Extraction: the model reads each conversation with unread messages, window by window in time
order, with the ledger's open items of that conversation and its people carried along, and
proposes items through one tool. Deterministic code checks every proposal (core/ledger/
validation.py) before the ledger keeps it; what a window adds and the lines it read are committed
together, so a run stopped anywhere (a kill, the daily token cap) resumes where it stopped."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import timezone, tzinfo

from core.agent import prompts
from core.agent.delimiters import neutralise
from core.ledger import conversations
from core.ledger.book import OPEN, Ledger, LedgerItem
from core.ledger.conversations import Window, line_text
from core.ledger.proposals import TOOL, BadProposal, Proposals, from_content, parse, tool_schema
from core.ledger.validation import Validator
from core.ports import LLM, Completion, Progress, Usage, no_progress
from core.times import utc_iso_precise
from core.words import counted
from storage import ledger as store
from storage import runs as run_store
from storage.db import Store

log = logging.getLogger(__name__)

CARRIED = 30  # open items shown with each window
ROLE = "analysis"


@dataclass(frozen=True)
class ExtractionConfig:
    window_chars: int = 12_000
    daily_token_cap: int = 0  # 0: none; shared with the biographer's analysis
    owner: str = "the owner"
    owner_aliases: frozenset[str] = frozenset()
    zone: tzinfo = timezone.utc


@dataclass
class ExtractionResult:
    conversations: int = 0
    windows: int = 0
    added: int = 0
    merged: int = 0
    updated: int = 0
    rejected: Counter = field(default_factory=Counter)  # reason -> how many proposals
    failed_windows: int = 0  # the model's output could not be read even after being told why
    usage: Usage = Usage()
    stopped: str = ""  # why it stopped before the end, empty when everything was read
    capped: bool = False  # stopped by the daily token cap

    def summary(self) -> str:
        parts = [f"{counted(self.windows, 'window')} of {counted(self.conversations, 'conversation')}",
                 f"{self.added} new, {self.merged} merged, {self.updated} updated"]
        if self.rejected:
            parts.append("rejected: " + ", ".join(f"{n} {reason}" for reason, n in self.rejected.most_common()))
        if self.failed_windows:
            parts.append(f"{counted(self.failed_windows, 'window')} unreadable")
        if self.stopped:
            parts.append(self.stopped)
        return "; ".join(parts)


class Extractor:
    def __init__(self, conn: Store, llm: LLM, ledger: Ledger, *, config: ExtractionConfig) -> None:
        self.conn = conn
        self.llm = llm
        self.ledger = ledger
        self.config = config

    async def run(self, *, max_windows: int | None = None, progress: Progress = no_progress) -> ExtractionResult:
        """Read what is unread, until done, `max_windows` windows, or the daily token cap."""
        result = ExtractionResult()
        # a remote model reads only the conversations whose policy lets their text leave; the
        # others wait (a local model, or a changed policy, reads them)
        for conversation in await conversations.pending(self.conn, disclosed_only=self.llm.remote):
            async for window in conversations.windows(self.conn, conversation, budget=self.config.window_chars):
                if max_windows is not None and result.windows >= max_windows:
                    result.stopped = f"stopped after {counted(max_windows, 'window')}; the rest is read next time"
                    return result
                if stop := await self._over_cap():
                    result.stopped, result.capped = stop, True
                    return result
                if window.number == 1:
                    result.conversations += 1
                await self._read(window, result)
                result.windows += 1
                progress("ledger", result.windows, None)
            async with self.conn.transaction():
                await store.finish_documents(self.conn, conversation.document_ids, at=self.ledger.now())
        return result

    async def _over_cap(self) -> str:
        cap = self.config.daily_token_cap
        if not cap:
            return ""
        midnight = self.ledger.clock().astimezone(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
        if await run_store.tokens_since(self.conn, utc_iso_precise(midnight)) >= cap:
            return f"today's token cap ({cap:,}) is spent; the rest is read tomorrow"
        return ""

    # ------------------------------------------------------------ one window

    async def _read(self, window: Window, result: ExtractionResult) -> None:
        carried = await self._carried(window)
        async with self.conn.transaction():
            run_id = await run_store.start_run(self.conn, kind="ledger", role=ROLE, model=self.llm.model_for(ROLE),
                                               at=utc_iso_precise(self.ledger.clock()))
        usage, note = Usage(), ""
        try:
            proposals, usage, note = await self._propose(window, carried)
            if proposals is None:
                result.failed_windows += 1
                log.warning("ledger: the model's proposals for %s could not be read: %s",
                            window.conversation.name, note)
            validator = Validator(lines=window.shown, people_named=self.ledger.people_named,
                                  owner_names=self.config.owner_aliases | {self.config.owner},
                                  carried={item.id: item for item in carried})
            checked = await validator.check(proposals or Proposals())
            for rejection in checked.rejections:
                result.rejected[rejection.reason] += 1
                log.info("ledger: rejected in %s: %s", window.conversation.name, rejection)
            async with self.conn.transaction():
                stored = await self.ledger.store(checked.items, checked.updates, via="extraction", origin="extracted")
                await store.mark_read(self.conn, [line.id for line in window.lines])
        except BaseException:
            await self._finish(run_id, "failed", usage, note)
            raise
        result.added += len(stored.added)
        result.merged += len(stored.merged)
        result.updated += len(stored.updated)
        result.usage = result.usage + usage
        await self._finish(run_id, "unreadable" if proposals is None else "done", usage,
                           note or f"{len(stored.added)} new, {len(stored.merged)} merged, {len(stored.updated)} "
                                   f"updated, {len(checked.rejections)} rejected")

    async def _finish(self, run_id: int, status: str, usage: Usage, note: str) -> None:
        async with self.conn.transaction():
            await run_store.finish_run(self.conn, run_id, at=utc_iso_precise(self.ledger.clock()), status=status, steps=1,
                                       tool_errors=int(status != "done"), prompt_tokens=usage.prompt_tokens,
                                       completion_tokens=usage.completion_tokens, note=note)

    async def _carried(self, window: Window) -> list[LedgerItem]:
        """The open items this window may update: those from this conversation, and those of its people."""
        ids = await store.items_with_sources_in(self.conn, window.conversation.document_ids, statuses=OPEN,
                                                limit=CARRIED)
        senders = list(dict.fromkeys(line.sender for line in window.shown if not line.is_owner))
        names = tuple(a for p in await store.people_of_senders(self.conn, senders) for a in p.aliases)
        items = await store.list_items(self.conn, store.ItemFilter(ids=tuple(ids), limit=CARRIED)) if ids else []
        if names:
            items += await store.list_items(self.conn, store.ItemFilter(statuses=OPEN, person_names=names,
                                                                       limit=CARRIED))
        unique = {item.id: item for item in items}
        return sorted(unique.values(), key=lambda item: item.id, reverse=True)[:CARRIED]

    # ------------------------------------------------------------ the model

    async def _propose(self, window: Window, carried: list[LedgerItem]) -> tuple[Proposals | None, Usage, str]:
        """The model's proposals, read and checked against the schema; the model is told once what was
        wrong. (None, usage, why) when its second try cannot be read either."""
        messages = [{"role": "system", "content": self._system()},
                    {"role": "user", "content": render_window(window, carried)}]
        usage = Usage()
        for attempt in (1, 2):
            # the one tool must be called, with empty lists when there is nothing (where the server lets
            # a call be required; the reply is read either way)
            completion = await self.llm.complete(messages, tools=[tool_schema()], role=ROLE,
                                                 tool_choice="required")
            usage = usage + completion.usage
            try:
                return _proposals(completion), usage, ""
            except BadProposal as error:
                if attempt == 2:
                    return None, usage, str(error)
                messages += _correction(completion, error)
        raise AssertionError("unreachable")

    def _system(self) -> str:
        now = self.ledger.clock().astimezone(self.config.zone)
        return prompts.load("ledger_extract").replace("{today}", now.strftime("%A %Y-%m-%d")).replace(
            "{owner}", self.config.owner)


def _proposals(completion: Completion) -> Proposals:
    if completion.tool_calls:
        unknown = [c.name for c in completion.tool_calls if c.name != TOOL]
        if unknown:
            raise BadProposal(f"there is no tool {unknown[0]!r}; call {TOOL}")
        parts = [parse(call.arguments) for call in completion.tool_calls]
        return Proposals(tuple(i for p in parts for i in p.items), tuple(u for p in parts for u in p.updates))
    found = from_content(completion.content or "")
    if found is None:
        raise BadProposal(f"call {TOOL} (with empty lists when there is nothing to record)")
    return parse(found)


def _correction(completion: Completion, error: BadProposal) -> list[dict]:
    text = f"error: {error}. Call {TOOL} again with corrected arguments."
    if not completion.tool_calls:
        return [{"role": "assistant", "content": completion.content or ""}, {"role": "user", "content": text}]
    return [{"role": "assistant", "content": completion.content,
             "tool_calls": [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                            for c in completion.tool_calls]},
            *({"role": "tool", "tool_call_id": c.id, "content": text} for c in completion.tool_calls)]


def describe_item(item: LedgerItem) -> str:
    """One line an extraction window shows for an open item."""
    who = {"commitment": f"the owner promised {item.person}", "owed": f"{item.person} owes the owner",
           "recommendation": f"recommended by {item.person or 'someone'}",
           "fact": f"about {item.person}"}[item.kind]
    title = f" {item.category or ''} “{item.title}”".replace("  ", " ") if item.title else ""
    due = f" · due {item.due}" if item.due else ""
    return f"#{item.id} {item.kind} ({who}){title}: {item.text}{due} · {item.status}"


def render_window(window: Window, carried: list[LedgerItem]) -> str:
    conversation = window.conversation
    kind = "group" if conversation.is_group else "one-to-one"
    limit = 4_000
    parts = [f"Conversation: {conversation.name} ({conversation.platform}, {kind}), part {window.number}.",
             "", "Open items already in the ledger (update them by id; do not propose them again):", "<items>"]
    # neither a message nor an item's text (a model wrote it from messages) may close its block
    parts += [f"- {neutralise(describe_item(item))}" for item in carried] or ["- (none)"]
    parts.append("</items>")
    if window.context:
        parts += ["", "Earlier lines, for context (already read):", "<conversation>"]
        parts += [neutralise(line_text(line, limit=limit)) for line in window.context] + ["</conversation>"]
    parts += ["", "New lines to read (locator | the sender's local time | sender: text):", "<conversation>"]
    parts += [neutralise(line_text(line, limit=limit)) for line in window.lines] + ["</conversation>"]
    return "\n".join(parts)
