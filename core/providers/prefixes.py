"""Query and passage prefixes for embedding models trained with them.

e5 models were trained with `query: ` before a search query and `passage: ` before a stored text;
nomic-embed with `search_query: ` / `search_document: `. Without them such a model still embeds,
but ranks noticeably worse. The bundled multilingual model (core/providers/e5_embedder.py) adds
its own; this wraps any other model (an ONNX folder, a hub model, an OpenAI-compatible server)
that needs them, chosen by BIOGRAPHER_EMBEDDING_PREFIXES."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.errors import UserFacingError
from core.ports import Embedder


@dataclass(frozen=True)
class Prefixes:
    query: str
    passage: str


#: model families trained with prefixes, recognised by name when the setting is "auto"
FAMILIES = {
    "e5": Prefixes("query: ", "passage: "),
    "nomic": Prefixes("search_query: ", "search_document: "),
}
_FAMILY_NAMES = {"e5": re.compile(r"(?:^|[^a-z0-9])e5(?:[^a-z0-9]|$)", re.I),
                 "nomic": re.compile(r"nomic-embed", re.I)}


def prefixes_for(setting: str, model: str) -> Prefixes | None:
    """The prefixes `setting` asks for: "auto" (by the model's name), "none", a family name
    ("e5", "nomic"), or "QUERY|PASSAGE" spelled out (e.g. "query: |passage: ")."""
    value = setting.strip()
    if value.lower() == "auto":
        return next((FAMILIES[f] for f, pattern in _FAMILY_NAMES.items() if pattern.search(model)), None)
    if value.lower() == "none":
        return None
    if value.lower() in FAMILIES:
        return FAMILIES[value.lower()]
    if "|" in setting:
        query, _, passage = setting.partition("|")
        return Prefixes(query.lstrip(), passage.lstrip())
    raise UserFacingError(f"unknown embedding prefixes {setting!r}",
                          hint="set BIOGRAPHER_EMBEDDING_PREFIXES to auto, none, e5, nomic, "
                               "or QUERY|PASSAGE, e.g. 'query: |passage: '")


class PrefixedEmbedder:
    """Another embedder, with the query or passage prefix put before every text. The recorded
    name says so: vectors made with and without the prefixes do not mix."""

    def __init__(self, inner: Embedder, prefixes: Prefixes) -> None:
        self.inner = inner
        self.prefixes = prefixes
        self.name = f"{inner.name} [{prefixes.query.strip()}|{prefixes.passage.strip()}]"
        self.dim = inner.dim
        self.max_tokens = inner.max_tokens
        self.remote = inner.remote

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        prefix = self.prefixes.query if query else self.prefixes.passage
        return self.inner.embed([prefix + text for text in texts], query=query)
