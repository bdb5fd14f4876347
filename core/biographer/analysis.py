"""Analysis of new material: the queued passages, oldest first, in batches sized to the window,
one budgeted run per batch; a batch is marked read only when the model really worked on it."""

from __future__ import annotations

import logging

from core.agent.budget import estimate_tokens
from core.agent.config import ANALYSIS_TOOLS, AnalysisStatus
from core.agent.tools import Turn
from core.biographer.report import REPORT_KIND
from core.biographer.runner import Runner, TokenCapReached
from core.ports import Progress, no_progress
from core.times import parse_utc
from core.types import AnalysisResult, Locator
from core.words import counted
from storage import chat as chat_store
from storage import runs as run_store
from storage.chat import PendingChunk

log = logging.getLogger(__name__)

NOT_ANALYSED = (REPORT_KIND,)  # the biographer's own writing is not evidence about the owner
NOT_READ = "not read: the model made no tool call"
MATERIAL_SHARE = 0.4  # of the prompt window, for one analysis batch of new material


class Analysis:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.conn = runner.conn

    async def analyze(self, *, progress: Progress = no_progress, max_batches: int | None = None) -> AnalysisResult:
        """Read new material oldest first, one budgeted run per batch, until done or capped."""
        outcome = AnalysisResult()
        # a remote model reads only sources whose policy lets their text leave; the others wait
        # (for a local model or a changed policy)
        remote = self.runner.remote
        total = await chat_store.count_pending_chunks(self.conn, exclude_kinds=NOT_ANALYSED, disclosed_only=remote)
        documents: set[int] = set()
        while True:
            rows = await chat_store.pending_chunks(self.conn, exclude_kinds=NOT_ANALYSED, limit=500,
                                                   disclosed_only=remote)
            if not rows:
                break
            if max_batches is not None and outcome.batches >= max_batches:
                outcome.stopped = f"stopped after {counted(max_batches, 'batch')}; run analyze again to go on"
                break
            try:
                await self.runner.check_cap()
            except TokenCapReached as error:
                outcome.stopped = error.message
                break
            batch = _batch(rows, self.runner.config.batch_chars, tokens=self._material_tokens())
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
                                                                         disclosed_only=remote)
        return outcome

    def _material_tokens(self) -> int:
        """How much new material one analysis run may be shown: a share of the prompt window."""
        return int(self.runner.config.window.prompt * MATERIAL_SHARE)

    async def status(self) -> AnalysisStatus:
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
        runner = self.runner
        turn = Turn(run_id=None)
        blocks = []
        for chunk in batch:
            locator = Locator(chunk.document_id, chunk.char_start, chunk.char_end)
            when = parse_utc(chunk.time_start)
            when = when.astimezone(runner.config.zone) if when else None
            turn.evidence.add(locator, chunk.document, when)
            blocks.append(runner.toolbox.source(locator, chunk.document, when, chunk.text, kind=chunk.kind))
        first, last = batch[0].time_start, batch[-1].time_end or batch[-1].time_start
        header = (f"New material, batch {number}: {counted(len(batch), 'passage')} from "
                  f"{counted(len({c.document_id for c in batch}), 'source')}, {(first or 'undated')[:10]} to "
                  f"{(last or 'undated')[:10]}.")
        user = [{"role": "user", "content": header + "\n\n" + "\n".join(blocks)}]
        result, turn = await runner.agent(kind="ingest_analysis", prompt="analysis", role="analysis",
                                          budget=runner.config.ingest_steps, user=user, turn=turn,
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
                await chat_store.mark_analyzed(self.conn, document_id, end, run_id=turn.run_id, at=runner.now_iso())
        return turn, True


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
