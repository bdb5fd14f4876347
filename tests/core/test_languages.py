"""The keyword index in the owner's languages: each chunk stemmed in its own language, text
without spaces as pairs of letters, queries and grep looking for words as the index holds them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from storage.keyword.query import keyword_query
from storage.keyword.terms import index_text
from storage.keyword.languages import detect_language
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder

SAMPLES = {
    "en": "We spent the summer in Lisbon by the sea and I think it was the best trip we ever had.",
    "ru": "Мы провели лето в Лиссабоне у моря, и это была лучшая поездка в моей жизни.",
    "uk": "Ми провели літо в Лісабоні біля моря, і це була найкраща подорож у моєму житті.",
    "de": "Wir haben den Sommer in Lissabon am Meer verbracht und es war die beste Reise.",
    "es": "Pasamos el verano en Lisboa junto al mar y fue el mejor viaje de mi vida.",
    "pt": "Passamos o verão em Lisboa junto ao mar e foi a melhor viagem da minha vida.",
    "it": "Abbiamo passato l'estate a Lisbona vicino al mare ed è stato il viaggio più bello.",
    "fr": "Nous avons passé l'été à Lisbonne au bord de la mer et c'était le meilleur voyage.",
    "id": "Kami menghabiskan musim panas di Lisbon dekat laut dan itu adalah perjalanan terbaik saya.",
    "vi": "Chúng tôi đã dành mùa hè ở Lisbon gần biển và đó là chuyến đi tuyệt vời nhất của tôi",
    "ja": "私たちは夏を海の近くのリスボンで過ごしました。最高の旅行でした。",
    "zh": "我们在海边的里斯本度过了夏天，这是最好的一次旅行。",
    "ko": "우리는 바다 근처 리스본에서 여름을 보냈고 최고의 여행이었다",
    "th": "เราใช้เวลาช่วงฤดูร้อนที่ลิสบอนใกล้ทะเล และนั่นเป็นการเดินทางที่ดีที่สุด",
    "ar": "قضينا الصيف في لشبونة بالقرب من البحر وكانت هذه أفضل رحلة في حياتي",
    "hi": "हमने गर्मियाँ समुद्र के पास लिस्बन में बिताईं और यह मेरी सबसे अच्छी यात्रा थी",
}


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_a_sentence_is_taken_for_its_language(language):
    assert detect_language(SAMPLES[language]) == language


def test_a_text_with_too_few_words_to_tell_is_left_undetermined():
    assert detect_language("Maya, Tomás") == ""
    assert detect_language("12:30 👍") == ""


def test_each_language_is_stemmed_by_its_own_stemmer_and_english_words_keep_porter():
    russian = index_text("Я нашёл работу, но работы много. Meeting at the office", "ru").split()
    assert russian.count("работ") == 2  # both forms meet
    assert "meet" in russian  # an English word in a Russian chat: Porter, as before
    # the old index ran English Porter on everything; Spanish now gets Spanish stemming
    assert index_text("casas caminando", "es").split() == ["cas", "camin"]
    assert index_text("running ponies", "en").split() == ["run", "poni"]


def test_accents_of_latin_letters_are_folded_after_stemming_but_other_marks_are_letters():
    assert index_text("été café", "fr") == index_text("ete cafe", "fr")
    # Devanagari vowel signs are part of the word (FTS5's unicode61 cut words at them)
    assert index_text("हमने गर्मियाँ", "hi").split() == ["हम", "गर्म"]
    assert index_text("ใช้", "th").split() == ["ใช", "ช้", "้"]


def test_text_without_spaces_becomes_pairs_of_letters_and_every_letter_starts_a_term():
    assert index_text("東京タワー", "ja").split() == ["東京", "京タ", "タワ", "ワー", "ー"]
    assert index_text("猫", "ja").split() == ["猫"]
    assert keyword_query("東京", ["ja"]) == '"東京"'
    assert keyword_query("猫", ["ja"]) == '"猫"*'


def test_a_query_word_is_looked_for_as_each_of_the_stores_languages_indexes_it():
    assert keyword_query("running", ["en"]) == '"run"'
    assert set(keyword_query("running", ["en", "de"]).split(" OR ")) == {'"run"', '"running"'}
    # stop words of the query's own language are dropped
    assert keyword_query("что я говорил о работе", ["ru"]) == '"говор" OR "работ"'


CHATS = {
    "WhatsApp Chat with Oleg.txt": [
        "05/03/2024, 21:07 - Oleg: Я наконец нашёл новую работу в Казани",
        "05/03/2024, 21:08 - Ana: Поздравляю! Когда начинаешь?",
        "05/03/2024, 21:09 - Oleg: С понедельника, офис прямо у реки",
    ],
    "WhatsApp Chat with Yuki.txt": [
        "06/03/2024, 10:00 - Yuki: 来週東京タワーに行きませんか",
        "06/03/2024, 10:01 - Ana: いいですね！猫も連れて行きます",
    ],
    "WhatsApp Chat with Somchai.txt": [
        "07/03/2024, 09:00 - Somchai: พรุ่งนี้ผมจะไปตลาดน้ำกับครอบครัว",
    ],
}


async def _store(tmp_path: Path):
    paths = []
    for name, lines in CHATS.items():
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    memory_cm = memory_at(tmp_path / "data", HashEmbedder())
    memory = await memory_cm.__aenter__()
    await memory.ingest(paths)
    return memory_cm, memory


async def test_keyword_search_finds_other_forms_of_a_russian_word_and_words_inside_unspaced_text(tmp_path):
    memory_cm, memory = await _store(tmp_path)
    try:
        found = await memory.search("работы в Казани", mode="keyword")
        assert found and found[0].document == "WhatsApp with Oleg"
        assert (await memory.search("東京", mode="keyword"))[0].document == "WhatsApp with Yuki"
        assert (await memory.search("猫", mode="keyword"))[0].document == "WhatsApp with Yuki"
        assert (await memory.search("ตลาดน้ำ", mode="keyword"))[0].document == "WhatsApp with Somchai"
        assert await memory.search("京都", mode="keyword") == []  # 京 alone is not 京都
        stats = await memory.stats()
        assert stats["chunks"] == 3
    finally:
        await memory_cm.__aexit__(None, None, None)


async def test_grep_stays_exact_in_every_script(tmp_path):
    memory_cm, memory = await _store(tmp_path)
    try:
        # the index finds "работу" and "работы" alike; grep shows only the form asked for
        assert (await memory.grep("работу")).total == 1
        assert (await memory.grep("работы")).total == 0
        page = await memory.grep("東京タワー")
        assert page.total == 1 and "東京タワー" in page.matches[0].line
        assert page.matches[0].sender == "Yuki"
        assert (await memory.grep("猫")).total == 1
        assert (await memory.grep("ตลาด")).total == 1
        assert (await memory.grep("Казани")).total == 1
    finally:
        await memory_cm.__aexit__(None, None, None)


async def test_a_store_of_the_old_index_is_reindexed_by_language_when_it_opens(tmp_path: Path, monkeypatch):
    from storage import migrations
    from storage.db import open_database

    path = tmp_path / "data" / "biographer.sqlite3"
    path.parent.mkdir()
    migrations._load_schema_modules()
    with monkeypatch.context() as patch:
        patch.setattr(migrations, "MIGRATIONS", {n: f for n, f in migrations.MIGRATIONS.items() if n < 170})
        patch.setattr(migrations, "_load_schema_modules", lambda: None)
        async with open_database(path) as conn:
            await conn.execute("BEGIN")
            await conn.execute("INSERT INTO documents (kind, name, identity, imported_at) VALUES "
                               "('text', 'note.txt', 'note', '2024-01-01T00:00:00Z')")
            await conn.execute("INSERT INTO chunks (document_id, ordinal, char_start, char_end, text, identity,"
                               " text_hash) VALUES (1, 0, 0, 40, 'Я наконец нашёл новую работу, и это было не так просто, как мне казалось', 'n|0', 'h')")
            await conn.execute("COMMIT")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        assert (await memory.search("работа", mode="keyword"))[0].document == "note.txt"
        async with memory.conn.execute("SELECT language FROM chunks") as cur:
            assert [r[0] for r in await cur.fetchall()] == ["ru"]
        await memory.forget(1)
        assert await memory.search("работа", mode="keyword") == []
        async with memory.conn.execute("SELECT chunks FROM chunk_languages WHERE language = 'ru'") as cur:
            assert (await cur.fetchone())[0] == 0


def test_a_word_is_cut_wherever_its_script_changes():
    assert index_text("App更新UI", "zh").split() == ["app", "更新", "新", "ui"]
    assert index_text("Купил iPhoneом COVIDом", "ru").split()[1:] == ["iphon", "ом", "covid", "ом"]
    assert index_text("東京タワー", "ja").split() == ["東京", "京タ", "タワ", "ワー", "ー"]  # one run


MIXED = Path(__file__).parents[1] / "importers" / "data" / "whatsapp" / "en_zh_android_group.txt"


def _by_hand(word: str) -> int:
    """Occurrences of a Latin word in the real export, read with a plain regex: not inside a
    longer Latin word, whatever stands around it (Chinese, punctuation, a line's end)."""
    return len(re.findall(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])",
                          MIXED.read_text(encoding="utf-8"), re.I))


@pytest.mark.parametrize("word", ["cardboard", "project", "BioNTech"])
async def test_grep_and_keyword_search_find_a_latin_word_glued_to_chinese(tmp_path, word):
    """A real group export that writes English inside Chinese ("捡cardboard", "做project",
    "辉瑞与BioNTech疫苗", starkdmi/whats_json chats_unique)."""
    chat = tmp_path / "WhatsApp Chat with 三剑客.txt"
    chat.write_bytes(MIXED.read_bytes())
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([chat])
        page = await memory.grep(word)
        assert page.total == _by_hand(word) > 0
        glued = [m.line for m in page.matches if re.search(rf"[\u4e00-\u9fff]{word}|{word}[\u4e00-\u9fff]",
                                                          m.line, re.I)]
        assert glued or page.total > len(page.matches)
        assert await memory.search(word, mode="keyword")
        phrase = await memory.grep("北京户口ah")  # Chinese then Latin in one word, as a phrase
        assert phrase.total == 1


async def test_a_store_indexed_before_words_were_cut_by_script_is_indexed_again(tmp_path: Path):
    from storage.keyword.languages import WORD
    from storage.keyword.terms import word_terms

    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        note = tmp_path / "note.txt"
        note.write_text("Вчера купил новый iPhoneом и сразу позвонил маме с работы домой", encoding="utf-8")
        await memory.ingest([note])
        assert await memory.search("iPhone", mode="keyword")
        # as the index held it before: "iphoneом" one word
        async with memory.conn.execute("SELECT id, text, language FROM chunks") as cur:
            [(chunk_id, text, language)] = await cur.fetchall()
        old = " ".join(t for w in WORD.findall(text.lower()) for t in word_terms(w, language))
        await memory.conn.execute("DELETE FROM chunks_fts WHERE rowid = ?", (chunk_id,))
        await memory.conn.execute("INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)", (chunk_id, old))
        await memory.conn.execute("DELETE FROM _migrations WHERE number = 172")
        await memory.conn.commit()
        assert not await memory.search("iPhone", mode="keyword")
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        assert await memory.search("iPhone", mode="keyword")
