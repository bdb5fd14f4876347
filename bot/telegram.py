"""The Telegram front end (python-telegram-bot): maps updates onto the shared commands
(bot/commands.py) and renders their replies. No command logic of its own."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from functools import partial
from pathlib import Path
from typing import Any

from telegram import (BotCommand, InlineKeyboardButton, InlineKeyboardMarkup, LinkPreviewOptions, Message,
                      MessageOrigin, Update)
from telegram.constants import ChatAction, ChatType
from telegram.error import InvalidToken, NetworkError, TelegramError
from telegram.ext import (Application, ApplicationBuilder, ApplicationHandlerStop, CallbackQueryHandler,
                          CommandHandler, ContextTypes, Defaults, MessageHandler, TypeHandler, filters)

from bot.commands import COMMANDS, REFUSAL, Commands
from bot.outbound import Delivered
from bot.replies import File, Reply
from bot.telegram_business import BusinessCapture
from bot.render import TELEGRAM_LIMIT, ThrottledStatus, progress_text, split_message
from core.config import Settings
from core.errors import UserFacingError
from core.chat.forwards import BurstCollector, Forwarded
from core.files import write_private
from core.words import counted

log = logging.getLogger(__name__)

PLATFORM = "telegram"
CLOUD_DOWNLOAD_LIMIT = 20 * 1024 * 1024
PHOTO_CAPTION_LIMIT = 1024
Send = Callable[..., Awaitable[Message]]  # a Bot API send bound to its chat (Message.reply_*, Bot.send_* to one chat)
ALBUM_QUIET_SECONDS = 1.0  # the parts of an album arrive as separate updates within a moment
TOO_BIG = ("That file is {size:.0f} MB; Telegram's cloud Bot API only lets bots download files up to 20 MB.\n"
           "Either run a local Bot API server (github.com/tdlib/telegram-bot-api) and set "
           "BIOGRAPHER_TELEGRAM_API_URL to it with BIOGRAPHER_TELEGRAM_LOCAL_MODE=true, or import the file "
           "on the server: biographer ingest PATH")


def origin_of(message: Message) -> Forwarded:
    """A forwarded Telegram message as the core sees it: original sender, original date (Bot API 7.0+)."""
    origin: MessageOrigin = message.forward_origin
    text = message.text or message.caption or ""
    kind = "text" if message.text else "media"
    if not text:
        text = f"[{message.effective_attachment.__class__.__name__.lower()}]" if message.effective_attachment else ""
    sender, sender_id, chat = "Unknown", None, None
    if origin.type == MessageOrigin.USER:
        user = origin.sender_user
        sender, sender_id = user.full_name, str(user.id)
    elif origin.type == MessageOrigin.HIDDEN_USER:
        sender = origin.sender_user_name
    elif origin.type == MessageOrigin.CHAT:
        sender = origin.author_signature or origin.sender_chat.title or "a group"
        sender_id, chat = f"chat:{origin.sender_chat.id}", origin.sender_chat.title
    elif origin.type == MessageOrigin.CHANNEL:
        sender = origin.author_signature or origin.chat.title or "a channel"
        sender_id, chat = f"chat:{origin.chat.id}", origin.chat.title
    return Forwarded(sender=sender, time=origin.date, text=text, platform_id=str(message.message_id),
                     sender_id=sender_id, origin_chat=chat, kind=kind)


def webhook_secret(settings: Settings) -> str:
    """The secret Telegram must send with every webhook update: the owner's, else one generated once
    and kept in the data directory (0600), so a forged POST without it is refused."""
    if settings.telegram_webhook_secret is not None:
        return settings.telegram_webhook_secret.get_secret_value()
    path = settings.data_dir / "telegram-webhook-secret"
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    secret = secrets.token_urlsafe(32)  # Telegram allows A-Z, a-z, 0-9, _ and -, up to 256 characters
    write_private(path, secret)
    return secret


class TelegramChat:
    """A chat with the owner, as the shared commands see it; replies go under `message`."""

    platform = PLATFORM

    def __init__(self, frontend: TelegramFrontend, message: Message) -> None:
        self.frontend = frontend
        self.message = message
        self.chat_id = str(message.chat_id)

    async def send(self, reply: Reply) -> None:
        await self.frontend.render(self.message, reply)

    @asynccontextmanager
    async def working(self) -> AsyncIterator[None]:
        """Keep the "typing…" indicator on (Telegram clears it after 5 s)."""
        bot = self.frontend.app.bot

        async def show() -> None:
            with suppress(TelegramError):
                await bot.send_chat_action(self.message.chat_id, ChatAction.TYPING)

        async def keep() -> None:
            while True:
                await asyncio.sleep(4)
                await show()

        await show()
        task = asyncio.create_task(keep())
        try:
            yield
        finally:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task


class TelegramFrontend:
    """One bot for its owner(s); also where the scheduler's messages reach them on Telegram (deliver)."""

    name = "Telegram"
    platform = PLATFORM

    def __init__(self, settings: Settings, commands: Commands) -> None:
        self.settings = settings
        self.commands = commands
        self.owner_ids = frozenset(settings.telegram_owner_ids)
        self._refused: set[int] = set()
        self._tasks: set[asyncio.Task] = set()
        self._albums = BurstCollector(self._on_album, quiet=ALBUM_QUIET_SECONDS)
        self.business = BusinessCapture(self, commands.live) if commands.live is not None else None
        self.app = self._build()

    @staticmethod
    def configured(settings: Settings) -> bool:
        return settings.telegram_token is not None

    # ------------------------------------------------------------ wiring

    def _build(self) -> Application:
        settings = self.settings
        # no link previews: a model-written URL must not make Telegram fetch it (a way to leak data)
        defaults = Defaults(link_preview_options=LinkPreviewOptions(is_disabled=True))
        builder = ApplicationBuilder().token(settings.telegram_token.get_secret_value()).defaults(defaults)
        if settings.telegram_api_url:
            root = settings.telegram_api_url.rstrip("/")
            builder = builder.base_url(f"{root}/bot").base_file_url(f"{root}/file/bot")
        if settings.telegram_local_mode:
            builder = builder.local_mode(True)
        app = builder.concurrent_updates(True).build()
        if self.business is not None:  # the owner's own chats (Telegram Business): before the owner check
            app.add_handler(TypeHandler(Update, self.business.on_update), group=-2)
            app.add_handler(CommandHandler("live", self.business.live_command))
        app.add_handler(TypeHandler(Update, self._guard), group=-1)
        for command in COMMANDS:
            app.add_handler(CommandHandler(command.name, self._command_handler(command.name)))
        app.add_handler(CallbackQueryHandler(self.on_button))
        messages = filters.UpdateType.MESSAGE
        app.add_handler(MessageHandler(messages & filters.FORWARDED, self.on_forward))
        app.add_handler(MessageHandler(filters.UpdateType.EDITED_MESSAGE & filters.PHOTO, self.on_edited_photo))
        app.add_handler(MessageHandler(messages & filters.Document.ALL, self.on_document))
        app.add_handler(MessageHandler(messages & (filters.VOICE | filters.AUDIO | filters.VIDEO_NOTE),
                                       self.on_recording))
        app.add_handler(MessageHandler(messages & filters.PHOTO, self.on_photo))
        app.add_handler(MessageHandler(messages & filters.TEXT & ~filters.COMMAND, self.on_text))
        app.add_error_handler(self.on_error)
        return app

    @asynccontextmanager
    async def running(self) -> AsyncIterator[TelegramFrontend]:
        """Start polling (or the webhook) and the command menu; on exit finish imports and stop cleanly."""
        if not self.owner_ids:
            log.warning("Telegram: no owner configured, so the bot refuses everyone. Send /start to the bot, "
                        "read your user id in this log, and set BIOGRAPHER_TELEGRAM_OWNER_IDS to it.")
        try:
            await self.app.initialize()
        except InvalidToken:
            raise UserFacingError("Telegram refused the bot token",
                                  hint="copy the token again from @BotFather into BIOGRAPHER_TELEGRAM_TOKEN") from None
        except NetworkError as error:
            raise UserFacingError(f"cannot reach Telegram's Bot API ({type(error).__name__})",
                                  hint="check the network (or BIOGRAPHER_TELEGRAM_API_URL) and start again") from None
        try:
            await self.app.bot.set_my_commands([BotCommand(c.name, c.description) for c in COMMANDS])
            await self.app.start()
            if self.business is not None:
                await self.business.recorder.close_all()  # windows a stop left open
            await self._start_updates()
            try:
                yield self
            finally:
                await self.app.updater.stop()
                if self.business is not None:
                    await self.business.recorder.drain()
                await self._albums.drain()
                await self.commands.drain()
                if self._tasks:
                    await asyncio.gather(*self._tasks, return_exceptions=True)
                await self.app.stop()
        finally:
            await self.app.shutdown()

    async def _start_updates(self) -> None:
        settings = self.settings
        if settings.telegram_webhook_url:
            url = settings.telegram_webhook_url.rstrip("/")
            # Telegram sends the secret in a header with every update; PTB refuses updates without
            # it (403), so a forged POST to the webhook port gets nowhere
            await self.app.updater.start_webhook(listen=settings.telegram_webhook_listen,
                                                 port=settings.telegram_webhook_port,
                                                 url_path=url.rsplit("/", 1)[-1], webhook_url=url,
                                                 secret_token=webhook_secret(settings))
        else:
            await self.app.updater.start_polling(poll_interval=0.0, timeout=10, drop_pending_updates=False)

    def _background(self, coroutine: Any) -> None:
        """Work that outlives its handler (imports); awaited on shutdown."""
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------ access

    async def _guard(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Owner only: strangers get one short refusal and nothing of theirs is kept."""
        user, chat = update.effective_user, update.effective_chat
        if user is not None and str(user.id) in self.owner_ids:
            if chat is not None and chat.type != ChatType.PRIVATE and not self.settings.allow_group_chats:
                raise ApplicationHandlerStop
            return
        if user is not None and not self.owner_ids:
            log.warning("Telegram: refused user id %s; to make them the owner set "
                        "BIOGRAPHER_TELEGRAM_OWNER_IDS=%s", user.id, user.id)
        if update.callback_query is not None:
            await update.callback_query.answer()
        elif user is not None and user.id not in self._refused and chat is not None \
                and chat.type == ChatType.PRIVATE:
            self._refused.add(user.id)
            await context.bot.send_message(chat.id, REFUSAL)
        raise ApplicationHandlerStop

    # ------------------------------------------------------------ replies

    async def render(self, message: Message, reply: Reply) -> Message:
        """A shared reply under `message`: see _render."""
        return await self._render(reply, text=message.reply_text, photo=message.reply_photo,
                                  document=message.reply_document) or message

    async def deliver(self, reply: Reply) -> list[Delivered]:
        """A reply nobody asked for (the scheduler's) into each owner's private chat."""
        bot, delivered = self.app.bot, []
        for chat in map(int, self.owner_ids):
            sent = await self._render(reply, text=partial(bot.send_message, chat), photo=partial(bot.send_photo, chat),
                                      document=partial(bot.send_document, chat))
            delivered += [Delivered(str(sent.chat_id), str(sent.message_id))] if sent is not None else []
        return delivered

    async def _render(self, reply: Reply, *, text: Send, photo: Send, document: Send) -> Message | None:
        """A shared reply as Telegram messages (the last one sent is returned): pictures first, under
        their alt, or their reply's text when `captioned`; the text in pieces, buttons under the last; documents."""
        markup = InlineKeyboardMarkup([[InlineKeyboardButton(b.label, callback_data=b.action)
                                        for b in reply.buttons[row:row + 2]]
                                       for row in range(0, len(reply.buttons), 2)]) if reply.buttons else None  # pairs
        body, sent = reply.text, None
        for file in [f for f in reply.files if f.picture]:
            if reply.captioned:
                caption, *rest = split_message(body, PHOTO_CAPTION_LIMIT) or [""]
                body = "\n\n".join(rest)
            else:
                caption = split_message(file.alt, PHOTO_CAPTION_LIMIT)[0] if file.alt else ""
            sent = await self._send_file(file, lambda content: photo(content, caption=caption or None,
                                                                     filename=file.name))
        pieces = split_message(body, TELEGRAM_LIMIT) or ([] if reply.files else ["(nothing to show)"])
        for i, piece in enumerate(pieces):
            sent = await text(piece, reply_markup=markup if i == len(pieces) - 1 else None)
        for file in reply.files:
            if not file.picture:
                await self._send_file(file, lambda content: document(content, filename=file.name))
        return sent

    @staticmethod
    async def _send_file(file: File, send: Callable[[Any], Awaitable[Message]]) -> Message:
        try:
            return await send(file.data if file.data is not None else file.path)
        finally:
            if file.temporary and file.path is not None:
                file.path.unlink(missing_ok=True)

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The shared commands answer errors themselves; what reaches here is a bug or a network
        fault: it goes to the log, and the owner hears that something failed."""
        log.error("Telegram handler failed", exc_info=context.error)
        message = update.effective_message if isinstance(update, Update) else None
        if message is not None:
            with suppress(TelegramError):
                await message.reply_text("Something went wrong on my side; the details are in the server log.")

    # ------------------------------------------------------------ messages

    def _command_handler(self, name: str):
        async def handle(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
            message = update.effective_message
            chat = TelegramChat(self, message)
            await chat.send(await self.commands.run(name, chat, " ".join(context.args or ())))

        handle.__doc__ = f"/{name}"
        return handle

    async def on_button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A button under an earlier reply: the shared command's answer replaces the question."""
        query = update.callback_query
        await query.answer()
        chat = TelegramChat(self, query.message)
        reply = await self.commands.press(chat, query.data or "")
        await query.edit_message_text(split_message(reply.text, TELEGRAM_LIMIT)[0])

    async def on_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Plain text: an answer to a question prompt when it replies to one, else a question."""
        message = update.effective_message
        reply_to = str(message.reply_to_message.message_id) if message.reply_to_message else None
        chat = TelegramChat(self, message)
        await chat.send(await self.commands.text(chat, message.text, reply_to=reply_to))

    async def on_forward(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A forwarded message joins its burst; the burst is saved once the forwards stop coming."""
        message = update.effective_message
        self.commands.forwarded(TelegramChat(self, message), origin_of(message), owner_ids=self.owner_ids)

    async def on_document(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A file: imported in the background with one status message; an album's files as one import."""
        message = update.effective_message
        document = message.document
        if document.file_size and document.file_size > CLOUD_DOWNLOAD_LIMIT and not self.settings.telegram_local_mode:
            await message.reply_text(TOO_BIG.format(size=document.file_size / 1024 / 1024))
            return
        if message.media_group_id:
            self._albums.add(f"documents:{message.media_group_id}", message)
            return
        self._background(self._import([message]))

    async def on_photo(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A photo (or an album of them, saved as one entry) with its caption."""
        message = update.effective_message
        if message.media_group_id:
            self._albums.add(f"photos:{message.media_group_id}", message)
            return
        await self._save_photos([message])

    async def on_edited_photo(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A photo whose caption was edited: the stored entry is replaced by the new one."""
        await self._save_photos([update.effective_message], edited=True)

    async def _on_album(self, key: str, messages: list[Message]) -> None:
        if key.startswith("documents:"):
            await self._import(messages)
        else:
            await self._save_photos(messages)

    async def _save_photos(self, messages: list[Message], *, edited: bool = False) -> None:
        first = messages[0]
        chat = TelegramChat(self, first)
        caption = "\n".join(m.caption for m in messages if m.caption)
        with self.commands.service.memory.uploads.scratch("tg-") as folder:
            paths = []
            for i, message in enumerate(messages):
                path = Path(folder) / f"photo-{i}.jpg"
                await (await message.photo[-1].get_file()).download_to_drive(path)
                paths.append(path)
            reply = await self.commands.photos(chat, paths, caption=caption, when=first.date,
                                               key=f"{PLATFORM}:{first.chat_id}:{first.message_id}",
                                               edited=edited)
        await chat.send(reply)

    async def _import(self, messages: list[Message]) -> None:
        first = messages[0]
        names = [m.document.file_name or f"file-{m.document.file_unique_id}" for m in messages]
        label = names[0] if len(names) == 1 else counted(len(names), "file")
        status = await first.reply_text(f"Importing {label}…")
        progress = ThrottledStatus(lambda text: self._edit(status, text),
                                   lambda stage, done, total: progress_text(label, stage, done, total),
                                   interval=self.settings.progress_edit_seconds)
        with self.commands.service.memory.uploads.scratch("tg-") as folder:
            paths = []
            for message, name in zip(messages, names):
                path = Path(folder) / f"{len(paths)}" / Path(name).name
                path.parent.mkdir()
                await (await self.app.bot.get_file(message.document.file_id)).download_to_drive(path)
                paths.append(path)
            reply = await self.commands.import_files(label, paths, progress=progress)
        await progress.close()
        await self._edit(status, reply.text)

    async def _edit(self, status: Message, text: str) -> None:
        with suppress(TelegramError):  # "message is not modified" and the like
            await status.edit_text(split_message(text, TELEGRAM_LIMIT)[0])

    async def on_recording(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A voice note, audio file or round video: transcribed, kept as a journal entry, echoed back."""
        message = update.effective_message
        media = message.voice or message.audio or message.video_note
        chat = TelegramChat(self, message)
        with self.commands.service.memory.uploads.scratch("tg-") as folder:
            path = Path(folder) / f"recording{'.mp4' if message.video_note else '.ogg'}"
            await (await media.get_file()).download_to_drive(path)
            reply = await self.commands.recording(chat, path, when=message.date)
        await chat.send(reply)
