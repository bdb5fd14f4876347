"""BIOGRAPHER_EMBEDDING_MODEL=auto: the English model with the multilingual space for every store
where that space is on offer; without it, the multilingual model when most of the text is not
English, the owner told, and offered a reindex when the text changes."""

from __future__ import annotations

import json
from pathlib import Path

from bot.cli import main
from core.config import DEFAULT_EMBEDDING_MODEL
from core.memory.embedding_choice import LanguageMix, pick_model
from core.providers.lazy import AutoEmbedder
from core.config import MULTILINGUAL_EMBEDDING_MODEL
from tests.core.helpers import memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder


class FakeMiniLM(HashEmbedder):
    name = DEFAULT_EMBEDDING_MODEL


class FakeE5(HashEmbedder):
    name = MULTILINGUAL_EMBEDDING_MODEL


def auto() -> tuple[AutoEmbedder, list[str]]:
    loaded: list[str] = []

    def load(model: str):
        loaded.append(model)
        return {DEFAULT_EMBEDDING_MODEL: FakeMiniLM, MULTILINGUAL_EMBEDDING_MODEL: FakeE5}[model]()

    return AutoEmbedder(load), loaded


RUSSIAN = [f"0{d}/03/2024, 21:0{d} - Oleg: Я думаю, что это была лучшая поездка в моей жизни, и мы ещё вернёмся туда"
           for d in range(1, 10)]
ENGLISH = [f"0{d}/04/2024, 10:0{d} - Maya: I think that was the best trip of my life and we will go back there"
           for d in range(1, 10)]


def test_without_the_space_the_choice_follows_the_share_of_text_not_in_english():
    assert pick_model(LanguageMix({"en": 100, "ru": 40, "": 500})) == DEFAULT_EMBEDDING_MODEL
    assert pick_model(LanguageMix({"en": 40, "ru": 100})) == MULTILINGUAL_EMBEDDING_MODEL
    assert pick_model(LanguageMix({})) == DEFAULT_EMBEDDING_MODEL


def test_with_the_space_on_offer_every_mix_keeps_the_english_model():
    for mix in ({"en": 100, "ru": 40}, {"en": 40, "ru": 100}, {"ru": 100}, {}):
        assert pick_model(LanguageMix(mix), with_space=True) == DEFAULT_EMBEDDING_MODEL
    assert LanguageMix({"ru": 80, "en": 20, "": 9}).describe() == "80% Russian, 20% English"


async def test_a_store_of_russian_chats_keeps_the_english_model_and_fills_the_space(tmp_path: Path):
    """With the space on offer (the default set-up: bot/compose.py gives the memory e5 for it) a
    wholly Russian store is MiniLM's, every chunk also in e5's space, and search reaches them there."""
    embedder, loaded = auto()
    e5 = FakeE5()
    chat = whatsapp_export(tmp_path / "WhatsApp Chat with Oleg.txt", RUSSIAN)
    async with memory_at(tmp_path / "data", embedder, multilingual=e5) as memory:
        report = await memory.ingest([chat])
        stats = await memory.stats()
        assert stats["embedding_model"] == DEFAULT_EMBEDDING_MODEL and loaded == [DEFAULT_EMBEDDING_MODEL]
        assert stats["multilingual_vectors"] == stats["chunks"] > 0
        assert any("multilingual model" in note and "Russian" in note for note in report.notes)
        assert (await memory.embedding_advice()).note == ""  # nothing to switch to
        assert await memory.search("поездка", mode="hybrid")
        assert e5.calls  # the question went to the space's model too


async def test_with_the_space_off_a_new_store_of_russian_chats_gets_the_multilingual_model_and_says_so(
        tmp_path: Path):
    embedder, loaded = auto()
    chat = whatsapp_export(tmp_path / "WhatsApp Chat with Oleg.txt", RUSSIAN)
    async with memory_at(tmp_path / "data", embedder) as memory:
        report = await memory.ingest([chat])
        assert (await memory.stats())["embedding_model"] == MULTILINGUAL_EMBEDDING_MODEL
        assert loaded == [MULTILINGUAL_EMBEDDING_MODEL]
        assert any("multilingual" in note and "Russian" in note for note in report.notes)
        assert (await memory.search("поездка", mode="semantic"))


async def test_an_english_store_keeps_the_english_model_and_is_offered_a_reindex_when_its_text_turns(tmp_path: Path):
    embedder, loaded = auto()
    async with memory_at(tmp_path / "data", embedder) as memory:
        report = await memory.ingest([whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", ENGLISH)])
        assert report.notes == [] and loaded == [DEFAULT_EMBEDDING_MODEL]
        many = RUSSIAN * 3
        report = await memory.ingest([whatsapp_export(tmp_path / "WhatsApp Chat with Oleg.txt", many)])
        assert (await memory.stats())["embedding_model"] == DEFAULT_EMBEDDING_MODEL  # never mixed
        assert any("biographer reindex" in note for note in report.notes)
        await memory.reindex()
        assert (await memory.stats())["embedding_model"] == MULTILINGUAL_EMBEDDING_MODEL
        assert (await memory.embedding_advice()).note == ""


async def test_an_explicit_model_is_kept_and_the_advice_names_the_setting(tmp_path: Path):
    chat = whatsapp_export(tmp_path / "WhatsApp Chat with Oleg.txt", RUSSIAN)
    async with memory_at(tmp_path / "data", FakeMiniLM()) as memory:
        report = await memory.ingest([chat])
        assert (await memory.stats())["embedding_model"] == DEFAULT_EMBEDDING_MODEL
        assert any(f"BIOGRAPHER_EMBEDDING_MODEL={MULTILINGUAL_EMBEDDING_MODEL} biographer reindex" in note
                   for note in report.notes)


def test_doctor_shows_the_languages_and_with_the_space_off_the_advice(tmp_path: Path, capsys, monkeypatch):
    import bot.compose

    embedder = FakeMiniLM()
    monkeypatch.setattr(bot.compose, "configured_embedder", lambda settings: embedder)
    # with the space on (the default) MiniLM is the store's model to keep: no advice to switch
    monkeypatch.setenv("BIOGRAPHER_MULTILINGUAL_VECTORS", "off")
    chat = whatsapp_export(tmp_path / "WhatsApp Chat with Oleg.txt", RUSSIAN)
    data = str(tmp_path / "store")
    assert main(["--data-dir", data, "ingest", str(chat)]) == 0
    assert "biographer reindex" in capsys.readouterr().out
    assert main(["--data-dir", data, "doctor", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["languages"] == "100% Russian"
    assert "knows English only" in report["embedding_advice"]
