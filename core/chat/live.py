"""The owner's Telegram chats recorded as they happen, through a business connection.

Telegram lets an account connect a bot to its private chats (Telegram Business → Chatbots); the bot
then receives the messages of those chats from both sides. Only a connection made by one of the
owner's accounts is followed; the bot never writes in those chats. Each message is kept at once
(in the store, not yet searchable) in its chat's open window; a window is saved as a source, its
conversation windows chunked like any import, when 30 minutes pass without a message or at
shutdown. Every message keeps its sender, its time and Telegram's id, under the same conversation
and ids an export of that chat has, so importing the export later adds nothing twice.

An edit replaces the text (the earlier one kept beside it); a deletion erases the message as forget
erases (unless the owner keeps deleted messages): a window already saved is saved again without it.
A paused chat's messages are not stored at all.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from core.errors import UserFacingError
from core.memory.facade import Memory
from core.times import Clock, utc_iso, utc_now
from core.types import Conversation, Message, SourceDocument
from storage import documents as document_store
from storage import live as live_store
from storage.db import Store

log = logging.getLogger(__name__)

WINDOW_QUIET_SECONDS = 30 * 60
LiveChat = live_store.LiveChat


@dataclass(frozen=True)
class LiveMessageIn:
    """A message of a connected chat, as the front end read it from the platform."""

    connection_id: str
    chat_id: str
    chat_name: str  # the other person, as the owner sees them
    message_id: str
    sender: str
    sender_id: str
    time: datetime
    text: str
    kind: str = "text"  # "media" when only a photo, voice note... was sent
    reply_to: str | None = None
    forwarded_from: str | None = None


@dataclass(frozen=True)
class ConnectionChange:
    """What a business connection update did: "ignored" (not the owner's), "started" or "stopped"."""

    outcome: str
    rights: tuple[str, ...] = ()  # the rights Telegram says the bot was given (it uses none of them)


class LiveRecorder:
    def __init__(self, memory: Memory, *, owner_ids: frozenset[str], keep_deleted: bool = False,
                 quiet_seconds: float = WINDOW_QUIET_SECONDS, clock: Clock = utc_now) -> None:
        self.memory = memory
        self.conn: Store = memory.conn
        self.owner_ids = owner_ids
        self.keep_deleted = keep_deleted
        self.quiet_seconds = quiet_seconds
        self.clock = clock
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._saving: set[asyncio.Task] = set()
        self._lock = asyncio.Lock()  # one window saved at a time: edits and closes never interleave

    # ------------------------------------------------------------ the connection

    async def connection(self, *, connection_id: str, user_id: str, enabled: bool,
                         rights: dict[str, bool]) -> ConnectionChange:
        if user_id not in self.owner_ids:
            log.warning("Telegram business connection %s from user %s, who is not an owner: ignored",
                        connection_id, user_id)
            return ConnectionChange("ignored")
        async with self.conn.transaction():
            await live_store.save_connection(self.conn, live_store.LiveConnection(
                connection_id, user_id, enabled, rights), at=utc_iso(self.clock()))
        if not enabled:
            await self.close_all()
            return ConnectionChange("stopped")
        return ConnectionChange("started", tuple(sorted(k for k, v in rights.items() if v)))

    async def _recording(self, connection_id: str) -> live_store.LiveConnection | None:
        connection = await live_store.get_connection(self.conn, connection_id)
        if connection is None or not connection.enabled or connection.user_id not in self.owner_ids:
            return None
        return connection

    # ------------------------------------------------------------ messages

    async def records(self, *, connection_id: str, chat_id: str) -> bool:
        """Whether a message of this chat would be kept (so its voice note is worth fetching)."""
        return (await self._recording(connection_id) is not None
                and await live_store.chat_state(self.conn, chat_id) != "paused")

    async def transcript(self, path: Path) -> str | None:
        """A voice note's words, as imports transcribe them (None without a transcriber, or when it
        fails: the note is still kept, as a voice message)."""
        context = self.memory.context
        if context.transcriber is None:
            return None
        try:
            text = await asyncio.to_thread(context.transcriber.transcribe, path, hints=tuple(context.spelling_hints))
        except UserFacingError as error:
            log.warning("a live voice note was not transcribed: %s", error)
            return None
        return text.strip() or None

    async def message(self, incoming: LiveMessageIn) -> bool:
        """Keep a new message in its chat's open window; False when it is not recorded (no owner's
        connection, a paused chat, or seen already)."""
        connection = await self._recording(incoming.connection_id)
        if connection is None:
            log.warning("a business message on connection %s, which is not an owner's enabled one: not kept",
                        incoming.connection_id)
            return False
        state = await live_store.chat_state(self.conn, incoming.chat_id)
        if state == "paused":
            return False
        async with self.conn.transaction():
            if state is None:
                await live_store.add_chat(self.conn, chat_id=incoming.chat_id, connection_id=incoming.connection_id,
                                          name=incoming.chat_name, at=utc_iso(self.clock()))
            added = await live_store.add_message(self.conn, live_store.LiveMessage(
                chat_id=incoming.chat_id, message_id=incoming.message_id, sender=incoming.sender,
                sender_id=incoming.sender_id, is_owner=incoming.sender_id == connection.user_id,
                time=utc_iso(incoming.time), text=incoming.text, kind=incoming.kind,
                reply_to=incoming.reply_to, forwarded_from=incoming.forwarded_from))
        if added:
            self._restart_timer(incoming.chat_id)
        return added

    async def edited(self, incoming: LiveMessageIn) -> bool:
        """The new text replaces the stored one, which is kept beside it."""
        if await self._recording(incoming.connection_id) is None:
            return False
        # looked up under the lock: a window being saved now gets its document id when the save ends,
        # and an edit read before that would change the open copy and leave the saved text as it was
        async with self._lock:
            stored = await live_store.message_document(self.conn, incoming.chat_id, incoming.message_id)
            if stored is not None:
                async with self.conn.transaction():
                    await live_store.edit_message(self.conn, incoming.chat_id, incoming.message_id, incoming.text,
                                                  at=utc_iso(self.clock()))
                if stored.document_id is not None:
                    await self._replace(incoming.chat_id, stored.document_id)
        if stored is None:
            return await self.message(incoming)  # sent before the connection, or while paused: kept as it is now
        return True

    async def deleted(self, *, connection_id: str, chat_id: str, message_ids: Sequence[str]) -> int:
        """Erase deleted messages (unless the owner keeps them); returns how many were erased."""
        if self.keep_deleted or await self._recording(connection_id) is None:
            return 0
        erased, documents = 0, set()
        async with self._lock:
            for message_id in message_ids:
                stored = await live_store.message_document(self.conn, chat_id, message_id)
                if stored is None:
                    continue
                async with self.conn.transaction():
                    await live_store.delete_message(self.conn, chat_id, message_id)
                erased += 1
                if stored.document_id is not None:
                    documents.add(stored.document_id)
            for document in documents:
                await self._replace(chat_id, document)
        return erased

    async def _replace(self, chat_id: str, document_id: int) -> None:
        """Save a window again: its messages back in the open window, the old source forgotten
        (erased as forget erases), the window saved anew. Called holding the lock."""
        async with self.conn.transaction():
            await live_store.reopen(self.conn, document_id)
        await self.memory.forget(document_id)
        await self._save_window(chat_id)

    # ------------------------------------------------------------ windows

    def _restart_timer(self, chat_id: str) -> None:
        if timer := self._timers.pop(chat_id, None):
            timer.cancel()
        loop = asyncio.get_running_loop()
        self._timers[chat_id] = loop.call_later(self.quiet_seconds, self._close_later, chat_id)

    def _close_later(self, chat_id: str) -> None:
        self._timers.pop(chat_id, None)
        task = asyncio.create_task(self.close_window(chat_id))
        self._saving.add(task)
        task.add_done_callback(self._saved)

    def _saved(self, task: asyncio.Task) -> None:
        self._saving.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("saving a live window failed; it is saved at the next start", exc_info=task.exception())

    async def close_window(self, chat_id: str) -> int:
        async with self._lock:
            return await self._save_window(chat_id)

    async def close_all(self) -> int:
        """Save every open window (at shutdown, and at start for what a stop left open)."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        if self._saving:
            await asyncio.gather(*self._saving, return_exceptions=True)
        saved = 0
        for chat_id in await live_store.open_windows(self.conn):
            saved += await self.close_window(chat_id)
        return saved

    async def _save_window(self, chat_id: str) -> int:
        window = await live_store.open_window(self.conn, chat_id)
        if not window:
            return 0
        name = await live_store.chat_name(self.conn, chat_id) or chat_id
        document = SourceDocument(
            kind="telegram", name=f"Telegram with {name} (live)",
            identity=f"telegram-live:{chat_id}:{window[0].message_id}-{window[-1].message_id}:{len(window)}"
                     f":{utc_iso(self.clock())}",
            # the conversation and ids of an export of this chat (core/importers/telegram.py)
            conversation=Conversation(platform="telegram", key=f"telegram:{chat_id}", name=f"Telegram with {name}",
                                      participants=tuple(dict.fromkeys(m.sender for m in window))),
            messages=iter([Message(sender=m.sender, text=m.text, time=datetime.fromisoformat(m.time),
                                   sender_id=m.sender_id, is_owner=m.is_owner, platform_id=m.message_id,
                                   reply_to=m.reply_to, forwarded_from=m.forwarded_from, kind=m.kind)
                           for m in window]))
        report = await self.memory.save([document])
        found = await document_store.find_by_identity(self.conn, document.identity)
        async with self.conn.transaction():
            if found is None:  # every message is stored already (an export of the chat came first)
                for message in window:
                    await live_store.delete_message(self.conn, chat_id, message.message_id)
            else:
                await live_store.close_window(self.conn, chat_id, found, [m.message_id for m in window])
        return report.messages_added

    async def drain(self) -> None:
        await self.close_all()

    # ------------------------------------------------------------ the owner's controls (/live)

    async def chats(self) -> list[LiveChat]:
        return await live_store.list_chats(self.conn)

    async def _chat(self, number: int) -> LiveChat:
        chats = await self.chats()
        if not 1 <= number <= len(chats):
            raise UserFacingError(f"there is no live chat {number}", hint="/live lists them with their numbers")
        return chats[number - 1]

    async def pause(self, number: int) -> LiveChat:
        """Stop storing a chat's messages (what is stored stays); the open window is saved now."""
        chat = await self._chat(number)
        await self.close_window(chat.chat_id)
        async with self.conn.transaction():
            await live_store.set_chat_state(self.conn, chat.chat_id, "paused", at=utc_iso(self.clock()))
        return chat

    async def resume(self, number: int) -> LiveChat:
        chat = await self._chat(number)
        async with self.conn.transaction():
            await live_store.set_chat_state(self.conn, chat.chat_id, "recording", at=utc_iso(self.clock()))
        return chat

    async def stop(self, number: int) -> tuple[LiveChat, int]:
        """Stop recording a chat and forget everything recorded of it; returns the sources forgotten."""
        chat = await self._chat(number)
        async with self._lock:
            if timer := self._timers.pop(chat.chat_id, None):
                timer.cancel()
            documents = await live_store.chat_documents(self.conn, chat.chat_id)
            for document in documents:
                await self.memory.forget(document)
            async with self.conn.transaction():
                await live_store.forget_chat_messages(self.conn, chat.chat_id)
                await live_store.set_chat_state(self.conn, chat.chat_id, "paused", at=utc_iso(self.clock()))
        return chat, len(documents)
