"""Claude's data export (`conversations.json`): conversations with `chat_messages`, each sent by
`human` (the owner) or `assistant`. One document per conversation.

A message's words are its `text` content blocks (and a voice note's transcript); thinking, tool
calls and tool results are left out (the flat `text` field repeats the thinking as prose and stubs tools out, so it is only the
fallback). When the export records branches (`parent_message_uuid` and the conversation's
`current_leaf_message_uuid`), only the branch the owner last saw is kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from core.importers.ai_export import AIExportImporter, RawTurn, iso_time, json_start
from core.importers.base import ImportContext

ASSISTANT = "Claude"
_COMPANIONS = frozenset({"users.json", "projects.json", "memories.json"})
_OWNER_SENDERS = frozenset({"human", "user"})
_ASSISTANT_SENDERS = frozenset({"assistant"})


def looks_like_claude(head: bytes) -> bool:
    return json_start(head)[:1] in (b"[", b"{") and b'"chat_messages"' in head


def current_branch(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    messages = [m for m in conversation.get("chat_messages") or [] if isinstance(m, dict)]
    leaf = conversation.get("current_leaf_message_uuid")
    by_id = {m.get("uuid"): m for m in messages if m.get("uuid")}
    if not leaf or leaf not in by_id or not any("parent_message_uuid" in m for m in messages):
        return messages  # a linear export: every message is on the one branch
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id = leaf
    while node_id in by_id and node_id not in seen:
        seen.add(node_id)
        path.append(by_id[node_id])
        node_id = by_id[node_id].get("parent_message_uuid")
    path.reverse()
    return path


def _block_words(block: object) -> str:
    """A content block's words: a text block's text, a voice note's transcript."""
    if not isinstance(block, dict):
        return ""
    if block.get("type") == "text" and isinstance(block.get("text"), str):
        return block["text"].strip()
    if block.get("type") == "voice_note" and isinstance(block.get("transcript"), str) and block["transcript"].strip():
        return f"[voice note] {block['transcript'].strip()}"
    return ""


def _words(message: dict[str, Any]) -> str:
    blocks = message.get("content")
    if isinstance(blocks, list) and blocks:
        return "\n\n".join(words for words in map(_block_words, blocks) if words)
    text = message.get("text")
    return text.strip() if isinstance(text, str) else ""


def _files(message: dict[str, Any]) -> tuple[str, ...]:
    names = [item.get("file_name") for key in ("attachments", "files")
             for item in message.get(key) or [] if isinstance(item, dict)]
    return tuple(dict.fromkeys(str(n) for n in names if n))


def raw_turns(conversation: dict[str, Any], context: ImportContext) -> Iterator[RawTurn]:
    for message in current_branch(conversation):
        sender = str(message.get("sender") or "").lower()
        if sender not in _OWNER_SENDERS | _ASSISTANT_SENDERS:
            continue
        owner = sender in _OWNER_SENDERS
        files = _files(message)
        text = _words(message)
        if files and owner:
            text = " ".join(p for p in (f"[attached: {', '.join(files)}]", text) if p)
        yield RawTurn(text, iso_time(message.get("created_at"), context), owner=owner,
                      message_id=str(message["uuid"]) if message.get("uuid") else None, attachments=files)


class ClaudeImporter(AIExportImporter):
    name = "claude"
    assistant = ASSISTANT
    companions = _COMPANIONS
    looks_like = staticmethod(looks_like_claude)

    def chat_id(self, conversation: dict[str, Any]) -> str:
        return str(conversation.get("uuid") or "") if "chat_messages" in conversation else ""

    def created(self, conversation: dict[str, Any], context: ImportContext) -> datetime | None:
        return iso_time(conversation.get("created_at"), context)

    def title(self, conversation: dict[str, Any]) -> Any:
        return conversation.get("name")

    def raw_turns(self, conversation: dict[str, Any], context: ImportContext) -> Iterator[RawTurn]:
        return raw_turns(conversation, context)
