"""The Telegram front end (python-telegram-bot): translates updates into service calls and renders replies."""

from __future__ import annotations

import asyncio
import logging
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import Any

from telegram import BotCommand, InlineKeyboardButton, InlineKeyboardMarkup, Message, MessageOrigin, Update
from telegram.constants import ChatAction, ChatType
from telegram.error import TelegramError
from telegram.ext import (Application, ApplicationBuilder, ApplicationHandlerStop, CallbackQueryHandler,
                          CommandHandler, ContextTypes, MessageHandler, TypeHandler, filters)

from bot.common import COMMANDS, HELP, QUEUED, REFUSAL, FrontendDeps
from bot.render import (TELEGRAM_LIMIT, ThrottledStatus, forgotten_text, ingest_summary, progress_text,
                        render_answer, render_stats, sources_text, split_message)
from core.capture import save_photo, save_recording
from core.errors import UserFacingError
from core.forwards import BurstCollector, Forwarded, burst_summary, forwards_document
from core.sources import export_sources, forget_source, list_sources

log = logging.getLogger(__name__)

PLATFORM = "telegram"
CLOUD_DOWNLOAD_LIMIT = 20 * 1024 * 1024
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


class TelegramFrontend:
    """One bot for its owner(s); also the scheduler's Notifier for Telegram."""

    def __init__(self, deps: FrontendDeps) -> None:
        self.deps = deps
        self.settings = deps.settings
        self.owner_ids = frozenset(self.settings.telegram_owner_ids)
        self._refused: set[int] = set()
        self._tasks: set[asyncio.Task] = set()
        self._collector = BurstCollector(self._save_burst, quiet=self.settings.telegram_forward_burst_seconds)
        self._bursts: dict[str, Message] = {}  # the first forward of each pending burst, to reply to
        self.app = self._build()

    # ------------------------------------------------------------ wiring

    def _build(self) -> Application:
        settings = self.settings
        builder = ApplicationBuilder().token(settings.telegram_token.get_secret_value())
        if settings.telegram_api_url:
            root = settings.telegram_api_url.rstrip("/")
            builder = builder.base_url(f"{root}/bot").base_file_url(f"{root}/file/bot")
        if settings.telegram_local_mode:
            builder = builder.local_mode(True)
        app = builder.concurrent_updates(True).build()
        app.add_handler(TypeHandler(Update, self._guard), group=-1)
        commands = {name: getattr(self, f"cmd_{name}") for name, _ in COMMANDS}
        for name, handler in commands.items():
            app.add_handler(CommandHandler(name, handler))
        app.add_handler(CallbackQueryHandler(self.on_forget_choice, pattern=r"^forget:"))
        app.add_handler(MessageHandler(filters.FORWARDED, self.on_forward))
        app.add_handler(MessageHandler(filters.Document.ALL, self.on_document))
        app.add_handler(MessageHandler(filters.VOICE | filters.AUDIO | filters.VIDEO_NOTE, self.on_recording))
        app.add_handler(MessageHandler(filters.PHOTO, self.on_photo))
        app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, self.on_text))
        app.add_error_handler(self.on_error)
        return app

    @asynccontextmanager
    async def running(self) -> AsyncIterator[TelegramFrontend]:
        """Start polling (or the webhook) and the command menu; on exit finish imports and stop cleanly."""
        if not self.owner_ids:
            log.warning("Telegram: no owner configured, so the bot refuses everyone. Send /start to the bot, "
                        "read your user id in this log, and set BIOGRAPHER_TELEGRAM_OWNER_IDS to it.")
        async with self.app:
            await self.app.bot.set_my_commands([BotCommand(name, what) for name, what in COMMANDS])
            await self.app.start()
            await self._start_updates()
            try:
                yield self
            finally:
                await self.app.updater.stop()
                await self._collector.drain()
                if self._tasks:
                    await asyncio.gather(*self._tasks, return_exceptions=True)
                await self.app.stop()

    async def _start_updates(self) -> None:
        settings = self.settings
        if settings.telegram_webhook_url:
            url = settings.telegram_webhook_url.rstrip("/")
            await self.app.updater.start_webhook(listen=settings.telegram_webhook_listen,
                                                 port=settings.telegram_webhook_port,
                                                 url_path=url.rsplit("/", 1)[-1], webhook_url=url)
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

    async def _reply(self, message: Message, text: str) -> Message:
        sent = message
        for piece in split_message(text, TELEGRAM_LIMIT) or ["(nothing to show)"]:
            sent = await message.reply_text(piece)
        return sent

    @asynccontextmanager
    async def _typing(self, chat_id: int) -> AsyncIterator[None]:
        """Keep the "typing…" indicator on while the agent works (Telegram clears it after 5 s)."""
        async def show() -> None:
            with suppress(TelegramError):
                await self.app.bot.send_chat_action(chat_id, ChatAction.TYPING)

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

    async def _agent_answer(self, message: Message, call: Any) -> None:
        """Run one agent call for the owner (queued behind a running one) and reply with its answer."""
        async with self.deps.gate.turn(on_wait=lambda: message.reply_text(QUEUED)):
            async with self._typing(message.chat_id):
                answer = await call()
        await self._reply(message, render_answer(answer))

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Errors a person can act on are shown with their hint; anything else goes to the log only."""
        error = context.error
        message = update.effective_message if isinstance(update, Update) else None
        if isinstance(error, UserFacingError):
            text = error.message + (f"\n→ {error.hint}" if error.hint else "")
        else:
            log.error("Telegram handler failed", exc_info=error)
            text = "Something went wrong on my side; the details are in the server log."
        if message is not None:
            with suppress(TelegramError):
                await message.reply_text(text)

    # ------------------------------------------------------------ messages

    async def on_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Plain text: an answer to a question prompt when it replies to one, else a question."""
        message = update.effective_message
        if message.reply_to_message is not None:
            question_id = await self.deps.prompts.question_for_reply(
                platform=PLATFORM, chat_id=str(message.chat_id),
                message_id=str(message.reply_to_message.message_id))
            if question_id is not None:
                await self._agent_answer(message, lambda: self.deps.service.answer_question(question_id,
                                                                                          message.text))
                return
        await self._ask(message, message.text)

    async def _ask(self, message: Message, text: str) -> None:
        conversation = f"{PLATFORM}:{message.chat_id}"
        await self._agent_answer(message, lambda: self.deps.service.ask(text, conversation=conversation))

    async def on_forward(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A forwarded message joins its burst; the burst is saved once the forwards stop coming."""
        message = update.effective_message
        chat_key = str(message.chat_id)
        self._bursts.setdefault(chat_key, message)
        self._collector.add(chat_key, origin_of(message))

    async def _save_burst(self, chat_key: str, items: list[Forwarded]) -> None:
        first = self._bursts.pop(chat_key)
        document = forwards_document(items, platform=PLATFORM, chat_key=chat_key, owner_ids=self.owner_ids,
                                     owner_names=self.deps.memory.context.owner_aliases)
        try:
            report = await self.deps.memory.save([document])
        except UserFacingError as error:
            await first.reply_text(f"Those forwards were not saved: {error}")
            return
        zone = self.deps.memory.context.timezone
        await first.reply_text(burst_summary(items, saved=report.messages_added, zone=zone))

    async def on_document(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A file: downloaded and imported in the background, with one status message kept up to date."""
        message = update.effective_message
        document = message.document
        if document.file_size and document.file_size > CLOUD_DOWNLOAD_LIMIT and not self.settings.telegram_local_mode:
            await message.reply_text(TOO_BIG.format(size=document.file_size / 1024 / 1024))
            return
        name = document.file_name or f"file-{document.file_unique_id}"
        status = await message.reply_text(f"Importing {name}…")
        self._background(self._import(message, status, name, document.file_id))

    async def _import(self, message: Message, status: Message, name: str, file_id: str) -> None:
        progress = ThrottledStatus(lambda text: self._edit(status, text),
                                   lambda stage, done, total: progress_text(name, stage, done, total),
                                   interval=self.settings.progress_edit_seconds)
        try:
            with tempfile.TemporaryDirectory(prefix="biographer-tg-") as folder:
                path = Path(folder) / Path(name).name
                file = await self.app.bot.get_file(file_id)
                await file.download_to_drive(path)
                report = await self.deps.memory.ingest([path], progress=progress)
            await progress.close()
            stats = await self.deps.memory.stats()
            await self._edit(status, ingest_summary(name, report, stats))
        except UserFacingError as error:
            await progress.close()
            await self._edit(status, f"Could not import {name}: {error.message}"
                             + (f"\n→ {error.hint}" if error.hint else ""))
        except Exception:  # a background task has no handler above it: log, and tell the owner
            log.exception("Telegram import of %s failed", name)
            await self._edit(status, f"Could not import {name}; the details are in the server log.")

    async def _edit(self, status: Message, text: str) -> None:
        with suppress(TelegramError):  # "message is not modified" and the like
            await status.edit_text(split_message(text, TELEGRAM_LIMIT)[0])

    async def on_recording(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A voice note, audio file or round video: transcribed, kept as a journal entry, echoed back."""
        message = update.effective_message
        media = message.voice or message.audio or message.video_note
        async with self._typing(message.chat_id):
            with tempfile.TemporaryDirectory(prefix="biographer-tg-") as folder:
                suffix = ".mp4" if message.video_note else ".ogg"
                path = Path(folder) / f"recording{suffix}"
                await (await media.get_file()).download_to_drive(path)
                text = await save_recording(self.deps.memory, path, when=message.date)
        await self._reply(message, f"Saved as a journal entry of {self._local(message.date)}:\n\n{text}")

    async def on_photo(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A photo: described when a vision model is configured, kept with its caption."""
        message = update.effective_message
        with tempfile.TemporaryDirectory(prefix="biographer-tg-") as folder:
            path = Path(folder) / "photo.jpg"
            await (await message.photo[-1].get_file()).download_to_drive(path)
            text = await save_photo(self.deps.memory, path, caption=message.caption or "", when=message.date)
        await self._reply(message, f"Saved the photo of {self._local(message.date)}:\n\n{text}")

    def _local(self, moment: datetime) -> str:
        return moment.astimezone(self.deps.memory.context.timezone).strftime("%d %b %Y, %H:%M")

    # ------------------------------------------------------------ commands

    async def cmd_start(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """What this bot does."""
        await self._reply(update.effective_message, HELP)

    cmd_help = cmd_start

    async def cmd_ask(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """/ask QUESTION."""
        if not context.args:
            await update.effective_message.reply_text("Usage: /ask when did I move to Lisbon?")
            return
        await self._ask(update.effective_message, " ".join(context.args))

    async def cmd_bio(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The profile: its opening in chat, the whole of it as bio.md."""
        message = update.effective_message
        bio = await self.deps.service.bio()
        await message.reply_text(split_message(bio, 1500)[0] if bio.strip() else "The profile is still empty.")
        await message.reply_document(bio.encode("utf-8"), filename="bio.md")

    async def cmd_timeline(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The dated events found so far."""
        events = await self.deps.service.timeline()
        lines = [f"{e.date} – {e.title}" for e in events]
        await self._reply(update.effective_message, "\n".join(lines) or "No dated events yet.")

    async def cmd_questions(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The open questions."""
        questions = await self.deps.service.open_questions()
        lines = [f"#{q.id} {q.text}" for q in questions]
        await self._reply(update.effective_message, "\n".join(lines) or "No open questions right now.")

    async def cmd_report(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A pattern report of the last seven days."""
        await self._agent_answer(update.effective_message, lambda: self.deps.service.report(days=7))

    async def cmd_sources(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Everything imported, with counts."""
        await self._reply(update.effective_message, sources_text(await list_sources(self.deps.memory.conn)))

    async def cmd_forget(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """/forget N: asks for confirmation before deleting source N."""
        message = update.effective_message
        if len(context.args) != 1 or not context.args[0].lstrip("#").isdigit():
            await message.reply_text("Usage: /forget 12 (the number from /sources)")
            return
        number = int(context.args[0].lstrip("#"))
        buttons = InlineKeyboardMarkup([[InlineKeyboardButton("Delete it", callback_data=f"forget:{number}"),
                                         InlineKeyboardButton("Keep it", callback_data="forget:keep")]])
        await message.reply_text(f"Delete source #{number} and everything taken from it? This cannot be undone.",
                                 reply_markup=buttons)

    async def on_forget_choice(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The confirmation button of /forget."""
        query = update.callback_query
        await query.answer()
        choice = query.data.removeprefix("forget:")
        if not choice.isdigit():
            await query.edit_message_text("Kept.")
            return
        forgotten = await forget_source(self.deps.memory.conn, int(choice))
        await query.edit_message_text(forgotten_text(forgotten))

    async def cmd_export(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """bio.md and a JSON export of every source and message."""
        message = update.effective_message
        bio = await self.deps.service.bio()
        await message.reply_document(bio.encode("utf-8"), filename="bio.md")
        with tempfile.TemporaryDirectory(prefix="biographer-tg-") as folder:
            path = await export_sources(self.deps.memory.conn, Path(folder) / "sources.json")
            await message.reply_document(path, filename="sources.json")

    async def cmd_stats(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """What the memory holds."""
        await self._reply(update.effective_message, render_stats(await self.deps.memory.stats()))

    async def cmd_pause(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Pause scheduled messages."""
        await self.deps.preferences.set_paused(True)
        await update.effective_message.reply_text("Paused: no scheduled questions or reports until /resume.")

    async def cmd_resume(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Resume scheduled messages."""
        await self.deps.preferences.set_paused(False)
        await update.effective_message.reply_text("Resumed: scheduled questions and reports are on.")

    async def cmd_settings(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """/settings shows them; /settings KEY VALUE changes one."""
        message = update.effective_message
        if len(context.args) >= 2:
            preferences = await self.deps.preferences.set(context.args[0], " ".join(context.args[1:]))
            await message.reply_text("Saved.\n\n" + preferences.describe())
            return
        preferences = await self.deps.preferences.load()
        await message.reply_text(preferences.describe() + "\n\nChange one with /settings KEY VALUE, e.g. "
                                 "/settings quiet_hours 22:00-08:00 or /settings timezone Europe/Lisbon")

    # ------------------------------------------------------------ the scheduler's Notifier

    async def send_text(self, text: str) -> None:
        for owner in self.owner_ids:
            for piece in split_message(text, TELEGRAM_LIMIT):
                await self.app.bot.send_message(int(owner), piece)

    async def send_answer(self, answer: Any) -> None:
        await self.send_text(render_answer(answer))

    async def send_question(self, question_id: str, text: str, *, sent_at: datetime) -> None:
        for owner in self.owner_ids:
            sent = await self.app.bot.send_message(
                int(owner), f"A question for your story:\n\n{text}\n\n(Reply to this message to answer.)")
            await self.deps.prompts.record(question_id=question_id, platform=PLATFORM, chat_id=str(sent.chat_id),
                                           message_id=str(sent.message_id),
                                           sent_at=sent_at)
