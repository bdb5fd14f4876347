"""What every biographer run shares: the model, the run records, the fixed head of each request
(rules, job, current bio.md), the catalogue, the tool loop, citation checks, the daily token cap,
and the owner's words kept as a source."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

from core.agent import prompts
from core.agent.citations import check_citations
from core.agent.config import AgentConfig
from core.agent.loop import LoopResult, NeedsEvidence, ToolLoop, Watcher
from core.agent.schemas import Catalogue, tool_schemas
from core.agent.tools import Toolbox, Turn
from core.biographer.profile_book import ProfileBook, render
from core.errors import ModelUnavailable, UserFacingError
from core.memory.chunking import render_message
from core.memory.facade import Memory
from core.ports import LLM, Usage
from core.times import Clock, parse_utc, utc_iso_precise
from core.types import Answer, Conversation, Locator, Message, OpenQuestion, SourceDocument, TimelineEvent
from storage import catalogue as catalogue_store
from storage import disclosure as disclosure_store
from storage import documents as document_store
from storage import messages as message_store
from storage import questions as question_store
from storage import runs as run_store
from storage import timeline as timeline_store
from storage.questions import QuestionRow

CHAT_KIND = "biographer_chat"
UNCHECKED = ("(Not checked against your sources: the model answered without looking anything up, "
             "so treat this as its guess.)")


class TokenCapReached(UserFacingError):
    """Today's token cap is spent: analysis waits; the owner's own questions still run."""


class Runner:
    """The plumbing the biographer's runs share; one per Biographer."""

    def __init__(self, memory: Memory, llm: LLM | None, *, config: AgentConfig, clock: Clock) -> None:
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

    def require_llm(self) -> LLM:
        if self.llm is None:
            raise ModelUnavailable("no language model is configured",
                                   hint="set BIOGRAPHER_LLM_API_KEY for OpenRouter (the default) or "
                                        "OpenAI, or point BIOGRAPHER_LLM_BASE_URL at a local Ollama "
                                        "(http://localhost:11434/v1): see .env.example")
        return self.llm

    def now_iso(self) -> str:
        return utc_iso_precise(self.clock())

    # ------------------------------------------------------------------ run records

    async def start(self, kind: str, role: str) -> int:
        llm = self.require_llm()
        async with self.conn.transaction():
            return await run_store.start_run(self.conn, kind=kind, role=role, model=llm.model_for(role),
                                             at=self.now_iso())

    async def finish(self, run_id: int, *, status: str, usage: Usage, steps: int = 0,
                     tool_errors: int = 0, note: str = "") -> None:
        async with self.conn.transaction():
            await run_store.finish_run(self.conn, run_id, at=self.now_iso(), status=status, steps=steps,
                                       tool_errors=tool_errors, prompt_tokens=usage.prompt_tokens,
                                       completion_tokens=usage.completion_tokens, note=note)

    async def check_cap(self) -> None:
        cap = self.config.daily_token_cap
        if cap and await self.tokens_today() >= cap:
            raise TokenCapReached(f"today's token cap ({cap:,}) is spent; analysis waits until tomorrow (UTC)",
                                  hint="your own questions still get answers; raise BIOGRAPHER_LLM_DAILY_TOKEN_CAP "
                                       "to analyse more today")

    async def tokens_today(self) -> int:
        start = self.clock().astimezone(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
        return await run_store.tokens_since(self.conn, utc_iso_precise(start))

    # ------------------------------------------------------------------ what a run sees

    async def bio(self) -> str:
        return render(await self.book.text(), events=await self.timeline(), questions=await self.open_questions())

    async def timeline(self) -> list[TimelineEvent]:
        return [TimelineEvent(id=e.id, date=e.date, title=e.title, detail=e.detail, locators=e.locators)
                for e in await timeline_store.list_events(self.conn)]

    async def open_questions(self) -> list[OpenQuestion]:
        return [question_of(r) for r in await question_store.list_questions(self.conn, statuses=("open", "asked"))]

    async def context(self, kind: str) -> list[dict]:
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

    # ------------------------------------------------------------------ one run

    async def agent(self, *, kind: str, prompt: str, role: str, budget: int, user: list[dict],
                    tools: tuple[str, ...], needs_evidence: NeedsEvidence | None, turn: Turn | None = None,
                    edit_kind: str = "edit", cuttable_user: bool = True,
                    watcher: Watcher | None = None) -> tuple[LoopResult, Turn]:
        """One run. The profile and all but the last user message may be cut to fit the window
        (the last too, unless `cuttable_user` is off); the loop adds the tool results."""
        run_id = await self.start(kind, role)
        turn = turn or Turn(run_id=None)
        turn.run_id, turn.edit_kind = run_id, edit_kind
        turn.catalogue = await self.catalogue()
        loop = ToolLoop(self.require_llm(), self.toolbox, role=role, budget=budget,
                        schemas=tool_schemas(tools, turn.catalogue), window=self.config.window,
                        needs_evidence=needs_evidence, watcher=watcher)
        messages = await self.context(prompt) + user
        cuttable = set(range(1, len(messages) - (0 if cuttable_user else 1)))
        try:
            result = await loop.run(messages, turn, cuttable=cuttable)
        except BaseException:
            partial = loop.result
            await self.finish(run_id, status="failed", usage=partial.usage, steps=partial.steps,
                              tool_errors=partial.tool_errors)
            raise
        status = "forced" if result.forced else "done"
        await self.finish(run_id, status="cut" if result.truncated else status, usage=result.usage,
                          steps=result.steps, tool_errors=result.tool_errors,
                          note="nudged: no tool call at first" if result.nudged else "")
        return result, turn

    async def cited(self, result: LoopResult, turn: Turn) -> Answer:
        return await check_citations(result.content, turn.evidence, self._read_text, run_id=turn.run_id)

    async def _read_text(self, locator: Locator, window: int) -> str:
        return (await self.memory.read(locator, window=window)).text

    # ------------------------------------------------------------------ the owner's words

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


def question_of(row: QuestionRow) -> OpenQuestion:
    return OpenQuestion(id=row.id, text=row.text, why=row.why, priority=row.priority, status=row.status,
                        created_at=parse_utc(row.created_at), asked_at=parse_utc(row.asked_at),
                        times_asked=row.times_asked, answered_at=parse_utc(row.answered_at),
                        resolution=row.resolution, locators=row.locators)
