"""The one facade the front ends call (CLI, Telegram, Discord, the HTTP server): the memory core,
the biographer (answers, bio.md, open questions, timeline, reports), sources, people, the owner's
schedule preferences and the chat prompts. Front ends never reach past it: no connection, no
storage module, no memory internals."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta, tzinfo
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from core.privacy.backups import take_backup
from core.agent.config import AgentConfig, AnalysisStatus
from core.chat.capture import journal_identity_prefix, save_photos, save_recording
from core.serving.clients import OWNER, Client, ClientBook, ClientInfo, IssuedToken
from core.privacy.disclosure import Disclosure, PolicyChange
from core.errors import ModelUnavailable, StoreBusy, UserFacingError
from core.chat.forwards import Forwarded, forwards_document, forwards_from_payload, forwards_payload
from core.chat.inbox import Inbox
from core.times import Clock, utc_iso, utc_now
from core.schedule.jobs import PromptBook
from core.memory.facade import Memory
from core.serving.memory_api import Filters, IndexState, ListPage, MemoryApi, ReadAnswer, SearchAnswer
from core.serving.page_sessions import NewSession, PageSession, PageSessions
from core.ports import LLM, Progress, no_progress
from core.schedule.preferences import PreferenceStore, Preferences, ScheduleDefaults
from core.serving.saves import DeletedRecord, SavedRecord, SaveBook, SaveRequest, SaveShelf
from storage.saves import SavedVersion
from core.memory.sources import Forgotten, Source, export_sources, find_sources_by_identity_prefix, get_source, list_sources
from core.types import (AnalysisResult, Answer, GrepPage, IngestReport, Locator, OpenQuestion, ProfileEdit,
                        SearchFilters, SearchHit, SourceText, TimelineEvent)
from storage import people as people_store
from storage.disclosure import PolicyRow
from storage import ledger as ledger_store
from storage import runs as run_store
from storage.db import busy_notice

if TYPE_CHECKING:
    from core.biographer.runs import Biographer
    from core.chat.live import LiveRecorder
    from core.feeds.facade import Feeds
    from core.memory.embedding_choice import EmbeddingAdvice
    from core.ledger.book import Ledger, LedgerItem, LedgerQuery
    from core.ledger.extraction import ExtractionResult
    from core.ledger.people import PersonPage
    from core.ledger.reminders import ReminderBatch
    from core.pictures import Picture
    from core.pictures.gather import Pictures

log = logging.getLogger(__name__)

Person = people_store.Person
UnmatchedSender = people_store.UnmatchedSender


@dataclass(frozen=True)
class SavedForwards:
    """What became of a burst of forwards: saved now, or kept in the inbox for later."""

    report: IngestReport | None  # None: the store was busy; the burst waits in the inbox
    items: Sequence[Forwarded]


class Service:
    def __init__(self, *, memory: Memory, llm: LLM | None = None, config: AgentConfig = AgentConfig(),
                 clock: Clock = utc_now, schedule: ScheduleDefaults = ScheduleDefaults(),
                 data_dir: Path | None = None, ledger_window_chars: int = 12_000,
                 feeds: Feeds | None = None, live: LiveRecorder | None = None) -> None:
        """`feeds`: the mail accounts and watched paths (made by the composition root, which knows
        where their passwords are read from); `live`: the owner's Telegram chats recorded through a
        business connection (made there too, knowing the owner's ids)."""
        self.memory = memory
        self.feeds = feeds
        self.live = live
        self.llm = llm
        self.config = config
        self.clock = clock
        self.ledger_window_chars = ledger_window_chars
        self.preferences = PreferenceStore(memory.conn, schedule)
        self.prompts = PromptBook(memory.conn)
        self.data_dir = data_dir
        key = memory.conn.key
        self.inbox = Inbox(data_dir / "inbox", key=key.files if key else None) if data_dir else None
        self.clients = ClientBook(memory.conn)
        self.memory_api = MemoryApi(memory)
        self.saves = SaveBook(memory)
        self.save_shelf = SaveShelf(memory)
        self.page_sessions = PageSessions(memory.conn, self.clients, clock=clock)
        self.disclosure = Disclosure(memory.conn, clock=clock)

    # the agent, the ledger's reader and the pictures load their libraries (jsonschema, matplotlib)
    # on first use: `biographer grep` and the like never pay for them
    @cached_property
    def biographer(self) -> Biographer:
        from core.biographer.runs import Biographer

        return Biographer(self.memory, self.llm, config=self.config, clock=self.clock)

    @cached_property
    def ledger(self) -> Ledger:
        from core.ledger.book import Ledger

        return Ledger(self.memory.conn, owner_aliases=self.memory.context.owner_aliases | {self.config.owner},
                      clock=self.clock)

    @cached_property
    def pictures(self) -> Pictures:
        from core.pictures.gather import Pictures

        return Pictures(self.memory.conn, zone=self.memory.context.timezone,
                        owner_names=self.memory.context.owner_aliases, timeline=self.timeline, clock=self.clock)

    @property
    def timezone(self) -> tzinfo:
        """The zone the owner's times are shown in."""
        return self.memory.context.timezone

    # ------------------------------------------------------------ the memory: find and read

    async def warm_up(self, *, vector_memory_mb: int | None = None) -> None:
        """Load what search keeps in memory now, so a long-running process (the bots, the server)
        answers its first question as fast as its hundredth; its vectors too while they fit
        `vector_memory_mb` (None: the index's default)."""
        await self.memory.warm_up(
            vector_budget_bytes=None if vector_memory_mb is None else vector_memory_mb << 20)

    async def search(self, query: str, *, limit: int = 10, mode: str = "hybrid",
                     filters: SearchFilters = SearchFilters()) -> list[SearchHit]:
        return await self.memory.search(query, limit=limit, mode=mode, filters=filters)

    async def grep(self, pattern: str, *, regex: bool = False, page: int = 1, page_size: int = 20,
                   newest_first: bool = True, filters: SearchFilters = SearchFilters()) -> GrepPage:
        return await self.memory.grep(pattern, regex=regex, page=page, page_size=page_size,
                                      newest_first=newest_first, filters=filters)

    async def read(self, locator: Locator | str, *, window: int = 0) -> SourceText:
        return await self.memory.read(locator, window=window)

    async def stats(self) -> dict:
        """What the memory holds, and the model tokens used per day and role."""
        stats = await self.memory.stats()
        stats["token_usage"] = await self.usage()
        return stats

    # ------------------------------------------------------------ the memory: add and remove

    async def import_files(self, paths: Sequence[Path], *, progress: Progress = no_progress, index: bool = True,
                           on_busy: Callable[[float], object] | None = None) -> IngestReport:
        """Import files or folders; one bad file never stops the others (see report.errors).
        While another process holds the store's write lock, `on_busy(seconds waited)` is called
        now and then (a note for the owner) and the import waits instead of failing."""
        token = busy_notice.set(on_busy) if on_busy else None
        try:
            return await self.memory.ingest(paths, progress=progress, index=index)
        finally:
            if token is not None:
                busy_notice.reset(token)

    async def index_pending(self, *, progress: Progress = no_progress) -> int:
        return await self.memory.index_pending(progress=progress)

    async def reindex(self, *, progress: Progress = no_progress) -> int:
        return await self.memory.reindex(progress=progress)

    async def embedding_advice(self) -> EmbeddingAdvice:
        """The store's languages, its embedding model, and whether another would suit it better."""
        return await self.memory.embedding_advice()

    async def save_forwards(self, items: Sequence[Forwarded], *, platform: str, chat_key: str,
                            owner_ids: frozenset[str]) -> SavedForwards:
        """Save a burst of forwarded messages under their original senders and dates. The burst is
        on disk before the store is touched, so a busy store or a kill loses nothing."""
        payload = forwards_payload(items, platform=platform, chat_key=chat_key, owner_ids=owner_ids)
        entry = self.inbox.put("forwards", payload) if self.inbox else None
        try:
            report = await self._save_forwards_payload(payload)
        except StoreBusy:
            log.warning("store busy: %d forwarded messages kept in the inbox for later", len(items))
            return SavedForwards(report=None, items=items)
        if entry is not None:
            self.inbox.done(entry)
        return SavedForwards(report=report, items=items)

    async def _save_forwards_payload(self, payload: dict) -> IngestReport:
        items, platform, chat_key, owner_ids = forwards_from_payload(payload)
        document = forwards_document(items, platform=platform, chat_key=chat_key, owner_ids=owner_ids,
                                     owner_names=self.memory.context.owner_aliases)
        return await self.memory.save([document])

    async def replay_inbox(self) -> int:
        """Save what earlier saves had to leave in the inbox; returns the messages saved."""
        if self.inbox is None:
            return 0
        saved = 0
        for entry, kind, payload in self.inbox.pending():
            if kind != "forwards":
                log.error("inbox entry %s has an unknown kind %r; left in place", entry.name, kind)
                continue
            try:
                report = await self._save_forwards_payload(payload)
            except StoreBusy:
                return saved  # still busy: try again on the next tick
            self.inbox.done(entry)
            saved += report.messages_added
        if saved:
            log.warning("saved %d forwarded messages that waited in the inbox", saved)
        return saved

    async def save_recording(self, path: Path, *, when: datetime) -> str:
        """Transcribe a voice note, keep it as a dated journal entry; returns the transcript."""
        return await save_recording(self.memory, path, when=when)

    async def save_photos(self, paths: Sequence[Path], *, caption: str, when: datetime,
                          key: str | None = None) -> str:
        """Keep photos sent together (described when a vision model is set) with their caption as
        one journal entry; returns what was saved. `key` names the platform message: saving it
        again (an edited caption) replaces the entry it made before."""
        earlier = await find_sources_by_identity_prefix(self.memory.conn, journal_identity_prefix("photo", key)) \
            if key else []
        text = await save_photos(self.memory, paths, caption=caption, when=when, key=key)
        for source in earlier:
            await self.forget(source.id)
        return text

    async def sources(self) -> list[Source]:
        return await list_sources(self.memory.conn)

    # ------------------------------------------------------------ what may leave the machine

    async def set_policy(self, target: str, policy: str) -> PolicyChange:
        """What of a source (its number) or of a kind of source may leave the machine: allow,
        descriptors_only or deny (core/privacy/disclosure.py). With a remote embedding endpoint its
        passages are embedded again under it (denied: their vectors go now)."""
        change = await self.disclosure.set(target, policy)
        await self.memory.policy_changed(change.documents, change.policy)
        return change

    async def clear_policy(self, target: str) -> PolicyChange:
        """A source back to its kind's policy, a kind back to allow."""
        change = await self.disclosure.clear(target)
        await self.memory.policy_changed(change.documents, change.policy)
        return change

    async def policies(self) -> list[PolicyRow]:
        return await self.disclosure.list()

    async def source_policies(self, source_ids: Sequence[int]) -> dict[int, str]:
        """The policy in force for each source."""
        return await self.disclosure.for_documents(list(source_ids))

    async def policy_counts(self) -> dict[str, int]:
        """How many sources are under each policy."""
        return await self.disclosure.counts()

    async def source(self, source_id: int) -> Source:
        """One source by its number, or a UserFacingError saying how to find the numbers."""
        found = await get_source(self.memory.conn, source_id)
        if found is None:
            raise UserFacingError(f"there is no source #{source_id}", hint="/sources (or `biographer sources`) lists them")
        return found

    async def forget(self, source_id: int) -> Forgotten:
        """Delete a source and everything taken from it, erased from the store's file and from
        every backup (see core.memory.sources.forget_source)."""
        return await self.memory.forget(source_id)

    async def export_sources(self, path: Path) -> Path:
        """Every source and message as one JSON file."""
        return await export_sources(self.memory.conn, path)

    async def export_all(self, directory: Path) -> dict[str, int]:
        """Everything, to take away: JSON lines, bio.md and its history, and a Markdown vault
        (see core/privacy/export.py); returns what was written, by kind."""
        from core.privacy.export import export_all

        written = await export_all(self.memory.conn, directory, read_document=self.memory.searcher.read_document,
                                   bio=await self.bio(), history=await self.bio_history(limit=2**31),
                                   timeline=await self.timeline(), questions=await self.open_questions())
        written["ledger items"] = await self._export_ledger(directory / "data" / "ledger.jsonl")
        return written

    async def _export_ledger(self, path: Path) -> int:
        from dataclasses import asdict

        from core.privacy.export import JsonLines

        out = JsonLines(path)
        for item in await ledger_store.export_items(self.memory.conn):
            out.write(asdict(item))
        out.close()
        return out.count

    async def backup(self, directory: Path, *, stamp: datetime | None = None, keep: int) -> Path:
        """A consistent copy of the store (safe while it is in use) with its raw copies, keeping
        the newest `keep`."""
        return await take_backup(self.memory.conn, backup_dir=directory, raw_dir=self.memory.raw_dir,
                                 keep=keep, now=stamp)

    # ------------------------------------------------------------ people

    async def people(self) -> list[Person]:
        await people_store.sync_from_messages(self.memory.conn)
        return await people_store.list_people(self.memory.conn)

    async def merge_people(self, keep: str, other: str) -> Person:
        """Make `other` another name of `keep`."""
        await people_store.sync_from_messages(self.memory.conn)
        return await people_store.merge(self.memory.conn, keep, other)

    async def unmatched_senders(self, *, limit: int = 50) -> list[UnmatchedSender]:
        await people_store.sync_from_messages(self.memory.conn)
        return await people_store.unmatched_senders(self.memory.conn, limit=limit)

    async def follow_owner_aliases(self) -> int:
        """Mark the stored messages again from the owner's aliases; how many changed."""
        from core.memory.owners import follow_owner_aliases

        return await follow_owner_aliases(self.memory.conn, self.memory.context, force=True) or 0

    # ------------------------------------------------------------ answers

    async def ask(self, text: str, *, conversation: str = "cli") -> Answer:
        """A cited answer from the owner's sources."""
        return await self.biographer.ask(text, conversation=conversation)

    async def last_conversation(self, prefix: str) -> str | None:
        """The latest conversation whose key starts with `prefix`, to resume it."""
        return await self.biographer.last_conversation(prefix)

    async def remember(self, text: str, *, when: datetime | None = None) -> Locator:
        """Store the owner's words as a dated source."""
        return await self.biographer.remember(text, when=when)

    # ------------------------------------------------------------ open questions and prompts

    async def open_questions(self) -> list[OpenQuestion]:
        return await self.biographer.open_questions()

    async def next_question(self) -> OpenQuestion | None:
        """The most valuable unanswered question not asked in the last few days."""
        return await self.biographer.next_question()

    async def mark_asked(self, question_id: int, when: datetime) -> None:
        await self.biographer.mark_asked(question_id, when)

    async def answer_question(self, question_id: int, text: str) -> Answer:
        """Store the owner's answer as a source and fold it into bio.md."""
        return await self.biographer.answer_question(question_id, text)

    async def record_prompt(self, *, question_id: str, platform: str, chat_id: str, message_id: str,
                            sent_at: datetime) -> None:
        """Remember which chat message asked which question, so a reply to it answers it."""
        await self.prompts.record(question_id=question_id, platform=platform, chat_id=chat_id,
                                  message_id=message_id, sent_at=sent_at)

    async def question_for_reply(self, *, platform: str, chat_id: str, message_id: str) -> int | None:
        """The open question a chat message asked, if it was one of the prompts."""
        return await self.prompts.question_for_reply(platform=platform, chat_id=chat_id, message_id=message_id)

    # ------------------------------------------------------------ bio.md and the timeline

    async def bio(self) -> str:
        return await self.biographer.bio()

    async def bio_history(self, limit: int = 50) -> list[ProfileEdit]:
        return await self.biographer.book.history(limit=limit)

    async def bio_diff(self, since: datetime) -> str:
        return await self.biographer.book.diff_since(since)

    async def undo_edit(self, edit_id: int) -> ProfileEdit:
        return await self.biographer.book.undo(edit_id)

    async def timeline(self) -> list[TimelineEvent]:
        return await self.biographer.timeline()

    # ------------------------------------------------------------ pictures

    async def picture(self, kind: str, *, since: datetime | None = None, until: datetime | None = None) -> Picture:
        """A picture of stored data, no model call: "week" (the seven days ending `until`, default
        today), "timeline" or "people" (who the owner talks to; default: all of it)."""
        return await self.pictures.make(kind, since=since, until=until)

    # ------------------------------------------------------------ analysis runs

    async def analyze(self, *, progress: Progress = no_progress, max_batches: int | None = None) -> AnalysisResult:
        """Read new material since the last analysis, oldest first, in budgeted batches."""
        return await self.biographer.analyze(progress=progress, max_batches=max_batches)

    async def analysis_status(self) -> AnalysisStatus:
        """Passages waiting for analysis, and whether the last run left its batch unread."""
        return await self.biographer.analysis_status()

    async def report(self, *, days: int = 7) -> Answer:
        """The pattern report of the last `days`, stored as a document, followed by the promises made
        in those days and those still open (from the ledger, exactly)."""
        answer = await self.biographer.report(days=days)
        until = self.clock()
        from core.ledger.weekly import with_promises

        return await with_promises(answer, self.memory.conn, since=until - timedelta(days=days), until=until,
                                   zone=self.config.zone)

    async def consolidate(self, *, force: bool = False) -> bool:
        """True if the profile was replaced by a verified, coherent rewrite."""
        return await self.biographer.consolidate(force=force)

    async def usage(self, *, days: int = 30) -> dict:
        """Model tokens per day and role: {day: {role: {"runs", "prompt_tokens", "completion_tokens"}}},
        newest day first (read from the runs table: no need to load the agent)."""
        out: dict[str, dict[str, dict[str, int]]] = {}
        for used in await run_store.usage_by_day(self.memory.conn, days=days):
            out.setdefault(used.day, {})[used.role] = {"runs": used.runs, "prompt_tokens": used.prompt_tokens,
                                                       "completion_tokens": used.completion_tokens}
        return out

    # ------------------------------------------------------------ the owner's schedule

    async def schedule(self) -> Preferences:
        return await self.preferences.load()

    async def set_schedule(self, key: str, value: str) -> Preferences:
        """Change one schedule setting (UserFacingError with a hint when the value is wrong)."""
        return await self.preferences.set(key, value)

    async def set_paused(self, paused: bool) -> None:
        await self.preferences.set_paused(paused)

    # ------------------------------------------------------------ the ledger

    async def ledger_items(self, query: LedgerQuery | None = None) -> list[LedgerItem]:
        """Every ledger item that matches (promises, debts, recommendations, facts), with sources."""
        from core.ledger.book import LedgerQuery

        return await self.ledger.items(query or LedgerQuery())

    async def ledger_item(self, item_id: int) -> LedgerItem:
        return await self.ledger.item(item_id)

    def due_date(self, text: str) -> date:
        """A due date as the owner types it (2024-05-10, tomorrow, friday, in 3 days), in their zone."""
        from core.ledger.book import parse_due

        return parse_due(text, today=self.clock().astimezone(self.config.zone).date())

    async def add_ledger_item(self, kind: str, text: str, *, person: str | None = None, due: date | None = None,
                              category: str | None = None, new_person: bool = False) -> tuple[LedgerItem, bool]:
        """An item the owner adds by hand; (item, False) when it was already kept (this adds a source)."""
        return await self.ledger.add(kind, text, person=person, due=due, category=category, new_person=new_person)

    async def set_ledger_status(self, item_id: int, status: str, *, via: str = "cli") -> LedgerItem:
        """The owner marks an item done, dropped, in progress or open again."""
        return await self.ledger.set_status(item_id, status, via=via)

    async def extract_ledger(self, *, max_windows: int | None = None,
                             progress: Progress = no_progress) -> ExtractionResult:
        """Read conversations not read yet into the ledger (checked proposals only)."""
        if self.llm is None:
            raise ModelUnavailable("reading conversations into the ledger needs a language model",
                                   hint="set BIOGRAPHER_LLM_API_KEY, or point BIOGRAPHER_LLM_BASE_URL at a local "
                                        "server (see .env.example)")
        config = self.config
        from core.ledger.extraction import ExtractionConfig, Extractor

        extractor = Extractor(self.memory.conn, self.llm, self.ledger, config=ExtractionConfig(
            window_chars=self.ledger_window_chars, daily_token_cap=config.daily_token_cap, owner=config.owner,
            owner_aliases=self.memory.context.owner_aliases, zone=config.zone))
        return await extractor.run(max_windows=max_windows, progress=progress)

    async def ledger_pending(self) -> bool:
        """Whether some conversation waits to be read into the ledger."""
        from core.ledger.conversations import NOT_CONVERSATIONS

        return bool(await ledger_store.pending_documents(self.memory.conn, exclude_kinds=NOT_CONVERSATIONS))

    async def person_page(self, name: str) -> PersonPage:
        """Who someone is to the owner, last contact, what is open both ways, where they appear."""
        await people_store.sync_from_messages(self.memory.conn)
        from core.ledger.people import person_page

        return await person_page(self.memory.conn, self.ledger, name, bio=await self.bio())

    async def ledger_reminders(self, *, today: date) -> ReminderBatch:
        """What to remind the owner of today (promises due, follow-ups drafted for what is owed)."""
        from core.ledger import reminders

        config = self.config
        drafted = []
        for reminder in await reminders.due(self.memory.conn, today=today):
            if reminder.kind == "follow_up":
                draft = await reminders.draft_follow_up(reminder.item, llm=self.llm, zone=config.zone,
                                                        owner=config.owner)
                reminder = replace(reminder, draft=draft)
            drafted.append(reminder)
        text = reminders.render(drafted, today=today, zone=config.zone) if drafted else ""
        return reminders.ReminderBatch(tuple(drafted), text)

    async def record_reminders(self, batch: ReminderBatch, *, at: datetime) -> None:
        """Remember these as sent (before sending: a restart must never send them twice)."""
        from core.ledger import reminders

        await reminders.record(self.memory.conn, batch, at=utc_iso(at))

    async def unrecord_reminders(self, batch: ReminderBatch) -> None:
        from core.ledger import reminders

        await reminders.unrecord(self.memory.conn, batch)

    # ------------------------------------------------------------ the memory server (bot/server/)

    async def add_client(self, name: str, *, operations: tuple[str, ...] = (), sections: tuple[str, ...] = (),
                         page: bool = False) -> IssuedToken:
        """A new client with its bearer token (shown once; only a digest is kept); `page=True`: a
        login for the owner's local web page, which opens nothing else."""
        return await self.clients.add(name, operations=operations, sections=sections, page=page)

    async def list_clients(self, *, include_revoked: bool = False) -> list[ClientInfo]:
        return await self.clients.list(include_revoked=include_revoked)

    async def revoke_client(self, name: str) -> None:
        await self.clients.revoke(name)

    async def authenticate(self, authorization: str | None) -> Client:
        """The client an Authorization header names (NotAuthenticated, saying why, if none)."""
        return await self.clients.authenticate(authorization)

    async def capabilities(self, client: Client) -> dict:
        return await self.memory_api.capabilities(client)

    async def index_state(self) -> IndexState:
        return await self.memory_api.index_state()

    async def api_search(self, client: Client, query: str, *, limit: int = 10, mode: str = "hybrid",
                         filters: Filters = Filters()) -> SearchAnswer:
        """Search within what the client may see, saying whether nothing matched or the index is building."""
        return await self.memory_api.search(client, query, limit=limit, mode=mode, filters=filters)

    async def api_read(self, client: Client, locator: str, *, generation: int | None = None,
                       expected_hash: str | None = None, window: int = 0) -> ReadAnswer:
        """The text at a locator; bound to a generation or hash, a changed source is a Conflict."""
        return await self.memory_api.read(client, locator, generation=generation, expected_hash=expected_hash,
                                          window=window)

    async def list_items(self, client: Client, *, filters: Filters = Filters(), section: str | None = None,
                         status: str = "current", cursor: str | None = None, limit: int = 100) -> ListPage:
        """Every passage the filters keep, a page at a time, with a cursor for the next."""
        return await self.memory_api.list(client, filters=filters, section=section, status=status, cursor=cursor,
                                          limit=limit)

    async def save_note(self, client: Client, request: SaveRequest, *, idempotency_key: str | None) -> SavedRecord:
        """Keep what an agent was told, in the agent's own section (a retry returns the first record)."""
        return await self.saves.save(client, request, idempotency_key=idempotency_key)

    async def saved_records(self, *, client: str | None = None) -> list[SavedVersion]:
        """The current version of each record agents saved (of one client's), oldest first."""
        return await self.save_shelf.list(client=client)

    async def delete_save(self, client: Client, record_id: int) -> DeletedRecord:
        """Forget a saved record whole, every version (an agent: only its own; the owner: any)."""
        return await self.save_shelf.delete(client, record_id)

    # ------------------------------------------------------------ the owner's local page (bot/server/page/)

    @property
    def model_configured(self) -> bool:
        """Whether a language model answers (questions need one to be folded into bio.md)."""
        return self.llm is not None

    async def page_login(self, token: str, *, lifetime: timedelta) -> NewSession:
        """A browser session for the page client the token names (NotAuthenticated if none)."""
        return await self.page_sessions.login(token, lifetime=lifetime)

    async def page_session(self, secret: str | None) -> PageSession:
        """The live session a cookie names, or NotAuthenticated saying why."""
        return await self.page_sessions.check(secret)

    async def page_logout(self, secret: str) -> None:
        await self.page_sessions.logout(secret)

    async def passage(self, locator: str, *, window: int = 0) -> ReadAnswer:
        """The owner's read: the exact text at a locator with its senders, time and source."""
        return await self.memory_api.read(OWNER, locator, window=window)

    async def owner_search(self, query: str, *, limit: int = 10, mode: str = "hybrid",
                           filters: Filters = Filters()) -> SearchAnswer:
        """The owner's search over everything, saying whether nothing matched or the index is building."""
        return await self.memory_api.search(OWNER, query, limit=limit, mode=mode, filters=filters)

    async def owner_list(self, *, filters: Filters = Filters(), cursor: str | None = None,
                         limit: int = 50) -> ListPage:
        """Everything the filters keep, unranked and oldest first, a page at a time (no query needed)."""
        return await self.memory_api.list(OWNER, filters=filters, cursor=cursor, limit=limit)

