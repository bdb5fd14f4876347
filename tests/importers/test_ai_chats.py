"""ChatGPT and Claude exports: the owner's turns are the owner's, the assistant's never are.

ChatGPT: real conversations from a public parser's fixtures (tests/importers/data/chatgpt).
Claude: no real export with a redistributable licence was found; its tests build the shape real
exports have (content blocks with thinking and tool calls, the flat `text` that repeats them,
branches through `parent_message_uuid`), written here.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.errors import ImportFailed
from core.importers import default_importers, pick_importer
from core.importers.base import ImportContext
from core.importers.chatgpt import ChatGPTImporter
from core.importers.claude import ClaudeImporter
from tests.importers.conftest import parse_all

DATA = Path(__file__).parent / "data" / "chatgpt"


def test_chatgpt_export_keeps_the_current_branch_and_who_said_it(context: ImportContext) -> None:
    [(first, dna), (second, painting)] = parse_all(DATA / "conversations.json", context)
    assert first.name == "ChatGPT: Indigenous DNA in Mexico" and first.kind == "chatgpt"
    assert first.conversation.key == "chatgpt:68ef24dd-7008-832c-bd68-1bb462dd87bc"
    question, answer = dna  # hidden system nodes, custom instructions and empty answers are gone
    assert question.is_owner and question.sender == "Me"
    assert question.text.startswith("ME:\n\nWhere in the spectrum of Mexican society")
    assert question.time == datetime.fromtimestamp(1760503066.9995918, tz=timezone.utc)
    assert not answer.is_owner and answer.sender == "ChatGPT"
    assert answer.text.startswith("Absolutely — I can provide both")
    assert answer.reply_to == question.platform_id
    assert not any("Tecolote" in m.text for m in dna)  # the profile the user gave ChatGPT is not a turn

    texts = [m.text for m in painting]
    assert [m.sender for m in painting] == ["Me", "ChatGPT", "Me", "ChatGPT"]
    assert texts[0] == "[image]\nInterpret this painting"
    assert painting[0].attachments == ("BE5F438F-8A64-4D2D-A395-F81569CBD555.jpeg",)
    assert texts[2] == "Could there also be erotic connotations?"
    assert not any("ABANDONED BRANCH" in t for t in texts)  # an edit the owner left behind


def test_a_single_conversation_file_and_a_missing_current_node(tmp_path: Path, context: ImportContext) -> None:
    conversation = json.loads((DATA / "conversations.json").read_text(encoding="utf-8"))[1]
    del conversation["current_node"]  # without it, the newest child is followed, as the app shows
    path = tmp_path / "one.json"
    path.write_text(json.dumps(conversation), encoding="utf-8")
    [(document, messages)] = parse_all(path, context)
    assert document.name == "ChatGPT: Interpretación pintura surrealista"
    assert messages[-1].text.startswith("ABANDONED BRANCH") and messages[-1].is_owner


def test_the_exports_other_files_are_read_with_it(tmp_path: Path, context: ImportContext) -> None:
    shutil.copy(DATA / "conversations.json", tmp_path / "conversations.json")
    (tmp_path / "chat.html").write_text("<html><body>the same chats again</body></html>")
    (tmp_path / "user.json").write_text('{"id": "user-x", "email": "me@example.com"}')
    for name in ("chat.html", "user.json"):
        importer = pick_importer(tmp_path / name, default_importers())
        assert isinstance(importer, ChatGPTImporter)
        assert list(importer.parse(tmp_path / name, context)) == []


def test_a_cut_short_chatgpt_export_is_refused_by_name(tmp_path: Path, context: ImportContext) -> None:
    data = (DATA / "conversations.json").read_bytes()
    path = tmp_path / "conversations.json"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ImportFailed, match="conversations.json: is not valid JSON or is cut short"):
        parse_all(path, context)


def _claude_message(uuid: str, sender: str, blocks: list[dict], at: str, parent: str, **extra) -> dict:
    flat = "\n".join(b.get("text") or b.get("thinking") or "```\nThis block is not supported on your current "
                     "device yet.\n```" for b in blocks)
    return {"uuid": uuid, "text": flat, "content": blocks, "sender": sender, "created_at": at, "updated_at": at,
            "attachments": extra.get("attachments", []), "files": extra.get("files", []),
            "parent_message_uuid": parent}


ROOT = "00000000-0000-4000-8000-000000000000"


def _claude_export() -> list[dict]:
    text = lambda t: {"start_timestamp": None, "stop_timestamp": None, "type": "text", "text": t, "citations": []}  # noqa: E731
    return [{
        "uuid": "c-1", "name": "Knee and the marathon", "summary": "",
        "created_at": "2025-05-02T08:00:00.000000Z", "updated_at": "2025-05-02T08:10:00.000000Z",
        "account": {"uuid": "acct-1"}, "current_leaf_message_uuid": "m-4",
        "chat_messages": [
            _claude_message("m-1", "human", [text("My knee hurts after long runs. Should I skip the marathon?")],
                            "2025-05-02T08:00:00.000000Z", ROOT,
                            attachments=[{"file_name": "training-log.txt", "file_size": 120, "file_type": "txt",
                                          "extracted_content": "week 1: 30 km"}]),
            _claude_message("m-2", "assistant", [
                {"type": "thinking", "thinking": "They may have runner's knee."},
                {"type": "tool_use", "name": "web_search", "input": {"query": "runner's knee"}},
                {"type": "tool_result", "name": "web_search", "content": [{"type": "text", "text": "SEARCH RESULT"}]},
                text("Rest for a week and see a physiotherapist before deciding."),
            ], "2025-05-02T08:00:20.000000Z", "m-1"),
            _claude_message("m-3", "human", [text("A question I edited away")], "2025-05-02T08:05:00.000000Z", "m-2"),
            _claude_message("m-4", "human", [text("Booked the physio for Monday.")], "2025-05-02T08:06:00.000000Z", "m-2"),
        ],
    }]


def test_claude_export_keeps_words_not_thinking_or_tools(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(_claude_export()), encoding="utf-8")
    [(document, messages)] = parse_all(path, context)
    assert document.name == "Claude: Knee and the marathon" and document.kind == "claude"
    question, answer, update = messages
    assert question.is_owner and question.sender == "Me"
    assert question.text == ("[attached: training-log.txt] My knee hurts after long runs. "
                             "Should I skip the marathon?")
    assert not answer.is_owner and answer.sender == "Claude" and answer.reply_to == "m-1"
    assert answer.text == "Rest for a week and see a physiotherapist before deciding."
    assert update.text == "Booked the physio for Monday."  # m-3 is on a branch left behind
    assert answer.time == datetime(2025, 5, 2, 8, 0, 20, tzinfo=timezone.utc)


def test_claude_voice_notes_keep_their_transcript_and_empty_chats_are_counted(tmp_path: Path,
                                                                               context: ImportContext) -> None:
    """As echomine's content-fidelity fixtures (MIT) have them: a voice note is a `voice_note`
    block with a `transcript` (it was dropped, so the conversation vanished), and a conversation
    with no messages at all is counted, not reported as "already imported"."""
    import asyncio

    from tests.core.helpers import memory_at
    from tests.fakes.embedder import HashEmbedder

    voice = {"uuid": "conv-voice", "name": "Voice Note Test", "created_at": "2025-10-01T18:00:00Z",
             "chat_messages": [{"uuid": "m1", "text": "", "sender": "human", "created_at": "2025-10-01T18:00:01Z",
                                "content": [{"type": "voice_note", "transcript": "Can you help me with my Python code?"}]}]}
    empty = {"uuid": "conv-empty", "name": "Nothing", "created_at": "2025-10-02T18:00:00Z", "chat_messages": []}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([voice, empty]), encoding="utf-8")
    [(_, [message]), (_, [])] = parse_all(path, context)
    assert message.is_owner and message.text == "[voice note] Can you help me with my Python code?"

    async def ingest():
        async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
            return await memory.ingest([path], index=False)

    report = asyncio.run(ingest())
    assert (report.documents_added, report.documents_skipped) == (1, 0)
    assert report.skipped == {"conversations with no messages": 1}


def test_claude_and_chatgpt_are_told_apart(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(_claude_export()), encoding="utf-8")
    assert isinstance(pick_importer(path, default_importers()), ClaudeImporter)
    assert isinstance(pick_importer(DATA / "conversations.json", default_importers()), ChatGPTImporter)


def test_chatgpt_web_citation_markup_is_not_kept(tmp_path: Path, context: ImportContext) -> None:
    """Answers with web sources carry private-use markup (echomine's golden master 003, MIT):
    `\\ue203` ... `\\ue204` around cited spans and `\\ue200cite\\ue202turn0search1\\ue201` tokens."""
    answer = ("\ue203To enhance your Gmail management, use the Gmail API.\ue204 "
              "\ue200cite\ue202turn0search1\ue201\n- \ue203Enable the Gmail API.\ue204")
    mapping = {
        "root": {"id": "root", "message": None, "parent": None, "children": ["u"]},
        "u": {"id": "u", "parent": "root", "children": ["a"], "message": {
            "id": "u", "author": {"role": "user"}, "create_time": 1_700_000_000.0,
            "content": {"content_type": "text", "parts": ["How do I manage Gmail from Java?"]}}},
        "a": {"id": "a", "parent": "u", "children": [], "message": {
            "id": "a", "author": {"role": "assistant"}, "create_time": 1_700_000_010.0,
            "content": {"content_type": "text", "parts": [answer]}}},
    }
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([{"id": "c1", "title": "Gmail", "create_time": 1_700_000_000.0,
                                 "mapping": mapping, "current_node": "a"}]), encoding="utf-8")
    [(_, [_, reply])] = parse_all(path, context)
    assert reply.text == "To enhance your Gmail management, use the Gmail API. \n- Enable the Gmail API."
