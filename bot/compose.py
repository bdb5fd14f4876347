"""Composition root: settings -> store -> providers -> the service's parts -> one facet per kind
of caller (core/service/). The one place that picks concrete classes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import SecretStr

from core.config import AUTO_EMBEDDING_MODEL, Settings, is_local_url
from core.errors import UserFacingError
from core.importers.base import ImportContext
from core.memory.facade import Memory, open_store
from core.memory.owners import follow_owner_aliases
from core.ports import LLM, Describer, Embedder, Transcriber
from core.providers.lazy import AutoEmbedder, LazyEmbedder

# the service's parts and facets are imported where they are made: `grep`, `read` and `search`
# open the memory alone (open_memory), and never load the agent's, the schedule's or the
# facets' modules (bench/startup.py)
if TYPE_CHECKING:
    from core.agent.config import AgentConfig
    from core.service.admin import AdminFacet
    from core.service.parts import Parts
    from core.service.chat import ChatFacet
    from core.service.schedule import ScheduleFacet
    from core.service.serving import ServingFacet
    from core.chat.live import LiveRecorder
    from core.feeds.facade import Feeds
    from core.memory.translation import Translator


def build_embedder(settings: Settings, model: str | None = None) -> Embedder:
    """The configured embedding model (or `model`), with its query/passage prefixes when it needs
    them (the bundled multilingual model adds its own)."""
    from core.providers.prefixes import PrefixedEmbedder, prefixes_for

    model = model or settings.embedding_model
    if model == AUTO_EMBEDDING_MODEL and settings.embedding_backend == "openai":
        raise UserFacingError("no embedding model named for the embedding server",
                              hint="set BIOGRAPHER_EMBEDDING_MODEL to a model the server at "
                                   "BIOGRAPHER_EMBEDDING_BASE_URL serves (e.g. nomic-embed-text)")
    if settings.embedding_backend == "openai":
        from core.providers.openai_embedder import OpenAIEmbedder

        embedder: Embedder = OpenAIEmbedder(
            model=model,
            base_url=settings.embedding_base_url or settings.llm_base_url,
            api_key=_secret(settings.embedding_api_key, settings.llm_api_key),
            batch_size=settings.embedding_batch_size, remote=settings.embedding_is_remote,
        )
    else:
        from core.providers.local_embedder import load_local_embedder
        from core.config import MULTILINGUAL_EMBEDDING_MODEL

        embedder = load_local_embedder(model, batch_size=settings.embedding_batch_size,
                                       threads=settings.embedding_threads)
        if model == MULTILINGUAL_EMBEDDING_MODEL:
            return embedder
    prefixes = prefixes_for(settings.embedding_prefixes, model)
    return PrefixedEmbedder(embedder, prefixes) if prefixes else embedder


def configured_embedder(settings: Settings) -> Embedder:
    """The embedder the store is opened with, loaded on first use: "auto" chooses between the
    bundled models by the store's languages (core/memory/embedding_choice.py)."""
    if settings.embedding_model == AUTO_EMBEDDING_MODEL and settings.embedding_backend == "local":
        return AutoEmbedder(lambda model: build_embedder(settings, model))
    return LazyEmbedder(lambda: build_embedder(settings), remote=settings.embedding_is_remote)


def multilingual_embedder(settings: Settings) -> Embedder | None:
    """The model of the multilingual space (core/memory/multilingual.py), loaded on first use:
    the bundled multilingual-e5-small, beside a local store's own model; none when it is off or
    the store is embedded by a server (whose model is not known to be English only)."""
    if settings.multilingual_vectors == "off" or settings.embedding_backend != "local":
        return None
    from core.config import MULTILINGUAL_EMBEDDING_MODEL

    return LazyEmbedder(lambda: build_embedder(settings, MULTILINGUAL_EMBEDDING_MODEL))


def translator_for(settings: Settings) -> Translator | None:
    """The bilingual dictionaries hybrid search translates questions with, where any folder for
    them is configured (core/memory/translation.py: nothing is read until a search needs it)."""
    if not settings.dictionary_folders:
        return None
    from core.memory.translation import Translator

    return Translator(settings.dictionary_folders, settings.lexicon_path)


def timezone_of(settings: Settings) -> ZoneInfo:
    try:
        return ZoneInfo(settings.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise UserFacingError(f"unknown time zone {settings.timezone!r}",
                              hint="set BIOGRAPHER_TIMEZONE to a name like Europe/Lisbon") from None


def _secret(*values: SecretStr | None) -> str | None:
    """The first secret that is set, as plain text (only ever handed to a client)."""
    return next((v.get_secret_value() for v in values if v is not None), None)


def build_transcriber(settings: Settings) -> Transcriber | None:
    if settings.transcription_backend == "none":
        return None
    if settings.transcription_backend == "openai":
        from core.providers.openai_transcriber import OpenAITranscriber

        return OpenAITranscriber(
            base_url=settings.transcription_base_url or settings.llm_base_url,
            api_key=_secret(settings.transcription_api_key, settings.llm_api_key),
            model=settings.transcription_model, language=settings.whisper_language,
        )
    from core.providers.whisper import WhisperTranscriber

    return WhisperTranscriber(settings.whisper_model, language=settings.whisper_language)  # loads on first use


def build_describer(settings: Settings) -> Describer | None:
    """A vision model describes photos only when one is named: images leave the machine."""
    if not settings.llm_vision_model:
        return None
    from core.providers.openai_vision import OpenAIDescriber

    return OpenAIDescriber(base_url=settings.llm_base_url, api_key=_secret(settings.llm_api_key),
                           model=settings.llm_vision_model, timeout=settings.llm_timeout)


def import_context(settings: Settings) -> ImportContext:
    return ImportContext(
        timezone=timezone_of(settings),
        owner_aliases=frozenset(a.lower() for a in settings.owner_aliases),
        transcriber=build_transcriber(settings),
        describer=build_describer(settings),
    )


@asynccontextmanager
async def open_memory(settings: Settings, *, embedder: Embedder | None = None) -> AsyncIterator[Memory]:
    """The memory core over the configured store, closed on exit."""
    from bot.store_key import owner_keys
    from core.privacy.encryption import store_key

    key = store_key(settings.data_dir, owner_keys(settings), encrypt_new=settings.encrypt)
    async with open_store(settings.database_path, key=key, busy_seconds=settings.store_busy_seconds,
                          private_folders=(settings.raw_dir, settings.backup_dir, settings.data_dir / "inbox",
                                           settings.upload_dir)) as conn:
        context = import_context(settings)
        await follow_owner_aliases(conn, context)  # aliases added since the last start mark old messages
        memory = Memory(conn, embedder=embedder or configured_embedder(settings),
                        context=context, raw_dir=settings.raw_dir, backup_dir=settings.backup_dir,
                        multilingual=multilingual_embedder(settings) if embedder is None else None,
                        multilingual_setting=settings.multilingual_vectors, translator=translator_for(settings))
        await memory.clean_raw_copies()
        yield memory


def build_feeds(settings: Settings, memory: Memory) -> Feeds:
    """Mail accounts (their passwords read from the variables they name) and watched paths."""
    from core.config import named_secret
    from core.feeds.facade import Feeds

    return Feeds(memory, secrets=named_secret, mail_timeout=settings.mail_timeout_seconds,
                 watch_settle_seconds=settings.watch_settle_seconds, database_every=settings.watch_database_every)


def build_live(settings: Settings, memory: Memory) -> LiveRecorder | None:
    """The recorder of the owner's Telegram chats (Telegram Business), where a Telegram bot is set up."""
    if settings.telegram_token is None:
        return None
    from core.chat.live import LiveRecorder

    return LiveRecorder(memory, owner_ids=frozenset(settings.telegram_owner_ids),
                        keep_deleted=settings.telegram_live_keep_deleted,
                        quiet_seconds=settings.telegram_live_window_minutes * 60)


def build_llm(settings: Settings) -> LLM | None:
    """The chat model client, or None while none is configured: a remote endpoint needs a key,
    and without one nothing is sent anywhere (the biographer then says what to set)."""
    if settings.llm_api_key is None and not is_local_url(settings.llm_base_url):
        return None
    from core.providers.openai_chat import OpenAIChat

    return OpenAIChat(
        base_url=settings.llm_base_url,
        api_key=_secret(settings.llm_api_key),
        models={"chat": settings.llm_model,
                "analysis": settings.llm_analysis_model or settings.llm_model,
                "vision": settings.llm_vision_model or settings.llm_model},
        timeout=settings.llm_timeout, max_retries=settings.llm_max_retries,
        stop_blank_runs=settings.llm_is_local, remote=settings.llm_is_remote,
    )


def agent_config(settings: Settings) -> AgentConfig:
    from core.agent.config import AgentConfig

    return AgentConfig(
        chat_steps=settings.agent_chat_steps, analysis_steps=settings.agent_analysis_steps,
        ingest_steps=settings.agent_ingest_steps, chat_tail=settings.agent_chat_tail,
        batch_chars=settings.analysis_batch_chars, daily_token_cap=settings.llm_daily_token_cap,
        question_repeat_days=settings.question_repeat_days,
        owner=settings.owner_aliases[0] if settings.owner_aliases else "the owner",
        zone=timezone_of(settings),
        context_tokens=settings.llm_context, max_output_tokens=settings.llm_max_output_tokens,
    )


@dataclass(frozen=True)
class Facets:
    """One face per kind of caller, over the same parts; each front end is handed only its own."""

    chat: ChatFacet
    serving: ServingFacet
    schedule: ScheduleFacet
    admin: AdminFacet

    @classmethod
    def over(cls, parts: Parts) -> Facets:
        from core.service.admin import AdminFacet
        from core.service.chat import ChatFacet
        from core.service.schedule import ScheduleFacet
        from core.service.serving import ServingFacet

        return cls(chat=ChatFacet(parts), serving=ServingFacet(parts), schedule=ScheduleFacet(parts),
                   admin=AdminFacet(parts))


@asynccontextmanager
async def open_parts(settings: Settings, *, llm: LLM | None = None, embedder: Embedder | None = None,
                     with_model: bool = True) -> AsyncIterator[Parts]:
    """The service's parts (memory core + biographer) over the configured store and model, closed on
    exit. `with_model=False` leaves the chat model out (commands that never ask it load no client)."""
    from core.schedule.preferences import ScheduleDefaults
    from core.service.parts import Parts

    model = llm or (build_llm(settings) if with_model else None)
    try:
        async with open_memory(settings, embedder=embedder) as memory:
            yield Parts(memory=memory, llm=model, config=agent_config(settings),
                        schedule=ScheduleDefaults.from_settings(settings), data_dir=settings.data_dir,
                        ledger_window_chars=settings.ledger_window_chars,
                        feeds=partial(build_feeds, settings), live=build_live(settings, memory),
                        oauth_client_hosts=settings.oauth_client_hosts)
    finally:
        if llm is None and model is not None:
            await model.close()


@asynccontextmanager
async def open_facets(settings: Settings, *, llm: LLM | None = None, embedder: Embedder | None = None,
                      with_model: bool = True) -> AsyncIterator[Facets]:
    """Every facet over one set of parts, for a process that runs several front ends."""
    async with open_parts(settings, llm=llm, embedder=embedder, with_model=with_model) as parts:
        yield Facets.over(parts)


@asynccontextmanager
async def open_admin(settings: Settings, *, with_model: bool = True) -> AsyncIterator[AdminFacet]:
    """The CLI's facet alone: a command does not import or build the server's and the chats' facets."""
    from core.service.admin import AdminFacet

    async with open_parts(settings, with_model=with_model) as parts:
        yield AdminFacet(parts)
