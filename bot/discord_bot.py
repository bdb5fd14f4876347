"""The Discord front end (discord.py): the owner's DMs and slash commands, rendered like Telegram's."""

from __future__ import annotations

import asyncio
import io
import logging
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import discord
from discord import app_commands

from bot.common import COMMANDS, HELP, QUEUED, REFUSAL, FrontendDeps
from bot.render import (DISCORD_LIMIT, ThrottledStatus, forgotten_text, ingest_summary, progress_text,
                        render_answer, render_stats, sources_text, split_message)
from core.capture import save_photo, save_recording
from core.errors import UserFacingError
from core.sources import export_sources, forget_source, list_sources

log = logging.getLogger(__name__)

PLATFORM = "discord"
AUDIO_TYPES = ("audio/",)
IMAGE_TYPES = ("image/",)


def attachment_kind(attachment: discord.Attachment) -> str:
    """"recording", "photo" or "file", from what Discord says the attachment is."""
    content_type = attachment.content_type or ""
    if attachment.is_voice_message() or content_type.startswith(AUDIO_TYPES):
        return "recording"
    if content_type.startswith(IMAGE_TYPES):
        return "photo"
    return "file"


class BiographerClient(discord.Client):
    """A discord.Client whose events and slash commands go to the DiscordFrontend."""

    def __init__(self, frontend: DiscordFrontend) -> None:
        intents = discord.Intents.default()
        intents.message_content = True  # DMs need it to read text; enable it in the developer portal
        intents.dm_messages = True
        super().__init__(intents=intents)
        self.frontend = frontend
        self.tree = app_commands.CommandTree(self)
        frontend.register_commands(self.tree)

    async def setup_hook(self) -> None:
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        await self.frontend.on_message(message)


class DiscordFrontend:
    """One bot for its owner(s), in DMs; also the scheduler's Notifier for Discord."""

    def __init__(self, deps: FrontendDeps) -> None:
        self.deps = deps
        self.settings = deps.settings
        self.owner_ids = frozenset(self.settings.discord_owner_ids)
        self._refused: set[int] = set()
        self._tasks: set[asyncio.Task] = set()
        self.client = BiographerClient(self)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[DiscordFrontend]:
        """Log in and connect in the background; on exit finish imports and close the connection."""
        if not self.owner_ids:
            log.warning("Discord: no owner configured, so the bot refuses everyone; set "
                        "BIOGRAPHER_DISCORD_OWNER_IDS to your user id (Developer Mode → Copy User ID)")
        async with self.client:
            connection = asyncio.create_task(self.client.start(self.settings.discord_token.get_secret_value()))
            try:
                yield self
            finally:
                if self._tasks:
                    await asyncio.gather(*self._tasks, return_exceptions=True)
                await self.client.close()
                await asyncio.gather(connection, return_exceptions=True)

    # ------------------------------------------------------------ access and replies

    def is_owner(self, user: discord.abc.User) -> bool:
        return str(user.id) in self.owner_ids

    async def allowed(self, message: discord.Message) -> bool:
        """Owner in a DM (or a server channel when enabled); strangers get one refusal, nothing kept."""
        if message.author.bot:
            return False
        in_dm = isinstance(message.channel, discord.DMChannel)
        if self.is_owner(message.author):
            return in_dm or self.settings.allow_group_chats
        if in_dm and message.author.id not in self._refused:
            self._refused.add(message.author.id)
            await message.channel.send(REFUSAL)
        return False

    async def _send(self, channel: discord.abc.Messageable, text: str) -> None:
        for piece in split_message(text, DISCORD_LIMIT) or ["(nothing to show)"]:
            await channel.send(piece)

    async def _answer(self, channel: discord.abc.Messageable, call: Any) -> None:
        """Run one agent call (queued behind a running one) with a typing indicator, and reply."""
        async with self.deps.gate.turn(on_wait=lambda: channel.send(QUEUED)):
            async with channel.typing():
                answer = await call()
        await self._send(channel, render_answer(answer))

    # ------------------------------------------------------------ messages

    async def on_message(self, message: discord.Message) -> None:
        """Attachments are imported; a reply to a question prompt answers it; other text is a question."""
        if not await self.allowed(message):
            return
        try:
            for attachment in message.attachments:
                await self.on_attachment(message, attachment)
            if message.content.strip():
                await self.on_text(message)
        except UserFacingError as error:
            await message.channel.send(error.message + (f"\n→ {error.hint}" if error.hint else ""))

    async def on_text(self, message: discord.Message) -> None:
        """A question, or the answer to a question prompt it replies to."""
        if message.reference is not None and message.reference.message_id is not None:
            question_id = await self.deps.prompts.question_for_reply(
                platform=PLATFORM, chat_id=str(message.channel.id), message_id=str(message.reference.message_id))
            if question_id is not None:
                await self._answer(message.channel,
                                   lambda: self.deps.service.answer_question(question_id, message.content))
                return
        conversation = f"{PLATFORM}:{message.channel.id}"
        await self._answer(message.channel, lambda: self.deps.service.ask(message.content, conversation=conversation))

    async def on_attachment(self, message: discord.Message, attachment: discord.Attachment) -> None:
        """Voice messages are transcribed, images kept, other files imported in the background."""
        kind = attachment_kind(attachment)
        if kind == "file":
            status = await message.channel.send(f"Importing {attachment.filename}…")
            task = asyncio.create_task(self._import(status, attachment))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        with tempfile.TemporaryDirectory(prefix="biographer-dc-") as folder:
            path = Path(folder) / Path(attachment.filename).name
            await attachment.save(path)
            if kind == "recording":
                text = await save_recording(self.deps.memory, path, when=message.created_at)
            else:
                text = await save_photo(self.deps.memory, path, caption=message.content, when=message.created_at)
        await self._send(message.channel, f"Saved as a journal entry of {self._local(message.created_at)}:\n\n{text}")

    async def _import(self, status: discord.Message, attachment: discord.Attachment) -> None:
        name = attachment.filename
        progress = ThrottledStatus(lambda text: status.edit(content=text),
                                   lambda stage, done, total: progress_text(name, stage, done, total),
                                   interval=self.settings.progress_edit_seconds)
        try:
            with tempfile.TemporaryDirectory(prefix="biographer-dc-") as folder:
                path = Path(folder) / Path(name).name
                await attachment.save(path)
                report = await self.deps.memory.ingest([path], progress=progress)
            await progress.close()
            summary = ingest_summary(name, report, await self.deps.memory.stats())
            await status.edit(content=split_message(summary, DISCORD_LIMIT)[0])
        except UserFacingError as error:
            await status.edit(content=f"Could not import {name}: {error.message}")
        except Exception:  # a background task has no handler above it: log, and tell the owner
            log.exception("Discord import of %s failed", name)
            await status.edit(content=f"Could not import {name}; the details are in the server log.")

    def _local(self, moment: datetime) -> str:
        return moment.astimezone(self.deps.memory.context.timezone).strftime("%d %b %Y, %H:%M")

    # ------------------------------------------------------------ slash commands

    def register_commands(self, tree: app_commands.CommandTree) -> None:
        """The same commands as Telegram, as slash commands usable in DMs."""
        descriptions = dict(COMMANDS)
        handlers = {
            "start": self.slash_help, "help": self.slash_help, "bio": self.slash_bio,
            "timeline": self.slash_timeline, "questions": self.slash_questions, "report": self.slash_report,
            "sources": self.slash_sources, "stats": self.slash_stats, "pause": self.slash_pause,
            "resume": self.slash_resume, "settings": self.slash_settings,
        }
        for name, handler in handlers.items():
            tree.add_command(app_commands.Command(name=name, description=descriptions[name][:100],
                                                  callback=handler))
        tree.add_command(app_commands.Command(name="ask", description=descriptions["ask"][:100],
                                              callback=self.slash_ask))
        tree.add_command(app_commands.Command(name="forget", description=descriptions["forget"][:100],
                                              callback=self.slash_forget))
        tree.add_command(app_commands.Command(name="export", description=descriptions["export"][:100],
                                              callback=self.slash_export))

    async def _owner_only(self, interaction: discord.Interaction) -> bool:
        if self.is_owner(interaction.user):
            return True
        await interaction.response.send_message(REFUSAL, ephemeral=True)
        return False

    async def _respond(self, interaction: discord.Interaction, text: str) -> None:
        pieces = split_message(text, DISCORD_LIMIT) or ["(nothing to show)"]
        await interaction.response.send_message(pieces[0])
        for piece in pieces[1:]:
            await interaction.followup.send(piece)

    async def slash_help(self, interaction: discord.Interaction) -> None:
        """What this bot does."""
        if await self._owner_only(interaction):
            await self._respond(interaction, HELP)

    async def slash_ask(self, interaction: discord.Interaction, question: str) -> None:
        """Ask about your life."""
        if await self._owner_only(interaction):
            await interaction.response.defer(thinking=True)
            async with self.deps.gate.turn():
                answer = await self.deps.service.ask(question, conversation=f"{PLATFORM}:{interaction.channel_id}")
            for piece in split_message(render_answer(answer), DISCORD_LIMIT):
                await interaction.followup.send(piece)

    async def slash_bio(self, interaction: discord.Interaction) -> None:
        """The profile as bio.md."""
        if await self._owner_only(interaction):
            bio = await self.deps.service.bio()
            await interaction.response.send_message(split_message(bio, 1500)[0] if bio.strip() else "Empty so far.",
                                                    file=discord.File(io.BytesIO(bio.encode()), filename="bio.md"))

    async def slash_timeline(self, interaction: discord.Interaction) -> None:
        """The dated events found so far."""
        if await self._owner_only(interaction):
            events = await self.deps.service.timeline()
            await self._respond(interaction, "\n".join(f"{e.date} – {e.title}" for e in events) or "No events yet.")

    async def slash_questions(self, interaction: discord.Interaction) -> None:
        """The open questions."""
        if await self._owner_only(interaction):
            questions = await self.deps.service.open_questions()
            await self._respond(interaction, "\n".join(f"#{q.id} {q.text}" for q in questions) or "None open.")

    async def slash_report(self, interaction: discord.Interaction) -> None:
        """A pattern report of the last seven days."""
        if await self._owner_only(interaction):
            await interaction.response.defer(thinking=True)
            async with self.deps.gate.turn():
                answer = await self.deps.service.report(days=7)
            for piece in split_message(render_answer(answer), DISCORD_LIMIT):
                await interaction.followup.send(piece)

    async def slash_sources(self, interaction: discord.Interaction) -> None:
        """Everything imported, with counts."""
        if await self._owner_only(interaction):
            await self._respond(interaction, sources_text(await list_sources(self.deps.memory.conn)))

    async def slash_forget(self, interaction: discord.Interaction, source: int) -> None:
        """Delete a source and everything taken from it, after a confirmation button."""
        if await self._owner_only(interaction):
            await interaction.response.send_message(
                f"Delete source #{source} and everything taken from it? This cannot be undone.",
                view=ForgetConfirmation(self, source))

    async def slash_export(self, interaction: discord.Interaction) -> None:
        """bio.md and a JSON export of sources and messages."""
        if await self._owner_only(interaction):
            await interaction.response.defer(thinking=True)
            bio = await self.deps.service.bio()
            with tempfile.TemporaryDirectory(prefix="biographer-dc-") as folder:
                path = await export_sources(self.deps.memory.conn, Path(folder) / "sources.json")
                await interaction.followup.send(files=[discord.File(io.BytesIO(bio.encode()), filename="bio.md"),
                                                       discord.File(path, filename="sources.json")])

    async def slash_stats(self, interaction: discord.Interaction) -> None:
        """What the memory holds."""
        if await self._owner_only(interaction):
            await self._respond(interaction, render_stats(await self.deps.memory.stats()))

    async def slash_pause(self, interaction: discord.Interaction) -> None:
        """Pause scheduled messages."""
        if await self._owner_only(interaction):
            await self.deps.preferences.set_paused(True)
            await self._respond(interaction, "Paused: no scheduled questions or reports until /resume.")

    async def slash_resume(self, interaction: discord.Interaction) -> None:
        """Resume scheduled messages."""
        if await self._owner_only(interaction):
            await self.deps.preferences.set_paused(False)
            await self._respond(interaction, "Resumed: scheduled questions and reports are on.")

    async def slash_settings(self, interaction: discord.Interaction, key: str | None = None,
                             value: str | None = None) -> None:
        """Show the settings, or change one."""
        if not await self._owner_only(interaction):
            return
        try:
            if key and value:
                preferences = await self.deps.preferences.set(key, value)
            else:
                preferences = await self.deps.preferences.load()
        except UserFacingError as error:
            await self._respond(interaction, error.message + (f"\n→ {error.hint}" if error.hint else ""))
            return
        await self._respond(interaction, preferences.describe())

    # ------------------------------------------------------------ the scheduler's Notifier

    async def _owner_dms(self) -> list[discord.DMChannel]:
        channels = []
        for owner in self.owner_ids:
            user = self.client.get_user(int(owner)) or await self.client.fetch_user(int(owner))
            channels.append(user.dm_channel or await user.create_dm())
        return channels

    async def send_text(self, text: str) -> None:
        for channel in await self._owner_dms():
            await self._send(channel, text)

    async def send_answer(self, answer: Any) -> None:
        await self.send_text(render_answer(answer))

    async def send_question(self, question_id: str, text: str, *, sent_at: datetime) -> None:
        for channel in await self._owner_dms():
            sent = await channel.send(f"A question for your story:\n\n{text}\n\n(Reply to this message to answer.)")
            await self.deps.prompts.record(question_id=question_id, platform=PLATFORM, chat_id=str(channel.id),
                                           message_id=str(sent.id), sent_at=sent_at)


class ForgetConfirmation(discord.ui.View):
    """The two buttons under /forget; only the owner's click counts."""

    def __init__(self, frontend: DiscordFrontend, source: int) -> None:
        super().__init__(timeout=300)
        self.frontend = frontend
        self.source = source

    @discord.ui.button(label="Delete it", style=discord.ButtonStyle.danger)
    async def delete(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        """Forget the source, then say what went with it."""
        if not await self.frontend._owner_only(interaction):
            return
        try:
            text = forgotten_text(await forget_source(self.frontend.deps.memory.conn, self.source))
        except UserFacingError as error:
            text = str(error)
        self.stop()
        await interaction.response.edit_message(content=text, view=None)

    @discord.ui.button(label="Keep it", style=discord.ButtonStyle.secondary)
    async def keep(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        """Leave the source as it is."""
        if await self.frontend._owner_only(interaction):
            self.stop()
            await interaction.response.edit_message(content="Kept.", view=None)
