"""What extraction reads: each conversation with unread messages (an e-mail thread counts as one),
whole and in time order, cut into windows that fit the model's budget, each with a few earlier
lines for context."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.times import as_sent
from core.importers.email import normalise_subject
from storage import ledger as store
from storage.ledger import MessageLine

if TYPE_CHECKING:
    from storage.db import Store

#: sources that are not the owner's conversations with people: the biographer's own chat and
#: reports (what the owner tells it is saved by the chat tools at once), calendars, AI chats
NOT_CONVERSATIONS = ("biographer_chat", "biographer_report", "calendar", "chatgpt", "claude")
CONTEXT_LINES = 3
FETCH = 200


@dataclass
class Conversation:
    name: str
    platform: str
    is_group: bool
    document_ids: tuple[int, ...]
    message_ids: list[int]  # unread, in time order
    thread: bool = False  # one thread of a mailbox: earlier lines of the mailbox are other threads


@dataclass
class Window:
    conversation: Conversation
    number: int
    lines: list[MessageLine]  # new lines to read
    context: list[MessageLine] = field(default_factory=list)  # earlier lines, already read

    @property
    def shown(self) -> list[MessageLine]:
        return self.context + self.lines


def _thread_of(head: str) -> str:
    first = head.split("\n", 1)[0]
    subject = first[len("Subject:"):].strip() if first.startswith("Subject:") else ""
    return normalise_subject(subject).casefold() or "(no subject)"


async def pending(conn: Store, *, disclosed_only: bool = False) -> list[Conversation]:
    """Every conversation with messages extraction has not read, oldest material first (with
    `disclosed_only`, of sources whose text may leave the machine: core/privacy/disclosure.py); documents
    left with nothing to read are marked done on the way."""
    groups: dict[tuple[str, str], list[store.PendingDocument]] = {}
    for document in await store.pending_documents(conn, exclude_kinds=NOT_CONVERSATIONS, disclosed_only=disclosed_only):
        groups.setdefault((document.platform, document.conversation_key), []).append(document)
    out: list[Conversation] = []
    for (platform, _key), documents in groups.items():
        ids = tuple(d.id for d in documents)
        # a mailbox holds many threads: each is read as a conversation of its own
        heads = await store.unread_messages(conn, ids, heads=platform == "email")
        name, is_group = documents[-1].name, any(d.is_group for d in documents)
        if platform != "email":
            out.append(Conversation(name, platform, is_group, ids, [h.id for h in heads]))
            continue
        threads: dict[str, list[int]] = {}
        for message in heads:
            threads.setdefault(_thread_of(message.head), []).append(message.id)
        out.extend(Conversation(f"{name} · {thread}", platform, False, ids, message_ids, thread=True)
                   for thread, message_ids in threads.items())
        if not heads:
            out.append(Conversation(name, platform, is_group, ids, []))
    return out


def line_text(line: MessageLine, *, owner_mark: bool = True, limit: int | None = None) -> str:
    """`doc3:58-120 | Wed 2024-03-06 21:08 | Lena (owner): text`, in the sender's own time."""
    moment = as_sent(line.time, line.utc_offset_minutes)
    text = line.text if limit is None or len(line.text) <= limit else line.text[:limit] + " …(cut)"
    who = f"{line.sender} (owner)" if line.is_owner and owner_mark else line.sender
    return (f"doc{line.document_id}:{line.char_start}-{line.char_end} | {moment:%a %Y-%m-%d %H:%M} | "
            f"{who}: {text}")


async def windows(conn: Store, conversation: Conversation, *, budget: int) -> AsyncIterator[Window]:
    """The unread lines in windows of about `budget` characters (a window holds at least one line;
    a line longer than the budget is cut for display)."""
    context: list[MessageLine] = []
    ids = conversation.message_ids
    if ids and not conversation.thread:
        first = (await store.messages_by_id(conn, ids[:1]))[0]
        context = await store.messages_by_id(conn, await store.previous_messages(
            conn, conversation.document_ids, before=(first.time, first.id), limit=CONTEXT_LINES))
    current: list[MessageLine] = []
    used, number = 0, 0
    for start in range(0, len(ids), FETCH):
        for line in await store.messages_by_id(conn, ids[start:start + FETCH]):
            size = min(len(line_text(line)), budget)
            if current and used + size > budget:
                number += 1
                yield Window(conversation, number, current, context)
                context = current[-CONTEXT_LINES:]
                current, used = [], 0
            current.append(line)
            used += size
    if current:
        yield Window(conversation, number + 1, current, context)
