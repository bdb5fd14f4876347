"""Query translation from bilingual dictionaries (core/memory/translation.py): FreeDict's dictd
files read as the format is written (core/memory/freedict.py), the lexicon file (storage/lexicon.py),
and a hybrid search finding evidence written in another language than the question.

The dictd files here are written by hand, their offsets in dictd's base-64 digits encoded by a
helper of this test; the entry texts are copied from Debian's dict-freedict-* packages (2022.04.21),
which the last tests read where they are installed (.ci/run installs them)."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from core.memory.freedict import Dictionary, entries, find_dictionaries, translations
from core.memory.translation import Translator, chosen, exact_key, lookup_key, ordered_translations, target_languages
from storage import lexicon
from tests.core.helpers import memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder

DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

# entries as Debian's files hold them (zcat freedict-eng-spa.dict.dz and so on)
SPANISH_AIRPORT = "airport /ɛəpɔːt/\n1. aeropuerto\n"
SPANISH_FAREWELL = "farewell /fɛəwel/\n1. adiós\n2. despedida\n"
POLISH_CAKE = ("cake /keɪk/ <N>\n 1.  ciasto, ciastko\n 2.  placek\n 3.  [mydła]  kawałek\n"
               " 4.  [nieform]  a piece of cake (:a :piece :of :cake)\n - łatwizna\n")
GERMAN_AIRPORT = ("airport /ˈeəpɔːt/\nFlughafen <masc> [aviat.]\n      \"the island's airport\"  - Inselflughafen\n"
                  " see: {airports}, {hub airport}, {island airport}\n\n")
GERMAN_CAKE_VERB = ("cake /kˈeɪk/ <v>\nzusammenbacken, Klumpen bilden <v>\n   Synonym: {agglomerate}\n\n"
                    " see: {caking}, {agglomerating}, {caked}, {agglomerated}\n\n")


def digits(n: int) -> str:
    out = ""
    while True:
        out = DIGITS[n % 64] + out
        n //= 64
        if not n:
            return out


def write_dictd(folder: Path, name: str, headwords: list[tuple[str, str]], *, compressed: bool = True) -> Path:
    """A dictd pair: the index (headword, offset, length) and the entries, gzip-compressed as
    dictzip files are (a dictzip file is a gzip file)."""
    folder.mkdir(parents=True, exist_ok=True)
    body, lines = b"", ["00-database-short\tA\tB"]
    for headword, text in headwords:
        data = text.encode("utf-8")
        lines.append(f"{headword}\t{digits(len(body))}\t{digits(len(data))}")
        body += data
    (folder / f"freedict-{name}.index").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if compressed:
        (folder / f"freedict-{name}.dict.dz").write_bytes(gzip.compress(body))
    else:
        (folder / f"freedict-{name}.dict").write_bytes(body)
    return folder / f"freedict-{name}.index"


def test_each_dictionary_style_gives_its_translations_and_nothing_else():
    assert translations(SPANISH_AIRPORT) == ["aeropuerto"]
    assert translations(SPANISH_FAREWELL) == ["adiós", "despedida"]
    # the idiom's example and its translation (" - łatwizna") are left out; the label [mydła] too
    assert translations(POLISH_CAKE) == ["ciasto", "ciastko", "placek", "kawałek"]
    # the quoted example, its translation and the cross-references are left out
    assert translations(GERMAN_AIRPORT) == ["flughafen"]
    assert translations(GERMAN_CAKE_VERB) == ["zusammenbacken", "klumpen bilden"]
    # Polish-English numbers parts of speech, then senses
    assert translations("rent /rent/\n I.  wynajmować\n II. 1.  czynsz\n") == ["wynajmować", "czynsz"]


@pytest.mark.parametrize("compressed", [True, False])
def test_the_index_points_into_the_entries(tmp_path: Path, compressed: bool):
    index = write_dictd(tmp_path, "eng-spa", [("airport", SPANISH_AIRPORT), ("air base", "air base\nbase aérea\n"),
                                              ("farewell", SPANISH_FAREWELL)], compressed=compressed)
    found = list(entries(Dictionary("en", "es", index)))
    # the two-word headword is no word to look for; the database's own entries are not words
    assert found == [("airport", ["aeropuerto"]), ("farewell", ["adiós", "despedida"])]


def test_dictionaries_are_found_by_their_file_names(tmp_path: Path):
    write_dictd(tmp_path / "a", "eng-spa", [("airport", SPANISH_AIRPORT)])
    write_dictd(tmp_path / "b", "eng-spa", [("airport", "airport\naeródromo\n")])
    write_dictd(tmp_path / "b", "pol-eng", [("ciasto", "ciasto\ncake\n")])
    write_dictd(tmp_path / "b", "xyz-eng", [("a", "a\nb\n")])  # a language the index does not stem
    (tmp_path / "b" / "freedict-deu-eng.index").write_text("")  # its entries are missing
    # freedict.org's download, unpacked: its own folder and names without "freedict-"
    (tmp_path / "b" / "fra-eng").mkdir()
    write_dictd(tmp_path / "b" / "fra-eng", "fra-eng", [("chat", "chat\ncat\n")]).rename(
        tmp_path / "b" / "fra-eng" / "fra-eng.index")
    (tmp_path / "b" / "fra-eng" / "freedict-fra-eng.dict.dz").rename(tmp_path / "b" / "fra-eng" / "fra-eng.dict.dz")
    found = {(d.source, d.target): d.index.parent.name for d in find_dictionaries(
        [tmp_path / "missing", tmp_path / "a", tmp_path / "b"])}
    assert found == {("en", "es"): "a", ("pl", "en"): "b", ("fr", "en"): "fra-eng"}  # the first folder's wins
    assert list(entries(next(d for d in find_dictionaries([tmp_path / "b"]) if d.source == "fr"))) == [("chat", ["cat"])]


def test_translations_both_directions_agree_on_come_first():
    # Ding's English-German gives "dog" a tool's senses first; German-English's "Hund" gives "dog"
    forward = {"dog": ["bandhaken", "bock", "hund"], "pet": ["haustier"], "pets": ["haustiere"]}
    reverse = {"hund": ["dog", "hound"], "köter": ["cur", "dog"], "rüde": ["dog"], "haustier": ["pet"]}
    ordered = ordered_translations(forward, reverse, "en")
    # agreed; then the reverse's, those giving "dog" first before those giving it second; then the rest
    assert ordered[lookup_key("dog", "en")] == ["hund", "rüde", "köter", "bandhaken", "bock"]
    # headwords filed under one stem are merged, the shorter first; each is filed as itself too
    assert ordered[lookup_key("pets", "en")] == ["haustier", "haustiere"]
    assert ordered[exact_key("pets")] == ["haustiere"]


def test_a_word_s_own_entry_comes_before_its_stem_mates(tmp_path: Path):
    folder = tmp_path / "dicts"
    # Polish-English files "Wed." (Wednesday) under the same stem as "wedding"
    write_dictd(folder, "pol-eng", [("środa", "środa\n I. 1.  Wednesday\n 2.  wed\n"), ("ślub", "ślub\n wedding\n")])
    translator = Translator([folder], tmp_path / "lexicons.sqlite3")
    assert lookup_key("wed", "en") == lookup_key("wedding", "en")
    assert translator.translate(["wedding"], "en", "pl") == [["ślub", "środa"]]
    assert translator.translate(["wednesday"], "en", "pl") == [["środa"]]


def test_each_word_takes_its_first_translations_the_store_holds():
    held = {"hund", "haustier", "tier"}.__contains__
    found = [["bandhaken", "bock", "hund", "köter"], ["haustier", "tier", "liebling"], ["nichts"]]
    assert chosen(found, held, per_word=1) == ["hund", "haustier"]
    assert chosen(found, held, per_word=4) == ["hund", "haustier", "tier"]


def test_the_lexicon_compiles_once_and_again_when_a_dictionary_changes(tmp_path: Path):
    folder, path = tmp_path / "dicts", tmp_path / "data" / "lexicons.sqlite3"
    index = write_dictd(folder, "eng-spa", [("airport", SPANISH_AIRPORT)])
    write_dictd(folder, "spa-eng", [("despedida", "despedida /dˌespeðˈiða/\nfarewell, goodbye, good‐bye\n")])
    translator = Translator([folder], path)
    assert translator.translate(["airports", "farewell", "unknown"], "en", "es") == [["aeropuerto"], ["despedida"], []]
    assert translator.translate(["farewell"], "en", "de") == [[]]  # no such dictionary
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)  # owner-only, as the data folder's files are
    first = lexicon.stamp(path, "en", "es")
    # a package update: a new entry, the index rewritten (its size and time change)
    write_dictd(folder, "eng-spa", [("airport", "airport\n1. aeródromo\n2. aeropuerto\n")])
    os.utime(index, ns=(index.stat().st_atime_ns, index.stat().st_mtime_ns + 10**9))
    again = Translator([folder], path)
    assert again.translate(["airport"], "en", "es") == [["aeródromo", "aeropuerto"]]
    assert lexicon.stamp(path, "en", "es") != first


def test_only_the_store_s_other_languages_with_a_dictionary_and_a_share_are_targets(tmp_path: Path):
    folder = tmp_path / "dicts"
    write_dictd(folder, "eng-spa", [("airport", SPANISH_AIRPORT)])
    write_dictd(folder, "deu-eng", [("hund", "hund\ndog\n")])  # English-German through its reverse
    translator = Translator([folder], tmp_path / "lexicons.sqlite3")
    counts = {"": 900, "en": 300, "es": 200, "de": 40, "fr": 10, "pt": 100}  # no Portuguese dictionary
    assert target_languages(counts, "en", translator) == ["es", "de"]  # French: 10 of 650 told, 1.5%
    assert target_languages({"en": 500}, "en", translator) == []


SPANISH_CHAT = [f"{d:02d}/0{1 + d % 8}/2023, 19:{d:02d} - Caro: {line}" for d, line in enumerate([
    "Hola Dani, ¿cómo te fue hoy en el trabajo? Yo estoy muy cansada",
    "Mañana vamos a la playa con los niños y mi mamá, ¿quieres venir?",
    "No sé si puedo ir el sábado porque tengo que trabajar en la casa",
    "Te llevo al aeropuerto el miércoles, no te preocupes por nada",
    "¿Ya viste la película que te dije? Es muy buena, de verdad",
    "Mi hermano dice que la comida de ayer estuvo muy rica, gracias",
], start=1)]
ENGLISH_CHAT = [f"{d:02d}/0{1 + d % 8}/2023, 10:{d:02d} - Maya: {line}" for d, line in enumerate([
    "Can you take the kids to the park on Saturday? I have offered to help at the market",
    "I will take the train and be there at nine, the one who offered to drive is ill",
    "They offered me the job! I take it as a sign that the move was right",
    "Take your time with the forms, the office offered another week",
    "We take the boat on Sunday if the weather holds, Tom offered his car",
    "I offered to take notes at the meeting and then forgot the pen",
], start=1)]


async def ask(data_dir: Path, query: str, translator: Translator | None) -> list[str]:
    whatsapp_export(data_dir / "WhatsApp Chat with Caro.txt", SPANISH_CHAT)
    whatsapp_export(data_dir / "WhatsApp Chat with Maya.txt", ENGLISH_CHAT)
    async with memory_at(data_dir / "store", HashEmbedder(), owner="Dani", translator=translator) as memory:
        if not await memory.search("aeropuerto", limit=1, mode="keyword"):
            await memory.ingest([data_dir / "WhatsApp Chat with Caro.txt", data_dir / "WhatsApp Chat with Maya.txt"])
        return [hit.text for hit in await memory.search(query, limit=2)]


async def test_a_question_finds_its_evidence_in_the_store_s_other_language(tmp_path: Path):
    folder = tmp_path / "dicts"
    write_dictd(folder, "eng-spa", [("airport", SPANISH_AIRPORT), ("take", "take /teik/\n1. tomar\n2. llevar\n")])
    question = "Who offered to take Dani to the airport?"
    without = await ask(tmp_path, question, None)
    assert not any("aeropuerto" in text for text in without)  # English "take" and "offered" win
    translator = Translator([folder], tmp_path / "lexicons.sqlite3")
    # an import compiles its store's pairs (here a Spanish chat's): no search waits for them
    assert lexicon.stamp(translator.path, "en", "es") is None
    async with memory_at(tmp_path / "another", HashEmbedder(), owner="Dani", translator=translator) as memory:
        await memory.ingest([tmp_path / "WhatsApp Chat with Caro.txt"])
    assert lexicon.stamp(translator.path, "en", "es") is not None
    found = await ask(tmp_path, question, translator)
    assert any("Te llevo al aeropuerto" in text for text in found)


DEBIAN = Path("/usr/share/dictd")
needs_freedict = pytest.mark.skipif(not (DEBIAN / "freedict-eng-spa.index").is_file()
                                    or not (DEBIAN / "freedict-deu-eng.index").is_file()
                                    or not (DEBIAN / "freedict-eng-pol.index").is_file(),
                                    reason="Debian's dict-freedict-* packages are not installed (.ci/run installs them)")


@needs_freedict
def test_debian_s_freedict_files(tmp_path: Path):
    translator = Translator([DEBIAN], tmp_path / "lexicons.sqlite3")
    # what `zcat freedict-eng-spa.dict.dz` shows under "airport" and "wedding"
    assert translator.translate(["airport"], "en", "es")[0][:1] == ["aeropuerto"]
    assert "boda" in translator.translate(["weddings"], "en", "es")[0]
    # English-German (Ding's, both ways) gives a dog's tool senses before Hund: kept, for the
    # store's words to choose from
    dog = translator.translate(["dog"], "en", "de")[0]
    assert dog[0] == "bandhaken" and "hund" in dog
    assert "flughafen" in translator.translate(["airport"], "en", "de")[0]
    assert "ślub" in translator.translate(["wedding"], "en", "pl")[0]


def test_the_folders_are_the_data_folder_s_and_debian_s_unless_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from core.config import Settings

    assert Settings(data_dir=tmp_path).dictionary_folders == (tmp_path / "dictionaries", DEBIAN)
    monkeypatch.setenv("BIOGRAPHER_DICTIONARY_DIRS", "~/dicts, /opt/freedict")
    assert Settings(data_dir=tmp_path).dictionary_folders == (Path("~/dicts").expanduser(), Path("/opt/freedict"))
    monkeypatch.setenv("BIOGRAPHER_DICTIONARY_DIRS", "off")
    assert Settings(data_dir=tmp_path).dictionary_folders == ()


def test_doctor_says_which_languages_are_translated_and_what_the_others_need(tmp_path: Path):
    from bot.cli_doctor import translation_status
    from core.config import Settings

    settings = Settings(data_dir=tmp_path, dictionary_dirs=[str(tmp_path / "dicts")])
    assert translation_status(settings, None) == "off (BIOGRAPHER_DICTIONARY_DIRS=off)"
    assert translation_status(settings, ([], [])).startswith("not needed")
    line = translation_status(settings, (["es"], ["pl"]))
    assert line.startswith("Spanish: an English question's words are also looked for translated; Polish: no dictionary in ")
    assert "`apt install dict-freedict-eng-pol dict-freedict-pol-eng`" in line


async def test_a_store_s_coverage_counts_its_languages_with_a_share(tmp_path: Path):
    folder = tmp_path / "dicts"
    write_dictd(folder, "eng-spa", [("airport", SPANISH_AIRPORT)])
    whatsapp_export(tmp_path / "WhatsApp Chat with Caro.txt", SPANISH_CHAT)
    async with memory_at(tmp_path / "store", HashEmbedder(), owner="Dani",
                         translator=Translator([folder], tmp_path / "lexicons.sqlite3")) as memory:
        assert await memory.translation_coverage() == ([], [])
        await memory.ingest([tmp_path / "WhatsApp Chat with Caro.txt"])
        assert await memory.translation_coverage() == (["es"], [])
    async with memory_at(tmp_path / "store", HashEmbedder(), owner="Dani") as memory:
        assert await memory.translation_coverage() is None


def test_a_damaged_dictionary_or_an_unwritable_cache_leaves_search_without_that_pair(tmp_path: Path,
                                                                                     caplog: pytest.LogCaptureFixture):
    folder = tmp_path / "dicts"
    write_dictd(folder, "eng-spa", [("airport", SPANISH_AIRPORT)])
    (folder / "freedict-eng-spa.dict.dz").write_bytes(b"\x1f\x8b not gzip after all")
    translator = Translator([folder], tmp_path / "lexicons.sqlite3")
    assert translator.translate(["airport"], "en", "es") == [[]]
    assert translator.translate(["airport"], "en", "es") == [[]]
    warned = [r for r in caplog.records if "cannot use the en-es dictionaries" in r.getMessage()]
    assert len(warned) == 1 and "searches go on without them" in warned[0].getMessage()
    write_dictd(folder, "eng-deu", [("airport", GERMAN_AIRPORT)])
    # one language's damaged file keeps no other from compiling, in the same child process
    both = Translator([folder], tmp_path / "both.sqlite3")
    both.prepare({"en": 10, "es": 10, "de": 10})
    assert both.translate(["airport"], "en", "de") == [["flughafen"]]
    assert both.translate(["airport"], "en", "es") == [[]]
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    assert Translator([folder], blocked / "lexicons.sqlite3").translate(["airport"], "en", "de") == [[]]


def test_compiling_runs_in_a_child_process_once_for_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import subprocess

    import core.memory.translation as translation

    children: list[list[str]] = []
    real_run = subprocess.run

    def recorded(command, *args, **kwargs):
        children.append(list(command))
        return real_run(command, *args, **kwargs)

    monkeypatch.setattr(translation.subprocess, "run", recorded)
    folder = tmp_path / "dicts"
    write_dictd(folder, "eng-spa", [("airport", SPANISH_AIRPORT)])
    write_dictd(folder, "spa-eng", [("despedida", "despedida\nfarewell\n")])
    translator = Translator([folder], tmp_path / "lexicons.sqlite3")
    translator.prepare({"en": 10, "es": 10})
    assert [c[2:3] + c[5:] for c in children] == [["core.memory.translation", "en-es", "es-en"]]
    assert translator.translate(["airport"], "en", "es") == [["aeropuerto"]]
    assert translator.translate(["despedida"], "es", "en") == [["farewell"]]
    Translator([folder], tmp_path / "lexicons.sqlite3").translate(["airport"], "en", "es")
    assert len(children) == 1  # compiled already: another store's translator only reads it
