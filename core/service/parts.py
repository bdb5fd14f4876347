"""What every facet is built over: the memory, the biographer, the ledger, the pictures and the
small books beside them (preferences, prompts, clients, saves, sessions, disclosure), made once per
process; and the few operations more than one kind of caller needs, written here once."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timedelta, tzinfo
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from core.agent.config import AgentConfig
from core.errors import ModelUnavailable, UserFacingError
from core.memory.sources import Source, get_source, list_sources
from core.ports import LLM, Progress, no_progress
from core.schedule.preferences import PreferenceStore, ScheduleDefaults
from core.times import Clock, utc_now
from storage import people as people_store

if TYPE_CHECKING:
    from core.biographer.runs import Biographer
    from core.chat.live import LiveRecorder
    from core.chat.prompts import PromptBook
    from core.chat.saving import ForwardSaver
    from core.feeds.facade import Feeds
    from core.ledger.book import Ledger
    from core.ledger.extraction import ExtractionResult
    from core.ledger.people import PersonPage
    from core.memory.facade import Memory
    from core.pictures.gather import Pictures
    from core.privacy.disclosure import Disclosure
    from core.serving.clients import ClientBook
    from core.serving.memory_api import MemoryApi
    from core.serving.oauth import OAuthBook
    from core.serving.page_sessions import PageSessions
    from core.serving.saves import SaveBook, SaveShelf
    from core.types import Answer

Person = people_store.Person


class Parts:
    def __init__(self, *, memory: Memory, llm: LLM | None = None, config: AgentConfig = AgentConfig(),
                 clock: Clock = utc_now, schedule: ScheduleDefaults = ScheduleDefaults(),
                 data_dir: Path | None = None, ledger_window_chars: int = 12_000,
                 feeds: Callable[[Memory], Feeds] | None = None, live: LiveRecorder | None = None,
                 biographer: Biographer | None = None, oauth_client_hosts: Iterable[str] = ()) -> None:
        """`feeds`: makes the mail accounts and watched paths (given by the composition root, which
        knows where their passwords are read from); `live`: the owner's Telegram chats recorded
        through a business connection (made there too, knowing the owner's ids); `biographer`: one
        made elsewhere (tests script its model), by default made on first use;
        `oauth_client_hosts`: hosts whose app metadata may be fetched from a private address."""
        self.memory = memory
        self._make_feeds = feeds
        self.live = live
        self.llm = llm
        self.config = config
        self.clock = clock
        self.ledger_window_chars = ledger_window_chars
        self._schedule = schedule
        self._data_dir = data_dir
        self._oauth_client_hosts = tuple(oauth_client_hosts)
        if biographer is not None:
            self.biographer = biographer

    # every book is made, and its module imported, on first use: a command pays only for what it
    # reads (`biographer grep` opens none of them; bench/startup.py). The agent, the ledger's reader
    # and the pictures load their libraries (jsonschema, matplotlib) on first use too, and the memory
    # server's books (its API, page logins, OAuth) when the server first asks
    @cached_property
    def preferences(self) -> PreferenceStore:
        return PreferenceStore(self.memory.conn, self._schedule)

    @cached_property
    def prompts(self) -> PromptBook:
        from core.chat.prompts import PromptBook

        return PromptBook(self.memory.conn)

    @cached_property
    def forwards(self) -> ForwardSaver:
        from core.chat.inbox import Inbox
        from core.chat.saving import ForwardSaver

        key = self.memory.conn.key
        inbox = Inbox(self._data_dir / "inbox", key=key.files if key else None) if self._data_dir else None
        return ForwardSaver(self.memory, inbox)

    @cached_property
    def clients(self) -> ClientBook:
        from core.serving.clients import ClientBook

        return ClientBook(self.memory.conn)

    @cached_property
    def saves(self) -> SaveBook:
        from core.serving.saves import SaveBook

        return SaveBook(self.memory)

    @cached_property
    def save_shelf(self) -> SaveShelf:
        from core.serving.saves import SaveShelf

        return SaveShelf(self.memory)

    @cached_property
    def disclosure(self) -> Disclosure:
        from core.privacy.disclosure import Disclosure

        return Disclosure(self.memory.conn, clock=self.clock)

    @cached_property
    def feeds(self) -> Feeds | None:
        """The mail accounts and watched paths, when the composition root said how to make them."""
        return self._make_feeds(self.memory) if self._make_feeds else None

    @cached_property
    def memory_api(self) -> MemoryApi:
        from core.serving.memory_api import MemoryApi

        return MemoryApi(self.memory)

    @cached_property
    def page_sessions(self) -> PageSessions:
        from core.serving.page_sessions import PageSessions

        return PageSessions(self.memory.conn, self.clients, clock=self.clock)

    @cached_property
    def oauth(self) -> OAuthBook:
        """Grants to remote connectors; apps whose client_id is their metadata's address are fetched
        (the composition root says which hosts may be private): by default, public hosts only."""
        from core.serving.oauth import OAuthBook
        from core.serving.oauth_apps import ClientDocuments

        return OAuthBook(self.memory.conn, self.clients, clock=self.clock,
                         documents=ClientDocuments(private_hosts=self._oauth_client_hosts))

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
                        owner_names=self.memory.context.owner_aliases, timeline=lambda: self.biographer.timeline(),
                        clock=self.clock)

    @property
    def timezone(self) -> tzinfo:
        """The zone the owner's times are shown in."""
        return self.memory.context.timezone

    # ------------------------------------------------------------ shared by several facets

    async def sources(self) -> list[Source]:
        return await list_sources(self.memory.conn)

    async def source(self, source_id: int) -> Source:
        """One source by its number, or a UserFacingError saying how to find the numbers."""
        found = await get_source(self.memory.conn, source_id)
        if found is None:
            raise UserFacingError(f"there is no source #{source_id}", hint="/sources (or `biographer sources`) lists them")
        return found

    async def people(self) -> list[Person]:
        await people_store.sync_from_messages(self.memory.conn)
        return await people_store.list_people(self.memory.conn)

    async def person_page(self, name: str) -> PersonPage:
        """Who someone is to the owner, last contact, what is open both ways, where they appear."""
        await people_store.sync_from_messages(self.memory.conn)
        from core.ledger.people import person_page

        return await person_page(self.memory.conn, self.ledger, name, bio=await self.biographer.bio())

    async def report(self, *, days: int = 7) -> Answer:
        """The pattern report of the last `days`, stored as a document, followed by the promises made
        in those days and those still open (from the ledger, exactly)."""
        answer = await self.biographer.report(days=days)
        until = self.clock()
        from core.ledger.weekly import with_promises

        return await with_promises(answer, self.memory.conn, since=until - timedelta(days=days), until=until,
                                   zone=self.config.zone)

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

    async def backup(self, directory: Path, *, stamp: datetime | None = None, keep: int) -> Path:
        """A consistent copy of the store (safe while it is in use) with its raw copies, keeping
        the newest `keep`."""
        from core.privacy.backups import take_backup

        return await take_backup(self.memory.conn, backup_dir=directory, raw_dir=self.memory.raw_dir,
                                 keep=keep, now=stamp)


class Facet:
    """What every facet shows: the memory, the biographer, the ledger and the pictures (these made
    on first use), the feeds and live chats (when set up), and the owner's zone."""

    def __init__(self, parts: Parts) -> None:
        self._parts = parts
        self.memory: Memory = parts.memory

    @property
    def biographer(self) -> Biographer:
        return self._parts.biographer

    @property
    def ledger(self) -> Ledger:
        return self._parts.ledger

    @property
    def pictures(self) -> Pictures:
        return self._parts.pictures

    @property
    def timezone(self) -> tzinfo:
        return self._parts.timezone

    @property
    def feeds(self) -> Feeds | None:
        """The mail accounts and watched paths, when the composition root made them."""
        return self._parts.feeds

    @property
    def live(self) -> LiveRecorder | None:
        """The Telegram chats recorded through a business connection, when configured."""
        return self._parts.live
