"""The biographer's runs: chat answers, analysis of new material, answers to open questions,
pattern reports and consolidation. Each run sees only the system prompt, the current bio.md,
a bounded chat tail (text only) and its own input; tool traffic dies with the run."""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import replace
from datetime import datetime, timedelta, timezone

from core.agent import prompts
from core.agent.budget import estimate_tokens
from core.agent.citations import check_citations
from core.agent.delimiters import neutralise
from core.agent.config import ANALYSIS_TOOLS, REPORT_TOOLS, AgentConfig, AnalysisStatus
from core.agent.loop import LoopResult, NeedsEvidence, ToolLoop, Watcher
from core.agent.schemas import Catalogue, tool_schemas
from core.privacy.disclosure import Shown, model_sees
from core.agent.tools import Toolbox, Turn
from core.memory.chunking import render_message
from core.errors import ModelUnavailable, UserFacingError
from core.memory.facade import Memory
from core.ports import LLM, Progress, Usage, no_progress
from core.biographer.profile import GENERATED, citations_in, consolidation_problems, section_span, sections_of
from core.biographer.profile_book import ProfileBook, render
from core.times import Clock, parse_utc, utc_iso_precise, utc_now
from core.types import (AnalysisResult, Answer, Conversation, Locator, Message, OpenQuestion,
                        SourceDocument, TimelineEvent)
from core.words import counted
from storage import catalogue as catalogue_store
from storage import chat as chat_store
from storage import disclosure as disclosure_store
from storage.chat import PendingChunk, PeriodDocument
from storage.questions import QuestionRow
from storage import documents as document_store
from storage import messages as message_store
from storage import questions as question_store
from storage import runs as run_store
from storage import timeline as timeline_store

log = logging.getLogger(__name__)

REPORT_KIND = "biographer_report"
CHAT_KIND = "biographer_chat"
NOT_ANALYSED = (REPORT_KIND,)  # the biographer's own writing is not evidence about the owner
UNCHECKED = ("(Not checked against your sources: the model answered without looking anything up, "
             "so treat this as its guess.)")
CUT_REPORT = "(This report was cut short at the model's length limit: it is incomplete.)"
NOT_READ = "not read: the model made no tool call"
MATERIAL_SHARE = 0.4  # of the prompt window, for one analysis batch of new material


def _period_listing(documents: list[PeriodDocument], *, remote: bool) -> str:
    """The sources with material in a report's period, as the model may see them: a remote one is
    not told of denied sources, and of descriptors_only ones only the kind."""
    lines = []
    for d in documents:
        seen = model_sees(d.policy, remote=remote)
        if d.kind == REPORT_KIND or seen is Shown.NOTHING:
            continue
        name = d.kind if seen is Shown.DESCRIPTOR else neutralise(d.name)
        lines.append(f"- doc{d.id} {name} ({d.kind}), {(d.time_start or '?')[:10]} to {(d.time_end or '?')[:10]}")
    return "\n".join(lines) or "- (no sources with material in this period)"


class TokenCapReached(UserFacingError):
    """Today's token cap is spent: analysis waits; the owner's own questions still run."""


class Biographer:
    def __init__(self, memory: Memory, llm: LLM | None, *, config: AgentConfig = AgentConfig(),
                 clock: Clock = utc_now) -> None:
        self.memory = memory
        self.conn = memory.conn
        self.llm = llm
        self.config = config
        self.clock = clock
        self.book = ProfileBook(self.conn, clock=clock)
        self.toolbox = Toolbox(memory=memory, book=self.book, zone=config.zone,
                               remember=lambda text, when: self.remember(text, when=when),
                               remote=self.remote)
        self._catalogue: tuple[tuple, Catalogue] | None = None

    @property
    def remote(self) -> bool:
        """The model is elsewhere: sources are shown to it by the owner's policy (core/privacy/disclosure.py)."""
        return self.llm is not None and self.llm.remote

    # ------------------------------------------------------------------ runs

    def require_model(self) -> None:
        """Fail now, with the hint, when no model is configured: before a conversation starts,
        not after the owner has typed their first question."""
        self._require_llm()

    def _require_llm(self) -> LLM:
        if self.llm is None:
            raise ModelUnavailable("no language model is configured",
                                   hint="set BIOGRAPHER_LLM_API_KEY for OpenRouter (the default) or "
                                        "OpenAI, or point BIOGRAPHER_LLM_BASE_URL at a local Ollama "
                                        "(http://localhost:11434/v1): see .env.example")
        return self.llm

    async def _start(self, kind: str, role: str) -> int:
        llm = self._require_llm()
        async with self.conn.transaction():
            return await run_store.start_run(self.conn, kind=kind, role=role, model=llm.model_for(role),
                                             at=utc_iso_precise(self.clock()))

    async def _finish(self, run_id: int, *, status: str, usage: Usage, steps: int = 0,
                      tool_errors: int = 0, note: str = "") -> None:
        async with self.conn.transaction():
            await run_store.finish_run(self.conn, run_id, at=utc_iso_precise(self.clock()), status=status, steps=steps,
                                       tool_errors=tool_errors, prompt_tokens=usage.prompt_tokens,
                                       completion_tokens=usage.completion_tokens, note=note)

    async def _context(self, kind: str) -> list[dict]:
        """The fixed head of every request: the rules, the job, and the current bio.md."""
        return [
            {"role": "system", "content": prompts.system_prompt(
                kind, now=self.clock().astimezone(self.config.zone), timezone=str(self.config.zone),
                owner=self.config.owner)},
            {"role": "system", "content": prompts.profile_message(await self.bio())},
        ]

    async def catalogue(self) -> Catalogue:
        """What the store holds (kinds, people, dates), recomputed only when sources change."""
        # the people listed for a remote model depend on the policies too
        key = (await catalogue_store.fingerprint(self.conn), await disclosure_store.last_change(self.conn),
               await disclosure_store.count_policies(self.conn) if self.remote else None)
        if self._catalogue is None or self._catalogue[0] != key:
            span = await catalogue_store.time_span(self.conn)
            catalogue = Catalogue(kinds=tuple(await catalogue_store.kinds(self.conn)),
                                  people=tuple(await message_store.frequent_senders(
                                      self.conn, limit=13, without_denied=self.remote)),
                                  first=self._day(span.first), last=self._day(span.last))
            self._catalogue = (key, catalogue)
        return self._catalogue[1]

    def _day(self, moment: str | None) -> str | None:
        parsed = parse_utc(moment)
        return parsed.astimezone(self.config.zone).strftime("%Y-%m-%d") if parsed else None

    async def _agent(self, *, kind: str, prompt: str, role: str, budget: int, user: list[dict],
                     tools: tuple[str, ...], needs_evidence: NeedsEvidence | None, turn: Turn | None = None,
                     edit_kind: str = "edit", cuttable_user: bool = True,
                     watcher: Watcher | None = None) -> tuple[LoopResult, Turn]:
        """One run. The profile and all but the last user message may be cut to fit the window
        (the last too, unless `cuttable_user` is off); the loop adds the tool results."""
        run_id = await self._start(kind, role)
        turn = turn or Turn(run_id=None)
        turn.run_id, turn.edit_kind = run_id, edit_kind
        turn.catalogue = await self.catalogue()
        loop = ToolLoop(self._require_llm(), self.toolbox, role=role, budget=budget,
                        schemas=tool_schemas(tools, turn.catalogue), window=self.config.window,
                        needs_evidence=needs_evidence, watcher=watcher)
        messages = await self._context(prompt) + user
        cuttable = set(range(1, len(messages) - (0 if cuttable_user else 1)))
        try:
            result = await loop.run(messages, turn, cuttable=cuttable)
        except BaseException:
            partial = loop.result
            await self._finish(run_id, status="failed", usage=partial.usage, steps=partial.steps,
                               tool_errors=partial.tool_errors)
            raise
        status = "forced" if result.forced else "done"
        await self._finish(run_id, status="cut" if result.truncated else status, usage=result.usage,
                           steps=result.steps, tool_errors=result.tool_errors,
                           note="nudged: no tool call at first" if result.nudged else "")
        return result, turn

    async def _cited(self, result: LoopResult, turn: Turn) -> Answer:
        return await check_citations(result.content, turn.evidence, self._read_text, run_id=turn.run_id)

    async def _read_text(self, locator: Locator, window: int) -> str:
        return (await self.memory.read(locator, window=window)).text

    async def _check_cap(self) -> None:
        cap = self.config.daily_token_cap
        if cap and await self.tokens_today() >= cap:
            raise TokenCapReached(f"today's token cap ({cap:,}) is spent; analysis waits until tomorrow (UTC)",
                                  hint="your own questions still get answers; raise BIOGRAPHER_LLM_DAILY_TOKEN_CAP "
                                       "to analyse more today")

    async def tokens_today(self) -> int:
        start = self.clock().astimezone(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
        return await run_store.tokens_since(self.conn, utc_iso_precise(start))

    # ------------------------------------------------------------------ chat

    async def ask(self, text: str, *, conversation: str = "cli", watcher: Watcher | None = None) -> Answer:
        """The owner's question answered from their sources; `watcher` sees the run as it goes."""
        if not text.strip():
            raise UserFacingError("nothing to answer", hint="ask a question about your life")
        tail = await chat_store.tail(self.conn, conversation, limit=self.config.chat_tail)
        user = [{"role": t.role, "content": t.text} for t in tail] + [{"role": "user", "content": text}]
        turn = Turn(run_id=None, owner_said=text, owner_words=(text, *(t.text for t in tail if t.role == "user")))
        result, turn = await self._agent(
            kind="chat", prompt="chat", role="chat", budget=self.config.chat_steps, user=user, turn=turn,
            tools=self.config.chat_tools, edit_kind="correction", cuttable_user=False,
            needs_evidence=lambda reply: not turn.evidence.cites_seen(reply), watcher=watcher)
        answer = await self._cited(result, turn)
        if result.successful_calls == 0 and not answer.citations:
            # still no tool call after the nudge: say so, in the answer itself, wherever it is shown
            answer = replace(answer, text=f"{UNCHECKED}\n\n{answer.text}", checked=False)
        async with self.conn.transaction():
            now = utc_iso_precise(self.clock())
            await chat_store.add_turn(self.conn, conversation=conversation, role="user", text=text, at=now)
            await chat_store.add_turn(self.conn, conversation=conversation, role="assistant", text=answer.text, at=now)
        # the conversation is logged (chat_turns) but is no source: a question is not evidence, and
        # kept as one it would rank above the real evidence in search. What the owner states about
        # their life becomes a source through `remember` (the model's tool, or the owner's command).
        return answer

    async def last_conversation(self, prefix: str) -> str | None:
        """The key of the latest conversation whose key starts with `prefix` (to resume it)."""
        return await chat_store.latest_conversation(self.conn, prefix)

    async def remember(self, text: str, *, when: datetime | None = None, conversation: str = "biographer") -> Locator:
        """Store the owner's words as a dated source; returns where they are."""
        if not text.strip():
            raise UserFacingError("nothing to remember", hint="say what to keep")
        moment = when or self.clock()
        moment = (moment if moment.tzinfo else moment.replace(tzinfo=self.config.zone)).astimezone(self.config.zone)
        message = Message(sender=self.config.owner, text=text.strip(), time=moment, is_owner=True)
        identity = "biographer:" + hashlib.sha1(f"{conversation}|{utc_iso_precise(moment)}|{text}".encode()).hexdigest()
        await self.memory.save([SourceDocument(
            kind=CHAT_KIND, name="Told to the biographer", identity=identity, messages=iter([message]),
            conversation=Conversation(platform="biographer", key=conversation, name="Told to the biographer",
                                      participants=(self.config.owner,)),
        )])
        document_id = await document_store.find_by_identity(self.conn, identity)
        return Locator(document_id, 0, len(render_message(message)))

    # ------------------------------------------------------------------ questions

    async def open_questions(self) -> list[OpenQuestion]:
        return [_question(r) for r in await question_store.list_questions(self.conn, statuses=("open", "asked"))]

    async def next_question(self) -> OpenQuestion | None:
        horizon = self.clock() - timedelta(days=self.config.question_repeat_days)
        row = await question_store.next_question(self.conn, asked_before=utc_iso_precise(horizon))
        return _question(row) if row else None

    async def mark_asked(self, question_id: int, when: datetime) -> None:
        async with self.conn.transaction():
            await question_store.mark_asked(self.conn, question_id, utc_iso_precise(when))

    async def answer_question(self, question_id: int, text: str) -> Answer:
        row = await question_store.get_question(self.conn, question_id)
        if row is None:
            raise UserFacingError(f"there is no question #{question_id}", hint="see `biographer questions`")
        question = _question(row)
        if question.status not in ("open", "asked"):
            raise UserFacingError(f"question #{question_id} is already {question.status}",
                                  hint="tell me in the chat if something changed")
        locator = await self.remember(text, conversation="questions")
        source = await self.memory.read(locator)
        turn = Turn(run_id=None)
        turn.evidence.add(locator, source.document, await self.toolbox.when_at(locator))
        user = [{"role": "user", "content":
                 f"Open question #{question.id}: {neutralise(question.text)}\n"
                 + (f"Why it matters: {neutralise(question.why)}\n" if question.why else "")
                 + "The owner's answer:\n"
                 + self.toolbox.source(locator, source.document, await self.toolbox.when_at(locator), source.text)}]
        result, turn = await self._agent(kind="answer", prompt="answer", role="analysis",
                                         budget=self.config.analysis_steps, user=user, turn=turn,
                                         tools=ANALYSIS_TOOLS, needs_evidence=lambda reply: True,
                                         edit_kind="correction", cuttable_user=False)
        if question_id not in turn.questions_resolved:
            # the owner answered it: it is closed whether or not the model remembered to say so
            async with self.conn.transaction():
                await question_store.resolve(self.conn, question_id, status="answered",
                                             resolution=f"answered by the owner [{locator}]", at=utc_iso_precise(self.clock()))
        async with self.conn.transaction():  # folded in already: analysis need not read it again
            await chat_store.mark_analyzed(self.conn, locator.document_id, locator.char_end,
                                           run_id=turn.run_id, at=utc_iso_precise(self.clock()))
        return await self._cited(result, turn)

    # ------------------------------------------------------------------ profile

    async def bio(self) -> str:
        return render(await self.book.text(), events=await self.timeline(), questions=await self.open_questions())

    async def timeline(self) -> list[TimelineEvent]:
        return [TimelineEvent(id=e.id, date=e.date, title=e.title, detail=e.detail, locators=e.locators)
                for e in await timeline_store.list_events(self.conn)]

    # ------------------------------------------------------------------ analysis

    async def analyze(self, *, progress: Progress = no_progress, max_batches: int | None = None) -> AnalysisResult:
        """Read new material oldest first, one budgeted run per batch, until done or capped."""
        outcome = AnalysisResult()
        # a remote model reads only sources whose policy lets their text leave; the others wait
        # (for a local model or a changed policy)
        total = await chat_store.count_pending_chunks(self.conn, exclude_kinds=NOT_ANALYSED, disclosed_only=self.remote)
        documents: set[int] = set()
        while True:
            rows = await chat_store.pending_chunks(self.conn, exclude_kinds=NOT_ANALYSED, limit=500,
                                                   disclosed_only=self.remote)
            if not rows:
                break
            if max_batches is not None and outcome.batches >= max_batches:
                outcome.stopped = f"stopped after {counted(max_batches, 'batch')}; run analyze again to go on"
                break
            try:
                await self._check_cap()
            except TokenCapReached as error:
                outcome.stopped = error.message
                break
            batch = _batch(rows, self.config.batch_chars, tokens=self._material_tokens())
            progress("analysing", outcome.chunks_read, total)
            turn, read = await self._analyse_batch(batch, number=outcome.batches + 1)
            outcome.run_ids.append(turn.run_id)
            if not read:
                outcome.stopped = (f"the model did not read batch {outcome.batches + 1} (it made no tool call, "
                                   "even when asked to); its passages stay queued: check that "
                                   "BIOGRAPHER_LLM_ANALYSIS_MODEL (or BIOGRAPHER_LLM_MODEL) supports tool calling")
                break
            outcome.batches += 1
            outcome.chunks_read += len(batch)
            outcome.edits += turn.edits
            outcome.questions_added += turn.questions_added
            outcome.events_added += turn.events_added
            documents.update(c.document_id for c in batch)
        progress("analysing", outcome.chunks_read, total)
        outcome.documents = len(documents)
        outcome.remaining_chunks = await chat_store.count_pending_chunks(self.conn, exclude_kinds=NOT_ANALYSED,
                                                                         disclosed_only=self.remote)
        return outcome

    def _material_tokens(self) -> int:
        """How much new material one analysis run may be shown: a share of the prompt window."""
        return int(self.config.window.prompt * MATERIAL_SHARE)

    async def analysis_status(self) -> AnalysisStatus:
        """What waits for analysis, and whether the last run left its batch unread."""
        pending = await chat_store.count_pending_chunks(self.conn, exclude_kinds=NOT_ANALYSED)
        latest = await run_store.latest_run(self.conn, "ingest_analysis")
        unread = latest is not None and latest.status == "unread"
        return AnalysisStatus(pending=pending, last_unread=latest.started_at if unread else None,
                              note=latest.note if unread else "")

    async def _analyse_batch(self, batch: list[PendingChunk], *, number: int) -> tuple[Turn, bool]:
        """One run over a batch; (what it did, whether it read it). A batch counts as read only
        when the model really worked on it (a tool call that ran) and its run was not cut short;
        otherwise it stays queued, so no material is ever marked read unread."""
        turn = Turn(run_id=None)
        blocks = []
        for chunk in batch:
            locator = Locator(chunk.document_id, chunk.char_start, chunk.char_end)
            when = parse_utc(chunk.time_start)
            when = when.astimezone(self.config.zone) if when else None
            turn.evidence.add(locator, chunk.document, when)
            blocks.append(self.toolbox.source(locator, chunk.document, when, chunk.text, kind=chunk.kind))
        first, last = batch[0].time_start, batch[-1].time_end or batch[-1].time_start
        header = (f"New material, batch {number}: {counted(len(batch), 'passage')} from "
                  f"{counted(len({c.document_id for c in batch}), 'source')}, {(first or 'undated')[:10]} to "
                  f"{(last or 'undated')[:10]}.")
        user = [{"role": "user", "content": header + "\n\n" + "\n".join(blocks)}]
        result, turn = await self._agent(kind="ingest_analysis", prompt="analysis", role="analysis",
                                         budget=self.config.ingest_steps, user=user, turn=turn,
                                         tools=ANALYSIS_TOOLS, needs_evidence=lambda reply: True,
                                         cuttable_user=False)
        if result.successful_calls == 0 or result.truncated:
            note = "not read: cut at the length limit" if result.truncated else NOT_READ
            async with self.conn.transaction():
                await run_store.set_status(self.conn, turn.run_id, status="unread", note=note)
            log.warning("analysis batch %d left queued: %s", number, note)
            return turn, False
        async with self.conn.transaction():
            reached: dict[int, int] = {}
            for chunk in batch:
                reached[chunk.document_id] = max(reached.get(chunk.document_id, 0), chunk.char_end)
            for document_id, end in reached.items():
                await chat_store.mark_analyzed(self.conn, document_id, end, run_id=turn.run_id, at=utc_iso_precise(self.clock()))
        return turn, True

    # ------------------------------------------------------------------ report

    async def report(self, *, days: int = 7) -> Answer:
        await self._check_cap()
        until = self.clock()
        since = until - timedelta(days=days)
        listing = _period_listing(await chat_store.documents_between(
            self.conn, utc_iso_precise(since), utc_iso_precise(until)), remote=self.remote)
        zone = self.config.zone
        user = [{"role": "user", "content":
                 f"Period: {since.astimezone(zone):%Y-%m-%d} to {until.astimezone(zone):%Y-%m-%d} ({counted(days, 'day')}).\n"
                 f"Sources with material in the period:\n{listing}\n"
                 "Read them with search, grep (since/until) and read_source."}]
        turn = Turn(run_id=None)
        result, turn = await self._agent(kind="report", prompt="report", role="analysis",
                                         budget=self.config.analysis_steps, user=user, tools=REPORT_TOOLS,
                                         turn=turn, needs_evidence=lambda reply: not turn.evidence.cites_seen(reply))
        answer = await self._cited(result, turn)
        if result.successful_calls == 0 and not answer.citations:
            answer = replace(answer, text=f"{UNCHECKED}\n\n{answer.text}", checked=False)
        if result.truncated:  # never kept as if complete
            answer = replace(answer, text=f"{CUT_REPORT}\n\n{answer.text}")
        await self.memory.save([SourceDocument(
            kind=REPORT_KIND, identity=f"report:{turn.run_id}",
            name=f"Pattern report {since.astimezone(zone):%Y-%m-%d} – {until.astimezone(zone):%Y-%m-%d}",
            text=answer.render(), time_start=until)])
        return answer

    # ------------------------------------------------------------------ consolidation

    async def consolidate(self, *, force: bool = False) -> bool:
        """Rewrite each section coherently; a rewrite that loses a citation or a section is refused."""
        if not force and await self.book.edits_since_consolidation() == 0:
            return False
        await self._check_cap()
        llm = self._require_llm()
        run_id = await self._start("consolidation", "analysis")
        usage, refused = Usage(), []
        before = await self.book.text()
        after = before
        try:
            for section in sections_of(before):
                if section in GENERATED:
                    continue
                start, end = section_span(after, section)
                body = after[start:end].strip()
                if not body:
                    continue
                # the rewrite is about as long as the section: room for it, within the window
                room = min(estimate_tokens(body) * 3 // 2 + 200, self.config.context_tokens // 2)
                completion = await llm.complete(
                    [{"role": "system", "content": prompts.system_prompt(
                        "consolidate", now=self.clock().astimezone(self.config.zone),
                        timezone=str(self.config.zone), owner=self.config.owner)},
                     {"role": "user", "content": f"Section: {section}\n<section>\n{neutralise(body)}\n</section>"}],
                    role="analysis", max_tokens=room)
                usage = usage + completion.usage
                rewritten = _unfenced(completion.content or "")
                problems = ("the rewrite was cut at the length limit" if completion.truncated
                            else _section_problems(body, rewritten))
                if problems:
                    refused.append(f"{section}: {problems}")
                    log.warning("consolidation of %s refused: %s", section, problems)
                    continue
                after = after[:start] + "\n" + rewritten + "\n\n" + after[end:].lstrip("\n")
            problems = consolidation_problems(before, after)
            if problems:  # belt and braces: the section checks should have caught it
                refused.append("; ".join(problems))
                after = before
        except BaseException:
            await self._finish(run_id, status="failed", usage=usage)
            raise
        replaced = after != before
        if replaced:
            await self.book.replace(after, kind="consolidation", run_id=run_id)
        await self._finish(run_id, status="done" if not refused else "partly refused", usage=usage,
                           note="; ".join(refused))
        return replaced

    # ------------------------------------------------------------------ usage


def _batch(rows: list[PendingChunk], budget: int, *, tokens: int) -> list[PendingChunk]:
    """As many passages as fit in `budget` characters and `tokens` estimated tokens (at least one)."""
    batch, used, used_tokens = [], 0, 0
    for row in rows:
        size = estimate_tokens(row.text)
        if batch and (used + len(row.text) > budget or used_tokens + size > tokens):
            break
        batch.append(row)
        used += len(row.text)
        used_tokens += size
    return batch


def _section_problems(old: str, new: str) -> str:
    if not new.strip():
        return "the rewrite is empty"
    if re.search(r"^#{1,2} ", new, re.MULTILINE):
        return "the rewrite adds headings"
    dropped = sorted(citations_in(old) - citations_in(new))
    return f"citations dropped: {', '.join(dropped)}" if dropped else ""


def _unfenced(text: str) -> str:
    text = text.strip()
    match = re.fullmatch(r"```[a-zA-Z]*\n(.*)\n```", text, re.DOTALL)
    return (match.group(1) if match else text).strip()


def _question(row: QuestionRow) -> OpenQuestion:
    return OpenQuestion(id=row.id, text=row.text, why=row.why, priority=row.priority, status=row.status,
                        created_at=parse_utc(row.created_at), asked_at=parse_utc(row.asked_at),
                        times_asked=row.times_asked, answered_at=parse_utc(row.answered_at),
                        resolution=row.resolution, locators=row.locators)
