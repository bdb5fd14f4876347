"""ChatGPT's data export (`conversations.json`): every conversation is a tree of `mapping` nodes
(each edit or regenerated answer opens a branch); only the branch the owner last saw is kept, read
from `current_node` up through the parents. One document per conversation.

Kept: the owner's visible turns (text, and the text of messages with pictures) and the assistant's
answers. Left out: hidden system and context nodes (custom instructions, memory), tool calls and
their output (code, browsing, image generation), reasoning summaries.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from core.importers.ai_export import AIExportImporter, RawTurn, json_start, unix_time
from core.importers.base import ImportContext

ASSISTANT = "ChatGPT"
_COMPANIONS = frozenset({"user.json", "message_feedback.json", "model_comparisons.json",
                         "shared_conversations.json", "group_chats.json", "chat.html"})
_TEXT_TYPES = frozenset({"text", "multimodal_text"})
_MEDIA_LABELS = {"image_asset_pointer": "[image]", "audio_asset_pointer": "[audio]",
                 "video_container_asset_pointer": "[video]"}


# ChatGPT's answers with web sources carry its rendering markup in private-use characters: a
# citation token `\ue200cite\ue202turn0search1\ue201`, and \ue203 ... \ue204 around a cited span.
# The owner never saw them as characters; they would only pollute reading and keyword search.
_CITATION_TOKEN = re.compile("\ue200[^\ue201]{0,200}\ue201")
_RENDER_MARKS = re.compile("[\ue200-\ue2ff]")


def _without_markup(text: str) -> str:
    return _RENDER_MARKS.sub("", _CITATION_TOKEN.sub("", text))


def looks_like_chatgpt(head: bytes) -> bool:
    start = json_start(head)
    return (start[:1] in (b"[", b"{") and b'"mapping"' in head and b'"chat_messages"' not in head
            and (b'"current_node"' in head or b'"create_time"' in head))


def branch(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    """The nodes of the current branch, root first."""
    mapping = conversation.get("mapping")
    if not isinstance(mapping, dict) or not mapping:
        return []
    node_id = conversation.get("current_node")
    if node_id not in mapping:
        node_id = _last_leaf(mapping)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        path.append(node)
        node_id = node.get("parent")
    path.reverse()
    return path


def _last_leaf(mapping: dict[str, Any]) -> str | None:
    """Without `current_node`, follow the newest child from the root, as the app shows it."""
    roots = [key for key, node in mapping.items() if not node.get("parent")]
    node_id = roots[0] if roots else None
    seen: set[str] = set()
    while node_id in mapping and node_id not in seen:
        seen.add(node_id)
        children = [c for c in mapping[node_id].get("children") or [] if c in mapping]
        if not children:
            break
        node_id = children[-1]
    return node_id


def _visible_text(message: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """The words a person saw in the chat, and the names of files attached to the turn."""
    content = message.get("content") or {}
    if content.get("content_type") not in _TEXT_TYPES:
        return "", ()
    pieces: list[str] = []
    for part in content.get("parts") or []:
        if isinstance(part, str):
            pieces.append(_without_markup(part))
        elif isinstance(part, dict):
            kind = part.get("content_type")
            if kind == "audio_transcription" and isinstance(part.get("text"), str):
                pieces.append(part["text"])
            elif kind in _MEDIA_LABELS:
                pieces.append(_MEDIA_LABELS[kind])
    attachments = tuple(str(a.get("name")) for a in (message.get("metadata") or {}).get("attachments") or []
                        if isinstance(a, dict) and a.get("name"))
    return "\n".join(p for p in pieces if p.strip()).strip(), attachments


def _is_shown(message: dict[str, Any]) -> bool:
    metadata = message.get("metadata") or {}
    role = (message.get("author") or {}).get("role")
    return (role in ("user", "assistant")
            and not metadata.get("is_visually_hidden_from_conversation")
            and not metadata.get("is_user_system_message")
            and message.get("recipient") in (None, "all")  # a call to a tool, not an answer
            and message.get("channel") in (None, "final"))  # reasoning and commentary channels


def raw_turns(conversation: dict[str, Any], context: ImportContext) -> Iterator[RawTurn]:
    for node in branch(conversation):
        message = node.get("message")
        if not isinstance(message, dict) or not _is_shown(message):
            continue
        text, attachments = _visible_text(message)
        yield RawTurn(text, unix_time(message.get("create_time"), context),
                      owner=(message.get("author") or {}).get("role") == "user",
                      message_id=str(message.get("id") or node.get("id")), attachments=attachments)


class ChatGPTImporter(AIExportImporter):
    name = "chatgpt"
    assistant = ASSISTANT
    companions = _COMPANIONS
    looks_like = staticmethod(looks_like_chatgpt)

    def chat_id(self, conversation: dict[str, Any]) -> str:
        if "mapping" not in conversation:
            return ""
        return str(conversation.get("conversation_id") or conversation.get("id") or "")

    def created(self, conversation: dict[str, Any], context: ImportContext) -> datetime | None:
        return unix_time(conversation.get("create_time"), context)

    def title(self, conversation: dict[str, Any]) -> Any:
        return conversation.get("title")

    def raw_turns(self, conversation: dict[str, Any], context: ImportContext) -> Iterator[RawTurn]:
        return raw_turns(conversation, context)
