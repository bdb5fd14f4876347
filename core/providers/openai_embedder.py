"""Embeddings from any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, LM Studio, vLLM)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import openai

from core.config import is_local_url
from core.providers.openai_errors import Endpoint, endpoint_errors


class OpenAIEmbedder:
    """Queries and passages are sent alike; a model that needs prefixes is wrapped
    (core/providers/prefixes.py). `remote` unless the endpoint is on this machine: then the
    owner's disclosure policy filters what is sent (core/privacy/disclosure.py)."""

    def __init__(self, *, model: str, base_url: str | None, api_key: str | None,
                 batch_size: int = 64, timeout: float = 60.0, remote: bool | None = None) -> None:
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                     timeout=timeout, max_retries=3)
        self._model = model
        self._endpoint = Endpoint("the embedding model", str(base_url), "BIOGRAPHER_EMBEDDING_BASE_URL",
                                  "BIOGRAPHER_EMBEDDING_API_KEY", model, "BIOGRAPHER_EMBEDDING_MODEL")
        self.name = f"openai:{model}"
        self.remote = not is_local_url(str(base_url or "https://api.openai.com/v1")) if remote is None else remote
        self.batch_size = batch_size
        self.max_tokens = 8192
        self.dim = int(self._embed_batch(["dimension probe"]).shape[1])

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        parts = [self._embed_batch(list(texts[i:i + self.batch_size]))
                 for i in range(0, len(texts), self.batch_size)]
        return np.vstack(parts) if parts else np.zeros((0, self.dim), dtype=np.float32)

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        with endpoint_errors(self._endpoint):
            response = self._client.embeddings.create(model=self._model, input=texts)
        data = sorted(response.data, key=lambda d: d.index)
        vectors = np.array([d.embedding for d in data], dtype=np.float32)
        return vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
