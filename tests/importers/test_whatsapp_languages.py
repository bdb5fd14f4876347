"""WhatsApp exports in the phone languages people use (real exports, tests/importers/data): the
encryption notice, deleted-message stubs, missed calls and media placeholders are told apart from
people's words in every language, exactly as in English, and two iPhone `_chat.txt` files of
different chats stay two conversations."""

from __future__ import annotations

import shutil
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from core.importers.base import ImportContext
from tests.core.helpers import memory_at
from tests.importers.conftest import parse_all

DATA = Path(__file__).parent / "data" / "whatsapp"

# file -> (the chat's name, WhatsApp's "this message was deleted", its "image omitted")
EXPORTS = {
    "ar_ios.txt": ("Elon Musk", "تم حذف هذه الرسالة", "لم يتم إدراج الصورة"),
    "ar_ios_eastern_digits.txt": ("+40 521 028 61 88", "تم حذف هذه الرسالة", "لم يتم إدراج الصورة"),
    "cs_ios.txt": ("Elon Musk", "Tato zpráva byla smazána", "obrázek vynechán"),
    "de_ios.txt": ("Elon Musk", "Diese Nachricht wurde gelöscht", "Bild weggelassen"),
    "en_ios.txt": ("Elon Musk", "This message was deleted", "image omitted"),
    "es_ios.txt": ("Elon Musk", "Se eliminó este mensaje", "imagen omitida"),
    "fr_ios.txt": ("Elon Musk", "Ce message a été supprimé", "image absente"),
    "hi_ios.txt": ("Elon Musk", "यह मैसेज डिलीट कर दिया गया है", "फ़ोटो हटाई गई"),
    "id_ios.txt": ("Elon Musk", "Pesan ini dihapus", "gambar tidak disertakan"),
    "it_ios.txt": ("Elon Musk", "Questo messaggio è stato eliminato", "immagine omessa"),
    "ja_ios.txt": ("Elon Musk", "このメッセージは削除されました", "画像は含まれていません"),
    "pt_ios.txt": ("Elon Musk", "Esta mensagem foi apagada", "imagem não revelada"),
    "ru_ios.txt": ("Elon Musk", "Данное сообщение удалено", "изображение отсутствует"),
    "th_ios.txt": ("Elon Musk", "ข้อความนี้ถูกลบแล้ว", "ไม่มีรูปภาพ"),
    "uk_ios.txt": ("Elon Musk", "Це повідомлення було видалено", "зображення відсутнє"),
    "vi_ios.txt": ("Musk Elon", "Tin nhắn này đã bị xóa", "đã bỏ qua hình ảnh"),
}
# what the person typed in every one of these exports (the rest is WhatsApp's)
TYPED = {"Hello World", "😊", "This message is reply to another"}


def _as_chat_txt(tmp_path: Path, name: str) -> Path:
    """The export as an unzipped iPhone export holds it: `_chat.txt` in a folder of no meaning."""
    folder = tmp_path / name.removesuffix(".txt")
    folder.mkdir()
    return Path(shutil.copy(DATA / name, folder / "_chat.txt"))


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_notices_and_placeholders_in_every_language(tmp_path: Path, name: str) -> None:
    title, deleted, image_omitted = EXPORTS[name]
    notice = (DATA / name).read_text(encoding="utf-8").split("\n")[0].split(": ", 1)[1]
    [(document, messages)] = parse_all(_as_chat_txt(tmp_path, name), ImportContext())
    assert document.name == f"WhatsApp with {title}"
    assert document.skipped["notices"] == 1  # the encryption notice: counted, not stored
    assert document.skipped["deleted messages"] >= 2
    for message in messages:
        assert deleted not in message.text and notice.strip("\u200e\u200f")[:20] not in message.text
        assert image_omitted not in message.text or name.startswith("en")  # labels are English
    labels = Counter(m.text for m in messages if m.kind == "media")
    assert labels["[image omitted]"] == 4 and labels["[video omitted]"] == 2
    assert labels["[sticker omitted]"] == 2 and labels["[contact card omitted]"] == 1
    # iOS names the file it left out ("Template.docx ‎document omitted"): the name is kept
    assert sorted(label for label in labels if label.startswith("[document omitted")) == [
        "[document omitted: Resume-Dmitry-Starkov.pdf]", "[document omitted: Some file.txt]",
        "[document omitted: Template.docx]"]
    typed = [m for m in messages if m.kind == "text"]
    # the shared location stays the person's message; nothing else of WhatsApp's is words
    assert {m.text for m in typed if "https://" not in m.text} == TYPED
    assert all(m.sender != title for m in typed)  # the chat never speaks
    assert all(m.kind == "system" and m.text == f"Security code changed ({title})"
               for m in messages if m.sender == "" )


def test_the_2016_android_encryption_notices_are_notices(tmp_path: Path) -> None:
    """The wordings Android wrote in 2016-2019 (as in lucasrodes/whatstk's `pokemon.txt` and the
    chats collected in starkdmi/whats_json, GPL-3.0)."""
    chat = ("06.08.2016, 13:18 - Messages you send to this group are now secured with end-to-end "
            "encryption. Tap for more info.\n"
            "06.08.2016, 13:19 - Messages you send to this chat and calls are now secured with "
            "end-to-end encryption. Tap for more info.\n"
            "06.08.2016, 13:20 - Messages to this group are now secured with end-to-end encryption. "
            "Tap for more info.\n"
            "06.08.2016, 13:23 - Ash Ketchum: Hey guys!\n")
    path = tmp_path / "WhatsApp Chat with Pokemon Chat.txt"
    path.write_text(chat, encoding="utf-8")
    [(document, messages)] = parse_all(path, ImportContext())
    assert document.skipped["notices"] == 3
    assert [(m.sender, m.text) for m in messages] == [("Ash Ketchum", "Hey guys!")]


def test_android_russian_placeholders_and_missed_calls(tmp_path: Path) -> None:
    path = Path(shutil.copy(DATA / "ru_android.txt", tmp_path / "Чат WhatsApp с контактом Elon.txt"))
    [(document, messages)] = parse_all(path, ImportContext())
    assert document.name == "WhatsApp with Elon"
    assert document.skipped == {"notices": 1, "deleted messages": 8, "unreadable messages": 2}
    assert [m.text for m in messages if m.kind == "system"] == ["Missed voice call (Dmitry S)"] * 2
    assert Counter(m.text for m in messages if m.kind == "media") == {
        "[media omitted]": 27, "[contact card]": 2}
    assert not any("удал" in m.text or "медиафайлов" in m.text for m in messages)


async def test_notices_are_not_found_by_search(tmp_path: Path, embedder) -> None:
    paths = [_as_chat_txt(tmp_path, name) for name in ("de_ios.txt", "ja_ios.txt", "ru_ios.txt")]
    async with memory_at(tmp_path / "data", embedder, owner="Dmitry S") as memory:
        report = await memory.ingest(paths, index=False)
        found = {phrase: (await memory.grep(phrase)).total
                 for phrase in ("weggelassen", "gelöscht", "verschlüsselt", "含まれていません",
                                "отсутствует", "шифрованием", "Hello World")}
    assert report.errors == [] and report.documents_added == 3
    assert report.skipped == {"notices": 3, "deleted messages": 6}
    assert found.pop("Hello World") > 0  # the people's own words are found
    assert set(found.values()) == {0}


async def test_two_iphone_chat_txt_files_stay_two_conversations(tmp_path: Path, embedder) -> None:
    first = _as_chat_txt(tmp_path, "en_ios.txt")
    second = _as_chat_txt(tmp_path, "vi_ios.txt")
    # a third: the notice that names the chat cut off, zipped as WhatsApp names the zip
    trimmed = (DATA / "de_ios.txt").read_text(encoding="utf-8").split("\n", 1)[1]
    zipped = tmp_path / "WhatsApp Chat - Teo Ramos.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("_chat.txt", trimmed)
    # a fourth: the same, unzipped into a folder of its own name, with no owner known
    folder = tmp_path / "Lisbon trip"
    folder.mkdir()
    (folder / "_chat.txt").write_text(
        (DATA / "fr_ios.txt").read_text(encoding="utf-8").split("\n", 1)[1].replace(
            "Dmitry S: 😊", "Ana: 😊"), encoding="utf-8")
    async with memory_at(tmp_path / "data", embedder, owner="nobody") as memory:
        report = await memory.ingest([first, second, zipped, folder / "_chat.txt"], index=False)
        async with memory.conn.execute(
                "SELECT name, conversation_key FROM documents ORDER BY id") as cur:
            rows = [tuple(r) for r in await cur.fetchall()]
    assert report.errors == []
    assert rows == [("WhatsApp with Elon Musk", "whatsapp:Elon Musk"),
                    ("WhatsApp with Musk Elon", "whatsapp:Musk Elon"),
                    ("WhatsApp with Teo Ramos", "whatsapp:Teo Ramos"),
                    ("WhatsApp with Lisbon trip", "whatsapp:Lisbon trip")]


def _without_years(text: str) -> str:
    """A real Android export rewritten in the layout Android wrote before about 2015, which had
    no year (`18 Mar 12:14 - Name: text`): its first half on 30 December, the rest on 2 January."""
    lines = text.rstrip("\n").split("\n")
    out = []
    for number, line in enumerate(lines):
        stamp, _, rest = line.partition(" - ")
        clock = stamp.split(", ")[1]
        day = "30 Dec" if number < len(lines) // 2 else "2 Jan"
        out.append(f"{day} {clock} - {rest}")
    return "\n".join(out) + "\n"


def test_an_export_without_years_gets_them_from_the_file_date(tmp_path: Path) -> None:
    import os
    from datetime import datetime
    from zoneinfo import ZoneInfo

    path = tmp_path / "WhatsApp Chat with Group Chat XXX.txt"
    path.write_text(_without_years((DATA / "en_android_group.txt").read_text(encoding="utf-8")),
                    encoding="utf-8")
    made = datetime(2015, 1, 9, 18, 0, tzinfo=ZoneInfo("Europe/Lisbon")).timestamp()
    os.utime(path, (made, made))
    [(document, messages)] = parse_all(path, ImportContext(timezone=ZoneInfo("Europe/Lisbon")))
    assert document.note == ("the export has no years: 2014-2015 inferred from the file's date "
                             "(2015-01-09) and the order of the messages")
    assert messages[0].time.replace(tzinfo=None) == datetime(2014, 12, 30, 16, 11)
    assert messages[-1].time.replace(tzinfo=None) == datetime(2015, 1, 2, 16, 57)
    assert [m.text for m in messages if m.kind == "text"] == ["Hello all", "This is group chat", "We"]
    assert document.skipped == {"notices": 1, "deleted messages": 1}


@pytest.mark.parametrize("joiner", [" à", " um", " kl.", " alle ore", " às", " в", " о", " klo",
                                    "، ساعت", " pukul", " -", " om", " u", " at"])
def test_android_s_word_between_date_and_time_in_any_language(tmp_path: Path, joiner: str) -> None:
    """Android writes the date and time with its language's pattern: French phones
    `12/03/2021 à 14:05 - Name: text`, German `um`, Swedish `kl.`, Persian `، ساعت`
    (whatsapp_date_joiners.txt). The real Android group export, rewritten with each word,
    reads as the original does."""
    import re as regex

    original = (DATA / "en_android_group.txt").read_text(encoding="utf-8")
    rewritten = regex.sub(r"^(\d\d/\d\d/\d{4}), (\d\d:\d\d) - ", rf"\1{joiner} \2 - ", original,
                          flags=regex.M)
    assert rewritten != original
    source, joined = tmp_path / "a" / "WhatsApp Chat with Group Chat.txt", tmp_path / "b" / "WhatsApp Chat with Group Chat.txt"
    for path, text in ((source, original), (joined, rewritten)):
        path.parent.mkdir()
        path.write_text(text, encoding="utf-8")
    [(_, expected)] = parse_all(source, ImportContext())
    [(_, messages)] = parse_all(joined, ImportContext())
    assert [(m.sender, m.time, m.text) for m in messages] == [(m.sender, m.time, m.text) for m in expected]
    assert len(messages) >= 5


ADMIN_DELETED = {  # file -> WhatsApp's "deleted by an admin" and "deleted by admin {}" (iOS)
    "es_ios.txt": ("Un admin. eliminó este mensaje.", "Un admin., Elon Musk, eliminó este mensaje."),
    "fr_ios.txt": ("Ce message a été supprimé par un ou une admin.",
                   "Ce message a été supprimé par l'admin Elon Musk."),
    "ja_ios.txt": ("このメッセージは管理者により削除されました。", "このメッセージは管理者(Elon Musk)により削除されました。"),
    "en_ios.txt": ("This message was deleted by an admin.", "This message was deleted by admin Elon Musk."),
}


@pytest.mark.parametrize("name", sorted(ADMIN_DELETED))
def test_a_message_an_admin_deleted_is_left_out_and_counted_in_any_language(tmp_path: Path,
                                                                             name: str) -> None:
    """The real export with its "this message was deleted" stubs replaced by the stubs an
    admin's deletion leaves (as iOS writes them, behind its invisible mark)."""
    own, by_name = ADMIN_DELETED[name]
    deleted = EXPORTS[name][1]
    original = _as_chat_txt(tmp_path, name)
    [(before, _)] = parse_all(original, ImportContext())
    lines = original.read_text(encoding="utf-8").split("\n")
    [n] = [n for n, line in enumerate(lines) if deleted in line]
    head = lines[n].split("\u200e", 1)[0]
    lines[n: n + 1] = [head + "\u200e" + own + "\r", head + "\u200e" + by_name + "\r"]
    original.write_text("\n".join(lines), encoding="utf-8")
    [(document, messages)] = parse_all(original, ImportContext())
    assert document.skipped["deleted messages"] == before.skipped["deleted messages"] + 1
    assert not [m for m in messages if "admin" in m.text or "管理者" in m.text]


def _polls_by_hand(text: str) -> list[tuple[str, list[str]]]:
    """Each POLL: block of an export, read line by line: the question, then the OPTION lines."""
    polls, lines = [], text.split("\n")
    for n, line in enumerate(lines):
        if line.endswith(": POLL:"):
            options = []
            for following in lines[n + 2:]:
                if not following.startswith("OPTION: "):
                    break
                options.append(following.removeprefix("OPTION: ").rsplit(" (", 1)[0])
            polls.append((lines[n + 1], options))
    return polls


def test_a_poll_keeps_its_question_and_options(tmp_path: Path) -> None:
    """A real Android group export with two polls (starkdmi/whats_json chats_unique)."""
    path = tmp_path / "WhatsApp Chat with Friends.txt"
    shutil.copy(DATA / "en_android_polls.txt", path)
    expected = _polls_by_hand(path.read_text(encoding="utf-8"))
    assert [len(options) for _, options in expected] == [5, 12]
    [(_, messages)] = parse_all(path, ImportContext())
    polls = [m for m in messages if m.text.startswith("[poll]")]
    assert [(m.sender, m.text) for m in polls] == [
        ("Mujeeb khan", f"[poll] {question} ({', '.join(options)})") for question, options in expected]
    assert not [m for m in messages if "OPTION:" in m.text or "votes)" in m.text]


# group events as iOS's own string tables write them (Localizable.strings DE, keys IGUjt and
# Ik.w', starkdmi/whats_json tool/patterns_generator/data at 760b3a0a): each opens with U+200E,
# and iOS writes them under the name of the member they are about
_GROUP_EVENTS = ("\u200e{} hat die Gruppe verlassen.", "\u200eDu hast {} hinzugefügt.")
# a poll as German iPhones export it (the conformance corpus's KerYagciHTL, Jrana1 and Smirsi
# exports): the head and the option lines in the phone's language, each behind the mark
_GERMAN_POLL = ("\u200eUMFRAGE:", "Wer kommt mit?", "\u200eOPTION: Ich (2 Stimmen)",
                "\u200eOPTION: Nicht ich (1 Stimme)")


def test_notices_ios_writes_under_a_member_s_name_are_system_lines_in_any_language(
        tmp_path: Path) -> None:
    """The real German export with two group events and a poll added at its end, as iOS writes
    them: the events are no one's words (system lines, counted as messages as before), the poll
    keeps its question and options, and what the person typed or shared stays theirs."""
    path = _as_chat_txt(tmp_path, "de_ios.txt")
    [(_, before)] = parse_all(path, ImportContext())
    stamp = "[3/28/22, 09:00:00]"
    added = [f"{stamp} Elon Musk: {_GROUP_EVENTS[0].format('Elon Musk')}",
             f"{stamp} Elon Musk: {_GROUP_EVENTS[1].format('Elon Musk')}",
             f"{stamp} Dmitry S: " + "\n".join(_GERMAN_POLL)]
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + "\n" + "\n".join(added) + "\n",
                    encoding="utf-8")
    [(_, messages)] = parse_all(path, ImportContext())
    assert len(messages) == len(before) + 3
    events = [m for m in messages if "Gruppe verlassen" in m.text or "hinzugefügt" in m.text]
    assert [(m.sender, m.kind) for m in events] == [("", "system"), ("", "system")]
    assert "Elon Musk hat die Gruppe verlassen." in events[0].text
    [poll] = [m for m in messages if m.text.startswith("[poll]")]
    assert (poll.sender, poll.text) == ("Dmitry S", "[poll] Wer kommt mit? (Ich, Nicht ich)")
    # a location iOS writes behind the same mark is what the sender shared
    [location] = [m for m in messages if "maps.google.com" in m.text]
    assert location.sender == "Dmitry S" and location.kind != "system"
    assert TYPED <= {m.text for m in messages if m.sender == "Dmitry S"}


def test_a_body_that_opens_with_a_right_to_left_mark_stays_the_sender_s(tmp_path: Path) -> None:
    """Keyboards put U+200F before right-to-left words (the Urdu and Arabic lines of
    nav643/myJavaWork's export open with it), so only U+200E marks iOS's own text."""
    path = _as_chat_txt(tmp_path, "en_ios.txt")
    typed = "\u200fأن لله وأن إليه راجعون"
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n")
                    + f"\n[3/28/22, 09:00:00] Dmitry S: {typed}\n", encoding="utf-8")
    [(_, messages)] = parse_all(path, ImportContext())
    assert (messages[-1].sender, messages[-1].kind) == ("Dmitry S", "text")
