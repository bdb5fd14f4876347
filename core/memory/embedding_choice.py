"""Which embedding model a store gets when the owner names none (BIOGRAPHER_EMBEDDING_MODEL=auto,
the default): all-MiniLM-L6-v2, with the multilingual space (core/memory/multilingual.py) carrying
the owner's other languages, whatever their share. Only where the space is turned off (or not
offered: a remote embedding endpoint) does a store whose text is mostly not English get the
multilingual multilingual-e5-small as its one model (MiniLM knows English only: alone, on other
languages its semantic search is close to random).

Why MiniLM with the space rather than e5 alone, measured (README, "The store's model under
auto"): e5 as the one model of a store half in Spanish and German lost a fifth of the questions
that MiniLM with the space found (found@10 0.50 against 0.71 third person, 0.56 against 0.58 asked
in Spanish), 0.82 against 0.92 on the first life archive, and tied on chats wholly in French,
Indonesian, Italian, Japanese, Korean or Chinese (0.98 each); MiniLM's own passages in English
keep their better model, and e5 reads the rest.

The choice is made from the text saved before the first vectors are written, then recorded: a
store never mixes two models. When the text changes its mind later, the owner is told and offered
`biographer reindex`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.config import DEFAULT_EMBEDDING_MODEL, MULTILINGUAL_EMBEDDING_MODEL
from storage import chunks as chunk_store
from storage.keyword.languages import NAMES, UNKNOWN

if TYPE_CHECKING:
    from storage.db import Store

#: the models "auto" chooses between (both ship in packages, neither needs a network)
AUTO_MODELS = (DEFAULT_EMBEDDING_MODEL, MULTILINGUAL_EMBEDDING_MODEL)
NOT_ENGLISH_SHARE = 0.5  # of the text whose language could be told (without the space)


@dataclass(frozen=True)
class LanguageMix:
    """Characters of stored text per language ("" for text too short to tell)."""

    chars: dict[str, int]

    @property
    def told(self) -> int:
        return sum(n for language, n in self.chars.items() if language != UNKNOWN)

    @property
    def not_english(self) -> float:
        """The share of the text of known language that is not English."""
        told = self.told
        return (told - self.chars.get("en", 0)) / told if told else 0.0

    def describe(self, *, top: int = 3) -> str:
        """"82% Russian, 15% English" (shares of the text whose language could be told)."""
        told = self.told
        ranked = sorted(((n, lang) for lang, n in self.chars.items() if lang != UNKNOWN and n), reverse=True)
        shown = [f"{round(100 * n / told)}% {NAMES.get(lang, lang)}" for n, lang in ranked[:top]]
        return ", ".join(shown) or "not known yet"


async def language_mix(conn: Store) -> LanguageMix:
    return LanguageMix({language: tally.chars for language, tally in (await chunk_store.language_counts(conn)).items()})


def pick_model(mix: LanguageMix, *, with_space: bool = False) -> str:
    """The model auto gives a store of this mix; `with_space`: the multilingual space is on offer
    (BIOGRAPHER_MULTILINGUAL_VECTORS is not off and the model is local), so MiniLM serves every mix."""
    if with_space:
        return DEFAULT_EMBEDDING_MODEL
    return MULTILINGUAL_EMBEDDING_MODEL if mix.not_english > NOT_ENGLISH_SHARE else DEFAULT_EMBEDDING_MODEL


@dataclass(frozen=True)
class EmbeddingAdvice:
    """What the owner should know about the store's embedding model and its languages."""

    recorded: str | None  # the store's model (None: nothing embedded yet)
    recommended: str  # the model its languages call for
    mix: LanguageMix
    automatic: bool  # BIOGRAPHER_EMBEDDING_MODEL is "auto"

    @property
    def note(self) -> str:
        """A sentence when the store's model does not suit its text; "" otherwise."""
        if self.recorded != DEFAULT_EMBEDDING_MODEL or self.recommended != MULTILINGUAL_EMBEDDING_MODEL:
            return ""
        how = ("run `biographer reindex`" if self.automatic else
               f"run `BIOGRAPHER_EMBEDDING_MODEL={MULTILINGUAL_EMBEDDING_MODEL} biographer reindex` "
               "(and keep that setting)")
        return (f"Most of your text is not in English ({self.mix.describe()}), but this store's embedding "
                f"model, {DEFAULT_EMBEDDING_MODEL}, knows English only, so searching by meaning finds little "
                f"in it: {how} to switch to the multilingual {MULTILINGUAL_EMBEDDING_MODEL} (keyword search "
                "and grep work meanwhile).")


def chosen_note(model: str, mix: LanguageMix) -> str:
    """What the owner is told when "auto" picks the multilingual model for a new store."""
    if model != MULTILINGUAL_EMBEDDING_MODEL:
        return ""
    return (f"Most of your text is not in English ({mix.describe()}): it is searched by meaning with the "
            f"multilingual embedding model {MULTILINGUAL_EMBEDDING_MODEL}.")

