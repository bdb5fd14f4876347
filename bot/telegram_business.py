"""Telegram's business updates (a connected account's private chats) to the live recorder
(core/chat/live.py), and the owner's /live command. Business updates stop here, before the owner
check and the commands: a message in the owner's chats is never a command, never answered, and no
reply is ever sent into those chats (nothing here passes a business_connection_id)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from telegram import Message, MessageOriginUser, Update
from telegram.error import TelegramError
from telegram.ext import ApplicationHandlerStop, ContextTypes

from core.chat.live import LiveMessageIn, LiveRecorder
from core.errors import UserFacingError
from core.words import counted

if TYPE_CHECKING:
    from bot.telegram import TelegramFrontend

log = logging.getLogger(__name__)

STARTED = ("I'm recording your Telegram chats now, through Telegram Business. I see the private chats you "
           "chose for me under Settings → Telegram Business → Chatbots (Telegram does not tell me which they "
           "are: change them there), and keep every message with its sender and time. I never write in those "
           "chats.{rights}\n/live lists the chats recorded so far; /live pause N, /live resume N, "
           "/live stop N (stops and forgets one).")
STOPPED = "Telegram Business is disconnected: I stopped recording your chats. What was recorded stays (/live)."
USAGE = "/live lists the recorded chats; /live pause N · /live resume N · /live stop N (stop and forget)"
MEDIA = (("voice", "[voice message]"), ("audio", "[audio]"), ("video_note", "[video message]"), ("photo", "[photo]"),
         ("video", "[video]"), ("document", "[file]"), ("sticker", "[sticker]"), ("location", "[location]"),
         ("contact", "[contact]"))


def _person(user) -> str:
    return " ".join(p for p in (user.first_name, user.last_name) if p) or user.username or str(user.id)


def live_message(message: Message, *, transcript: str | None = None) -> LiveMessageIn | None:
    """A business message as the recorder takes it; None when it holds nothing to keep."""
    label = next((text for attribute, text in MEDIA if getattr(message, attribute, None)), None)
    if label and transcript:
        label = f"{label} (transcript) {transcript}"  # as the Telegram importer writes a voice message
    words = message.text or message.caption or ""
    body = " ".join(p for p in (label, words) if p)
    if not body or message.from_user is None:
        return None
    origin = message.forward_origin
    forwarded = None
    if origin is not None:
        forwarded = _person(origin.sender_user) if isinstance(origin, MessageOriginUser) else \
            getattr(origin, "sender_user_name", None) or getattr(getattr(origin, "chat", None), "title", None) or "someone"
    chat = message.chat
    return LiveMessageIn(
        connection_id=message.business_connection_id or "", chat_id=str(chat.id),
        chat_name=" ".join(p for p in (chat.first_name, chat.last_name) if p) or chat.username or str(chat.id),
        message_id=str(message.message_id), sender=_person(message.from_user), sender_id=str(message.from_user.id),
        time=message.date, text=body, kind="media" if label and not words else "text",
        reply_to=str(message.reply_to_message.message_id) if message.reply_to_message else None,
        forwarded_from=forwarded)


class BusinessCapture:
    def __init__(self, frontend: TelegramFrontend, recorder: LiveRecorder) -> None:
        self.frontend = frontend
        self.recorder = recorder

    async def on_update(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Every business update ends here (ApplicationHandlerStop); other updates go on to the commands."""
        if update.business_connection is not None:
            await self._connection(update, context)
        elif update.business_message is not None:
            message = update.business_message
            if (incoming := live_message(message, transcript=await self._transcript(message))) is not None:
                await self.recorder.message(incoming)
        elif update.edited_business_message is not None:
            message = update.edited_business_message
            if (incoming := live_message(message, transcript=await self._transcript(message))) is not None:
                await self.recorder.edited(incoming)
        elif update.deleted_business_messages is not None:
            deleted = update.deleted_business_messages
            await self.recorder.deleted(connection_id=deleted.business_connection_id, chat_id=str(deleted.chat.id),
                                        message_ids=[str(i) for i in deleted.message_ids])
        else:
            return
        raise ApplicationHandlerStop

    async def _transcript(self, message: Message) -> str | None:
        """A voice note or round video of a recorded chat, fetched and transcribed."""
        media = message.voice or message.video_note or message.audio
        if media is None or not await self.recorder.records(connection_id=message.business_connection_id or "",
                                                            chat_id=str(message.chat.id)):
            return None
        with self.recorder.memory.uploads.scratch("live-") as folder:
            path = Path(folder) / f"recording{'.mp4' if message.video_note else '.ogg'}"
            try:
                await (await media.get_file()).download_to_drive(path)
            except TelegramError as error:  # too big for the cloud Bot API, say: kept as a voice message
                log.warning("a live voice note could not be fetched: %s", error)
                return None
            return await self.recorder.transcript(path)

    async def _connection(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        connection = update.business_connection
        rights = connection.rights.to_dict() if connection.rights is not None else {}
        change = await self.recorder.connection(connection_id=connection.id, user_id=str(connection.user.id),
                                                enabled=connection.is_enabled, rights=rights)
        if change.outcome == "ignored":
            return
        if change.outcome == "stopped":
            text = STOPPED
        else:
            given = ", ".join(r.removeprefix("can_").replace("_", " ") for r in change.rights)
            text = STARTED.format(rights=f" Telegram gave me these rights, which I never use: {given}." if given
                                  else "")
        # to the owner's own chat with the bot, never into a connected chat
        await context.bot.send_message(connection.user_chat_id, text)

    async def live_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """/live: the recorded chats; /live pause|resume|stop N."""
        message = update.effective_message
        args = list(context.args or ())
        try:
            text = await self._live(args)
        except UserFacingError as error:
            text = f"{error.message} ({error.hint})" if error.hint else error.message
        await message.reply_text(text)

    async def _live(self, args: list[str]) -> str:
        if not args:
            chats = await self.recorder.chats()
            if not chats:
                return ("No chat recorded yet. Connect me in Telegram: Settings → Telegram Business → Chatbots "
                        "(needs Telegram Premium).")
            return "\n".join(f"#{n} {c.name} · {counted(c.messages, 'message')} · {c.state}"
                             for n, c in enumerate(chats, 1))
        if len(args) != 2 or args[0] not in {"pause", "resume", "stop"} or not args[1].lstrip("#").isdigit():
            return USAGE
        number = int(args[1].lstrip("#"))
        if args[0] == "pause":
            return f"Paused {(await self.recorder.pause(number)).name}: its messages are not stored until /live resume {number}."
        if args[0] == "resume":
            return f"Recording {(await self.recorder.resume(number)).name} again."
        chat, sources = await self.recorder.stop(number)
        return f"Stopped recording {chat.name} and forgot what was recorded of it ({counted(sources, 'source')})."
