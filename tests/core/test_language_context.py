"""A chunk too short to tell a language alone read in its context (storage/keyword/languages.py:
lean_language, document_language, context_language; storage/language_context.py), and the
multilingual space covering it when that language is not English and it is not small talk."""

from __future__ import annotations

from pathlib import Path

from core.config import DEFAULT_EMBEDDING_MODEL, MULTILINGUAL_EMBEDDING_MODEL
from storage.keyword.languages import (DOCUMENT_CHUNKS, UNKNOWN, context_language, detect_language,
                                       document_language, lean_language)
from tests.core.helpers import memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder


class FakeMiniLM(HashEmbedder):
    name = DEFAULT_EMBEDDING_MODEL


class FakeE5(HashEmbedder):
    name = MULTILINGUAL_EMBEDDING_MODEL


def test_a_short_text_leans_to_the_one_language_its_few_function_words_point_to():
    # "ihr" is German only, "am" German, English and Romanian: 1.33 votes, under the 2 to tell
    assert detect_language("Ihr Paket liegt am Schalter") == UNKNOWN
    assert lean_language("Ihr Paket liegt am Schalter") == "de"


def test_one_word_or_split_evidence_leans_nowhere_and_a_told_text_keeps_its_language():
    assert lean_language("Feliz aniversário, mana") == UNKNOWN  # one Indonesian word, in Portuguese
    assert lean_language("Ihr the Paket") == UNKNOWN  # one German word, one English
    assert lean_language("Tudo ótimo, beijinhos") == UNKNOWN  # no function word at all
    told = "Wir haben den Sommer in Lissabon am Meer verbracht und es war die beste Reise."
    assert lean_language(told) == detect_language(told) == "de"


def test_a_documents_language_is_that_of_most_of_its_told_chunks():
    assert document_language({"pt": 40, "en": 2, UNKNOWN: 300}) == "pt"  # undetermined ones left out
    assert document_language({"pt": 10, "en": 5}) == UNKNOWN  # mixed
    assert document_language({"fr": DOCUMENT_CHUNKS - 1}) == UNKNOWN  # too few to say
    assert document_language({}) == UNKNOWN


def test_a_chunks_own_lean_evidence_comes_before_its_documents_language():
    assert context_language("Ihr Paket liegt am Schalter", "en") == "de"  # a German mail in an English mailbox
    assert context_language("Tudo ótimo, beijinhos", "pt") == "pt"  # a one-line message in a Portuguese chat
    assert context_language("Tudo ótimo, beijinhos", UNKNOWN) == UNKNOWN


# a mother's chat in Portuguese: told windows, a one-line message too short to tell on its own
# (hours after the last), and a greeting said again and again, alone in its window each time
TOLD = [f"{d:02d}/03/2024, 21:00 - Mãe: Não sei se queres ir para a praia no sábado, está muito frio {d}"
        for d in range(1, 8)]
SHORT = "15/03/2024, 09:00 - Mãe: Tudo ótimo, beijinhos"
GREETINGS = [f"{d:02d}/04/2024, 08:00 - Mãe: Bom dia flor" for d in range(1, 6)]
ENGLISH = [f"{d:02d}/05/2024, 10:00 - Maya: I think that the ferry leaves at nine and we should be there early {d}"
           for d in range(1, 13)]


async def _covered(memory) -> dict[str, bool]:
    async with memory.conn.execute(
            "SELECT c.text, v.chunk_id IS NOT NULL FROM chunks c LEFT JOIN multilingual_vectors v ON v.chunk_id = c.id "
            "WHERE c.language = ''") as cur:
        return {text: bool(held) for text, held in await cur.fetchall()}


async def test_a_short_message_of_a_portuguese_chat_enters_the_space_and_small_talk_stays_out(tmp_path: Path):
    mae = whatsapp_export(tmp_path / "WhatsApp Chat with Mãe.txt", [*TOLD, SHORT, *GREETINGS])
    maya = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", ENGLISH)
    async with memory_at(tmp_path / "data", FakeMiniLM(), multilingual=FakeE5()) as memory:
        await memory.ingest([mae, maya])
        covered = await _covered(memory)
        stats = await memory.stats()
    short = [held for text, held in covered.items() if "Tudo ótimo" in text]
    greetings = [held for text, held in covered.items() if "Bom dia flor" in text]
    assert short == [True]
    assert len(greetings) == len(GREETINGS) and not any(greetings)
    assert stats["chunks_pending_multilingual"] == 0 and stats["chunks_unread_language"] == 0


async def test_a_store_from_before_is_read_in_context_at_the_next_fill_and_stats_say_so(tmp_path: Path):
    mae = whatsapp_export(tmp_path / "WhatsApp Chat with Mãe.txt", [*TOLD, SHORT, *GREETINGS])
    maya = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", ENGLISH)
    async with memory_at(tmp_path / "data", FakeMiniLM(), multilingual=FakeE5()) as memory:
        await memory.ingest([mae, maya])
        held = (await memory.stats())["multilingual_vectors"]
        async with memory.conn.transaction():  # as migration 186 leaves a store: nothing read yet
            await memory.conn.execute("UPDATE chunks SET context_language = NULL")
            await memory.conn.execute(
                "DELETE FROM multilingual_vectors WHERE chunk_id IN (SELECT id FROM chunks WHERE language = '')")
        before = await memory.stats()
        await memory.index_pending()
        after = await memory.stats()
    assert before["multilingual_vectors"] == held - 1
    assert before["chunks_unread_language"] == 1 + len(GREETINGS) and before["chunks_pending_multilingual"] == 0
    assert after["multilingual_vectors"] == held and after["chunks_unread_language"] == 0


async def test_an_english_store_never_reads_a_chunk_in_context(tmp_path: Path):
    maya = whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", [*ENGLISH, "20/05/2024, 18:00 - Maya: ok"])
    async with memory_at(tmp_path / "data", FakeMiniLM(), multilingual=FakeE5()) as memory:
        await memory.ingest([maya])
        async with memory.conn.execute("SELECT COUNT(*) FROM chunks WHERE language = '' "
                                       "AND context_language IS NULL") as cur:
            unread = (await cur.fetchone())[0]
        stats = await memory.stats()
    assert unread == 1 and stats["chunks_unread_language"] == 0  # the space is off: not asked


async def test_the_chunks_waiting_to_be_read_are_found_from_their_index(tmp_path: Path):
    """stats' count and the reading's steps read the partial index chunks_unread_language (migration
    187), not every chunk row."""
    from storage import language_context
    from storage.db import open_database

    async with open_database(tmp_path / "s.sqlite3") as conn:
        for sql, params in ((f"SELECT COUNT(*) FROM chunks WHERE {language_context._UNREAD}", ()),
                            (f"SELECT DISTINCT document_id FROM chunks WHERE {language_context._UNREAD} LIMIT 20", ()),
                            (f"SELECT id, text FROM chunks WHERE document_id = ? AND {language_context._UNREAD}", (1,))):
            async with conn.execute(f"EXPLAIN QUERY PLAN {sql}", params) as cur:
                plan = " ".join(str(r[-1]) for r in await cur.fetchall())
            assert "INDEX chunks_unread_language" in plan, (sql, plan)
