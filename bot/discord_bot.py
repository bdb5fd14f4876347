"""The Discord front end (discord.py): maps DMs and slash commands onto the shared commands
(bot/commands.py) and renders their replies. No command logic of its own; who may use the bot is
decided once, in `BiographerTree.interaction_check` and `DiscordFrontend.allowed`."""

from __future__ import annotations

import asyncio
import inspect
import io
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import discord
from discord import app_commands

from bot.commands import COMMANDS, REFUSAL, Command, Commands
from bot.outbound import Delivered
from bot.replies import File, Reply
from bot.render import DISCORD_LIMIT, ThrottledStatus, progress_text, split_message
from core.config import Settings
from core.errors import UserFacingError

log = logging.getLogger(__name__)

PLATFORM = "discord"
ALT_TEXT_LIMIT = 1024  # an attachment description's most characters
NOT_HERE = ("I only answer in direct messages: what I say is about your private life, and everyone in this "
            "channel would see it. Message me directly (or add this server to BIOGRAPHER_DISCORD_GUILD_IDS).")


def attachment_kind(attachment: discord.Attachment) -> str:
    """"recording", "photo" or "file", from what Discord says the attachment is."""
    content_type = attachment.content_type or ""
    if attachment.is_voice_message() or content_type.startswith("audio/"):
        return "recording"
    if content_type.startswith("image/"):
        return "photo"
    return "file"


def _files(files: Sequence[File]) -> list[discord.File]:
    # a picture's alt text becomes the attachment's description, which screen readers announce
    return [discord.File(io.BytesIO(f.data) if f.data is not None else str(f.path), filename=f.name,
                         description=f.alt[:ALT_TEXT_LIMIT] or None)
            for f in files]


def _cleanup(reply: Reply) -> None:
    for file in reply.files:
        if file.temporary and file.path is not None:
            file.path.unlink(missing_ok=True)


class ReplyButtons(discord.ui.View):
    """The buttons of a shared reply; only the owner's click counts, and it edits the message."""

    def __init__(self, frontend: DiscordFrontend, reply: Reply) -> None:
        super().__init__(timeout=300)
        self.frontend = frontend
        for n, spec in enumerate(reply.buttons):
            button = discord.ui.Button(label=spec.label, style=discord.ButtonStyle.danger
                                       if spec is reply.buttons[0] else discord.ButtonStyle.secondary,
                                       row=min(n // 2, 4))  # in pairs, as on Telegram: Done / Drop
            button.callback = self._press(spec.action)
            self.add_item(button)

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        return await self.frontend.check(interaction)

    def _press(self, action: str) -> Callable[[discord.Interaction], Any]:
        async def press(interaction: discord.Interaction) -> None:
            reply = await self.frontend.commands.press(InteractionChat(self.frontend, interaction), action)
            self.stop()
            await interaction.response.edit_message(content=split_message(reply.text, DISCORD_LIMIT)[0], view=None)

        return press


class ChannelChat:
    """A DM channel, as the shared commands see it."""

    platform = PLATFORM

    def __init__(self, frontend: DiscordFrontend, channel: discord.abc.Messageable, chat_id: int) -> None:
        self.frontend = frontend
        self.channel = channel
        self.chat_id = str(chat_id)

    async def send(self, reply: Reply) -> discord.Message | None:
        return await self.frontend.send_reply(self.channel.send, reply)

    def working(self):
        return self.channel.typing()


class InteractionChat:
    """A slash command's conversation: answered through the interaction's follow-ups."""

    platform = PLATFORM

    def __init__(self, frontend: DiscordFrontend, interaction: discord.Interaction) -> None:
        self.frontend = frontend
        self.interaction = interaction
        self.chat_id = str(interaction.channel_id)

    async def send(self, reply: Reply) -> None:
        if not self.interaction.response.is_done():
            await self.interaction.response.defer(thinking=True)
        await self.frontend.send_reply(self.interaction.followup.send, reply)

    @asynccontextmanager
    async def working(self) -> AsyncIterator[None]:
        """Discord shows "thinking…" while a deferred interaction waits for its follow-up."""
        if not self.interaction.response.is_done():
            await self.interaction.response.defer(thinking=True)
        yield


class BiographerTree(app_commands.CommandTree):
    """The slash commands, with the one access check every command goes through."""

    def __init__(self, client: BiographerClient) -> None:
        super().__init__(client)
        self.frontend = client.frontend

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        return await self.frontend.check(interaction)


class BiographerClient(discord.Client):
    """A discord.Client whose events and slash commands go to the DiscordFrontend."""

    def __init__(self, frontend: DiscordFrontend) -> None:
        intents = discord.Intents.default()
        intents.message_content = True  # DMs need it to read text; enable it in the developer portal
        intents.dm_messages = True
        # answers quote sources, which may hold "@everyone" or <@id>: nobody is ever pinged by them
        super().__init__(intents=intents, allowed_mentions=discord.AllowedMentions.none())
        self.frontend = frontend
        self.tree = BiographerTree(self)
        for command in COMMANDS:
            self.tree.add_command(slash_command(command, frontend, in_servers=bool(frontend.guild_ids)))

    async def setup_hook(self) -> None:
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        await self.frontend.on_message(message)


def slash_command(command: Command, frontend: DiscordFrontend, *, in_servers: bool) -> app_commands.Command:
    """A shared command as a slash command, its options from the command's parameters. Discord is
    told to offer it only in the bot's DM (and servers, when the owner allowed some); the tree's
    check refuses it anywhere else all the same."""
    async def callback(interaction: discord.Interaction, **values: Any) -> None:
        chat = InteractionChat(frontend, interaction)
        await interaction.response.defer(thinking=True)
        arguments = {name: value for name, value in values.items() if value is not None}
        await chat.send(await frontend.commands.run(command.name, chat, arguments))

    parameters = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=discord.Interaction)]
    for param in command.params:
        parameters.append(inspect.Parameter(
            param.name, inspect.Parameter.KEYWORD_ONLY, annotation=param.type if param.required else param.type | None,
            default=inspect.Parameter.empty if param.required else None))
    callback.__signature__ = inspect.Signature(parameters)
    callback.__name__ = callback.__qualname__ = f"slash_{command.name}"
    if command.params:
        callback = app_commands.describe(**{p.name: p.description for p in command.params})(callback)
    callback = app_commands.allowed_contexts(guilds=in_servers, dms=True, private_channels=False)(callback)
    callback = app_commands.allowed_installs(guilds=True, users=False)(callback)
    return app_commands.Command(name=command.name, description=command.description[:100], callback=callback)


class DiscordFrontend:
    """One bot for its owner(s), in DMs (and servers the owner allowed); also where the scheduler's
    messages reach them on Discord (deliver)."""

    name = "Discord"
    platform = PLATFORM

    def __init__(self, settings: Settings, commands: Commands) -> None:
        self.settings = settings
        self.commands = commands
        self.owner_ids = frozenset(settings.discord_owner_ids)
        self.guild_ids = frozenset(settings.discord_guild_ids)
        self._refused: set[int] = set()
        self._tasks: set[asyncio.Task] = set()
        self.client = BiographerClient(self)

    @staticmethod
    def configured(settings: Settings) -> bool:
        return settings.discord_token is not None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[DiscordFrontend]:
        """Log in (a bad token or no network is one clear error), then stay connected in the
        background; on exit finish imports and close the connection."""
        if not self.owner_ids:
            log.warning("Discord: no owner configured, so the bot refuses everyone; set "
                        "BIOGRAPHER_DISCORD_OWNER_IDS to your user id (Developer Mode → Copy User ID)")
        async with self.client:
            try:
                await self.client.login(self.settings.discord_token.get_secret_value())
            except discord.LoginFailure:
                raise UserFacingError("Discord refused the bot token",
                                      hint="reset the token in the Developer Portal (Bot → Reset Token) and "
                                           "copy it into BIOGRAPHER_DISCORD_TOKEN") from None
            except (aiohttp.ClientError, OSError, discord.HTTPException) as error:
                raise UserFacingError(f"cannot reach Discord ({type(error).__name__})",
                                      hint="check the network and start again") from None
            connection = asyncio.create_task(self.client.connect())
            connection.add_done_callback(self._connection_ended)
            try:
                yield self
            finally:
                if self._tasks:
                    await asyncio.gather(*self._tasks, return_exceptions=True)
                await self.commands.drain()
                await self.client.close()
                await asyncio.gather(connection, return_exceptions=True)

    def _connection_ended(self, task: asyncio.Task) -> None:
        if task.cancelled() or self.client.is_closed():
            return
        error = task.exception()
        if isinstance(error, discord.PrivilegedIntentsRequired):
            log.error("Discord: turn on the Message Content Intent for the bot in the Developer Portal "
                      "(Bot → Privileged Gateway Intents), then start again")
        elif error is not None:
            log.error("Discord: the connection ended (%s); the other front ends keep running", type(error).__name__,
                      exc_info=error)

    # ------------------------------------------------------------ access: decided here only

    def is_owner(self, user: discord.abc.User) -> bool:
        return str(user.id) in self.owner_ids

    def _place_allowed(self, *, guild_id: int | None, bot_dm: bool) -> bool:
        """The owner's DM with the bot, or a server the owner listed. Never a DM or group between
        other people (where a user-installed app can be used), never another server."""
        return str(guild_id) in self.guild_ids if guild_id is not None else bot_dm

    async def check(self, interaction: discord.Interaction) -> bool:
        """Every slash command and button: the owner, in the bot's DM or an allowed server. Anyone
        else, or the owner anywhere else, gets a short answer only they can see, and nothing runs."""
        if not self.is_owner(interaction.user):
            await interaction.response.send_message(REFUSAL, ephemeral=True)
            return False
        bot_dm = not interaction.context.private_channel and interaction.channel is not None \
            and interaction.channel.type == discord.ChannelType.private
        if not self._place_allowed(guild_id=interaction.guild_id, bot_dm=bot_dm):
            await interaction.response.send_message(NOT_HERE, ephemeral=True)
            return False
        return True

    async def allowed(self, message: discord.Message) -> bool:
        """A message: the owner in the bot's DM (or an allowed server); strangers get one refusal,
        nothing of theirs is kept."""
        if message.author.bot:
            return False
        in_dm = isinstance(message.channel, discord.DMChannel)
        guild_id = message.guild.id if message.guild else getattr(message.channel, "guild_id", None)
        if self.is_owner(message.author):
            return self._place_allowed(guild_id=guild_id, bot_dm=in_dm)
        if in_dm and message.author.id not in self._refused:
            self._refused.add(message.author.id)
            await message.channel.send(REFUSAL)
        return False

    # ------------------------------------------------------------ replies

    async def send_reply(self, send: Callable[..., Any], reply: Reply) -> discord.Message | None:
        """A shared reply as Discord messages: text in pieces; files and buttons on the last one.
        Embeds are suppressed, so a link in an answer is never fetched for a preview."""
        pictures = [f for f in reply.files if f.picture]
        documents = [f for f in reply.files if not f.picture]
        pieces = split_message(reply.text, DISCORD_LIMIT) or ([""] if documents else [] if pictures
                                                               else ["(nothing to show)"])
        sent = None
        try:
            if pictures:  # first, in a message of their own: the text reads as their caption
                sent = await send(None, files=_files(pictures))
            for i, piece in enumerate(pieces):
                extra: dict[str, Any] = {}
                if i == len(pieces) - 1:
                    if documents:
                        extra["files"] = _files(documents)
                    if reply.buttons:
                        extra["view"] = ReplyButtons(self, reply)
                sent = await send(piece or None, suppress_embeds=True, **extra)
        finally:
            _cleanup(reply)
        return sent

    # ------------------------------------------------------------ messages

    async def on_message(self, message: discord.Message) -> None:
        """Attachments are imported; a reply to a question prompt answers it; other text is a question."""
        if not await self.allowed(message):
            return
        chat = ChannelChat(self, message.channel, message.channel.id)
        for attachment in message.attachments:
            await self.on_attachment(chat, message, attachment)
        if message.content.strip():
            reply_to = str(message.reference.message_id) if message.reference and message.reference.message_id \
                else None
            await chat.send(await self.commands.text(chat, message.content, reply_to=reply_to))

    async def on_attachment(self, chat: ChannelChat, message: discord.Message,
                            attachment: discord.Attachment) -> None:
        """Voice messages are transcribed, images kept, other files imported in the background."""
        kind = attachment_kind(attachment)
        if kind == "file":
            status = await message.channel.send(f"Importing {attachment.filename}…")
            task = asyncio.create_task(self._import(status, attachment))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        with self.commands.service.memory.uploads.scratch("dc-") as folder:
            path = Path(folder) / Path(attachment.filename).name
            await attachment.save(path)
            if kind == "recording":
                reply = await self.commands.recording(chat, path, when=message.created_at)
            else:
                reply = await self.commands.photos(chat, [path], caption=message.content, when=message.created_at,
                                                   key=f"{PLATFORM}:{message.channel.id}:{message.id}")
        await chat.send(reply)

    async def _import(self, status: discord.Message, attachment: discord.Attachment) -> None:
        name = attachment.filename
        progress = ThrottledStatus(lambda text: status.edit(content=text),
                                   lambda stage, done, total: progress_text(name, stage, done, total),
                                   interval=self.settings.progress_edit_seconds)
        with self.commands.service.memory.uploads.scratch("dc-") as folder:
            path = Path(folder) / Path(name).name
            await attachment.save(path)
            reply = await self.commands.import_files(name, [path], progress=progress)
        await progress.close()
        await status.edit(content=split_message(reply.text, DISCORD_LIMIT)[0])

    # ------------------------------------------------------------ the scheduler's messages

    async def _owner_dms(self) -> list[discord.DMChannel]:
        channels = []
        for owner in self.owner_ids:
            user = self.client.get_user(int(owner)) or await self.client.fetch_user(int(owner))
            channels.append(user.dm_channel or await user.create_dm())
        return channels

    async def deliver(self, reply: Reply) -> list[Delivered]:
        """A reply nobody asked for (the scheduler's) into each owner's DM."""
        delivered = []
        for channel in await self._owner_dms():
            sent = await self.send_reply(channel.send, reply)
            if sent is not None:
                delivered.append(Delivered(str(channel.id), str(sent.id)))
        return delivered
