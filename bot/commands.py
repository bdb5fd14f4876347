"""Every chat command and chat event, written once for every chat front end.

A command parses its input, calls the chat facet and returns a `Reply` value (bot/replies.py);
the Telegram and Discord adapters only map their platform's events onto these and render the
replies. Errors a person can act on become replies with their hint, the same on every platform.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from bot.replies import Button, Chat, File, Reply, with_picture
from bot.render import forgotten_text, ingest_summary, render_answer, render_stats, sources_text, split_message
from core.errors import UserFacingError
from core.chat.forwards import BurstCollector, Forwarded, burst_summary
from core.biographer.gate import AgentGate
from core.ledger.book import OPEN, LedgerItem, LedgerQuery
from core.ledger.proposals import CATEGORIES
from core.ledger.text import headline, items_text, person_text
from core.ports import Progress, no_progress
from core.service.chat import ChatFacet
from core.types import Answer
from core.words import counted

log = logging.getLogger(__name__)

QUEUED = "One moment: I'm still working on your previous message; yours is next."
REFUSAL = "This is a private bot. It only talks to its owner."
SORRY = "Something went wrong on my side; the details are in the server log."


# ---------------------------------------------------------------- the command registry

@dataclass(frozen=True)
class Param:
    name: str
    description: str
    type: type = str  # str or int
    required: bool = True
    rest: bool = False  # takes the rest of the line ("/ask when did I move?")


Handler = Callable[..., Awaitable[Reply]]  # Commands method: (self, chat, **arguments) -> Reply


@dataclass(frozen=True)
class Command:
    name: str
    description: str  # at most 100 characters: Discord's limit
    handler: Handler = field(repr=False, compare=False)
    params: tuple[Param, ...] = ()
    example: str = ""
    uses_agent: bool = False  # runs one at a time with the model, under a typing indicator

    @property
    def usage(self) -> str:
        return f"Usage: {self.example or '/' + self.name}"


_REGISTERED: list[Command] = []  # filled by @command below, in the order the methods are written


def command(name: str, description: str, *params: Param, example: str = "",
            uses_agent: bool = False) -> Callable[[Handler], Handler]:
    """Registers a Commands method as the chat command `name` (stack two for two names)."""
    def register(handler: Handler) -> Handler:
        _REGISTERED.append(Command(name, description, handler, params, example=example, uses_agent=uses_agent))
        return handler

    return register


LEDGER_BUTTONS = 5  # items under a list that get Done / Drop buttons



def parse_arguments(command: Command, text: str) -> dict[str, str | int]:
    """A command's arguments from the words after it ("/forget #12" -> {"source": 12}); raises a
    UserFacingError carrying the command's usage when they do not fit."""
    words = text.split()
    values: dict[str, str | int] = {}
    for param in command.params:
        if not words:
            if param.required:
                raise UserFacingError(command.usage)
            continue
        raw = " ".join(words) if param.rest else words.pop(0)
        if param.rest:
            words = []
        if param.type is int:
            digits = raw.lstrip("#")
            if not digits.isdigit() or len(digits) > 18:
                raise UserFacingError(f"not a number: {raw!r}", hint=command.usage)
            values[param.name] = int(digits)
        else:
            values[param.name] = raw
    if words:
        raise UserFacingError(f"too many words after /{command.name}", hint=command.usage)
    return values


def explain(error: UserFacingError) -> str:
    """An error as the owner reads it: what happened and what to do."""
    return error.message + (f"\n→ {error.hint}" if error.hint else "")


# ---------------------------------------------------------------- the commands

class Commands:
    """The chat commands and events over the service; shared by every chat front end."""

    def __init__(self, service: ChatFacet, *, gate: AgentGate | None = None, forward_quiet: float = 2.0) -> None:
        self.service = service
        self.live = service.live  # the chats a platform's business connection records, when configured
        self.gate = gate or AgentGate()
        self._forwards = BurstCollector(self._save_burst, quiet=forward_quiet)
        self._burst_chats: dict[str, tuple[Chat, frozenset[str]]] = {}

    # ------------------------------------------------------------ entry points for the adapters

    async def run(self, name: str, chat: Chat, arguments: dict[str, str | int] | str = "") -> Reply:
        """Run command `name` with typed arguments (Discord) or the words after it (Telegram)."""
        command = BY_NAME[name]

        async def work() -> Reply:
            values = parse_arguments(command, arguments) if isinstance(arguments, str) else arguments
            if command.uses_agent:
                return await self._with_agent(chat, lambda: command.handler(self, chat, **values))
            return await command.handler(self, chat, **values)

        return await self._safely(work, what=f"/{name}")

    async def text(self, chat: Chat, text: str, *, reply_to: str | None = None) -> Reply:
        """Plain text: the answer to a question prompt when it replies to one, else a question."""
        async def work() -> Reply:
            if reply_to is not None:
                question_id = await self.service.prompts.question_for_reply(
                    platform=chat.platform, chat_id=chat.chat_id, message_id=reply_to)
                if question_id is not None:
                    return await self._with_agent(
                        chat, lambda: self._answer_reply(self.service.biographer.answer_question(question_id, text)))
            return await self._with_agent(chat, lambda: self._ask(chat, question=text))

        return await self._safely(work, what="a message")

    async def press(self, chat: Chat, action: str) -> Reply:
        """A button of an earlier reply was pressed."""
        async def work() -> Reply:
            verb, _, value = action.partition(":")
            if verb == "forget" and value.isdigit():
                return Reply(forgotten_text(await self.service.memory.forget(int(value))))
            status, _, item_id = value.partition(":")
            if verb == "ledger" and item_id.isdigit():
                item = await self.service.ledger.set_status(int(item_id), status, via="button")
                return Reply(f"Marked {item.status}: {headline(item)}")
            return Reply("Kept.")

        return await self._safely(work, what=f"the button {action!r}")

    async def import_files(self, name: str, paths: Sequence[Path], *, progress: Progress = no_progress) -> Reply:
        """Exports or documents the owner sent (one, or an album of them): imported, then summarised."""
        async def work() -> Reply:
            report = await self.service.memory.ingest(paths, progress=progress)
            return Reply(ingest_summary(name, report, await self.service.memory.stats()))

        return await self._safely(work, what=f"the import of {name}", failed=f"Could not import {name}: ")

    async def recording(self, chat: Chat, path: Path, *, when: datetime) -> Reply:
        """A voice note: transcribed, kept as a journal entry, echoed back."""
        async def work() -> Reply:
            async with chat.working():
                text = await self.service.save_recording(path, when=when)
            return Reply(f"Saved as a journal entry of {self._local(when)}:\n\n{text}")

        return await self._safely(work, what="a recording")

    async def photos(self, chat: Chat, paths: Sequence[Path], *, caption: str, when: datetime,
                     key: str | None = None, edited: bool = False) -> Reply:
        """One photo or an album: kept with its caption (described when a vision model is set).
        `key` names the platform message, so an edited caption replaces the entry it made."""
        async def work() -> Reply:
            async with chat.working():
                text = await self.service.save_photos(paths, caption=caption, when=when, key=key)
            noun = "photo" if len(paths) == 1 else counted(len(paths), "photo")
            verb = "Updated" if edited else "Saved"
            return Reply(f"{verb} the {noun} of {self._local(when)}:\n\n{text}")

        return await self._safely(work, what="a photo")

    def forwarded(self, chat: Chat, item: Forwarded, *, owner_ids: frozenset[str]) -> None:
        """A forwarded message joins its chat's burst; the burst is saved (and acknowledged once)
        when the forwards stop coming."""
        self._burst_chats[chat.chat_id] = (chat, owner_ids)
        self._forwards.add(chat.chat_id, item)

    async def drain(self) -> None:
        """Save every burst still collecting (on shutdown)."""
        await self._forwards.drain()

    # ------------------------------------------------------------ plumbing

    async def _safely(self, work: Callable[[], Awaitable[Reply]], *, what: str, failed: str = "") -> Reply:
        """Errors a person can act on become a reply with their hint (after `failed`, which says
        what did not happen); anything else goes to the log only."""
        try:
            return await work()
        except UserFacingError as error:
            return Reply(failed + explain(error))
        except Exception:
            log.exception("%s failed", what)
            return Reply(failed + SORRY)

    async def _with_agent(self, chat: Chat, call: Callable[[], Awaitable[Reply]]) -> Reply:
        """One agent run at a time (a queued note when another runs), with a typing indicator."""
        async with self.gate.turn(on_wait=lambda: chat.send(Reply(QUEUED))):
            async with chat.working():
                return await call()

    async def _answer_reply(self, pending: Awaitable[Answer]) -> Reply:
        return Reply(render_answer(await pending))

    async def _save_burst(self, chat_key: str, items: list[Forwarded]) -> None:
        chat, owner_ids = self._burst_chats.pop(chat_key)

        async def work() -> Reply:
            saved = await self.service.forwards.save(items, platform=chat.platform, chat_key=chat_key,
                                                     owner_ids=owner_ids)
            if saved.report is None:
                return Reply(f"The store is busy (another process is writing to it), so your {len(items)} "
                             "forwarded messages wait in the inbox on disk; they are saved as soon as it is free.")
            return Reply(burst_summary(items, saved=saved.report.messages_added, zone=self.service.timezone))

        await chat.send(await self._safely(work, what="saving forwarded messages"))

    def _local(self, moment: datetime) -> str:
        return moment.astimezone(self.service.timezone).strftime("%d %b %Y, %H:%M")

    # ------------------------------------------------------------ one method per command

    @command("help", "what this bot does")
    @command("start", "what this bot does")
    async def _help(self, chat: Chat) -> Reply:
        return Reply(HELP)

    @command("ask", "ask about your life", Param("question", "what you want to know", rest=True),
             example="/ask when did I move to Lisbon?", uses_agent=True)
    async def _ask(self, chat: Chat, *, question: str) -> Reply:
        conversation = f"{chat.platform}:{chat.chat_id}"
        return Reply(render_answer(await self.service.biographer.ask(question, conversation=conversation)))

    @command("remember", "keep something about your life as a dated note",
             Param("text", "what to keep, in your words", rest=True),
             example="/remember I started swimming lessons today")
    async def _remember(self, chat: Chat, *, text: str) -> Reply:
        locator = await self.service.biographer.remember(text)
        return Reply(f"Kept as a dated note ({locator}): questions are not kept, so this is how to tell me "
                     "something about your life without a question.")

    @command("bio", "your profile: a summary here and bio.md as a file")
    async def _bio(self, chat: Chat) -> Reply:
        bio = await self.service.biographer.bio()
        opening = split_message(bio, 1500)[0] if bio.strip() else "The profile is still empty."
        return Reply(opening, files=(File("bio.md", data=bio.encode("utf-8")),))

    @command("timeline", "the dated events of your life so far, as a picture and a list")
    async def _timeline(self, chat: Chat) -> Reply:
        picture = await self.service.pictures.make("timeline")
        return with_picture(picture.caption, picture)

    @command("people", "who you talk to: the people who write most, over time")
    async def _people(self, chat: Chat) -> Reply:
        picture = await self.service.pictures.make("people")
        return with_picture(picture.caption, picture)

    @command("questions", "what the biographer still wants to know")
    async def _questions(self, chat: Chat) -> Reply:
        questions = await self.service.biographer.open_questions()
        return Reply("\n".join(f"#{q.id} {q.text}" for q in questions) or "No open questions right now.")

    @command("report", "a pattern report of the last seven days, with the week at a glance", uses_agent=True)
    async def _report(self, chat: Chat) -> Reply:
        answer = await self.service.report(days=7)
        week = await self.service.pictures.make("week")
        return with_picture(f"{render_answer(answer)}\n\n{week.caption}", week)

    @command("sources", "everything imported, with counts")
    async def _sources(self, chat: Chat) -> Reply:
        sources = await self.service.sources()
        return Reply(sources_text(sources, await self.service.source_policies([s.id for s in sources]),
                                  zone=self.service.timezone))

    @command("forget", "delete a source and everything from it", Param("source", "its number in /sources", type=int),
             example="/forget 12")
    async def _forget(self, chat: Chat, *, source: int) -> Reply:
        found = await self.service.source(source)
        return Reply(f"Delete source #{found.id} {found.name} and everything taken from it? This cannot be undone.",
                     buttons=(Button("Delete it", f"forget:{found.id}"), Button("Keep it", "forget:keep")))

    @command("export", "bio.md and a JSON export of sources and messages")
    async def _export(self, chat: Chat) -> Reply:
        import tempfile

        bio = await self.service.biographer.bio()
        folder = Path(tempfile.mkdtemp(prefix="biographer-export-"))
        path = await self.service.export_sources(folder / "sources.json")
        return Reply("Your profile and every source, as files.",
                     files=(File("bio.md", data=bio.encode("utf-8")),
                            File("sources.json", path=path, temporary=True)))

    @command("stats", "what the memory holds")
    async def _stats(self, chat: Chat) -> Reply:
        return Reply(render_stats(await self.service.memory.stats()))

    @command("pause", "pause scheduled questions and reports")
    async def _pause(self, chat: Chat) -> Reply:
        await self.service.preferences.set_paused(True)
        return Reply("Paused: no scheduled questions or reports until /resume.")

    @command("resume", "resume scheduled questions and reports")
    async def _resume(self, chat: Chat) -> Reply:
        await self.service.preferences.set_paused(False)
        return Reply("Resumed: scheduled questions and reports are on.")

    @command("settings", "show your settings, or change one", Param("key", "the setting to change", required=False),
             Param("value", "its new value", required=False, rest=True), example="/settings quiet_hours 22:00-08:00")
    async def _settings(self, chat: Chat, *, key: str | None = None, value: str | None = None) -> Reply:
        if key and value:
            return Reply("Saved.\n\n" + (await self.service.preferences.set(key, value)).describe())
        if key:
            raise UserFacingError(f"/settings {key} needs a value", hint=BY_NAME["settings"].usage)
        return Reply((await self.service.preferences.load()).describe() + "\n\nChange one with /settings KEY VALUE, e.g. "
                     "/settings quiet_hours 22:00-08:00 or /settings timezone Europe/Lisbon")


    @command("todo", "your promises still open, with their sources",
             Param("person", "only those to this person", required=False, rest=True), example="/todo Ana")
    async def _todo(self, chat: Chat, *, person: str | None = None) -> Reply:
        return await self._ledger("commitment", "Your promises still open", person=person)

    @command("owed", "what others promised you and still owe",
             Param("person", "only what this person owes", required=False, rest=True), example="/owed Rui")
    async def _owed(self, chat: Chat, *, person: str | None = None) -> Reply:
        return await self._ledger("owed", "Owed to you", person=person)

    @command("recs", "what you were recommended and have not done yet",
             Param("what", "a category (book, show, film...) or who recommended it", required=False, rest=True),
             example="/recs book")
    async def _recs(self, chat: Chat, *, what: str | None = None) -> Reply:
        category = what.strip().lower() if what and what.strip().lower() in CATEGORIES else None
        return await self._ledger("recommendation", "Recommended to you, still to do", category=category,
                                  person=None if category else what)

    async def _ledger(self, kind: str, heading: str, *, person: str | None = None,
                      category: str | None = None) -> Reply:
        items = await self.service.ledger.items(LedgerQuery(kinds=(kind,), statuses=OPEN, person=person,
                                                            category=category))
        return Reply(items_text(items, self.service.timezone, heading=heading, sources=2),
                     buttons=ledger_buttons(items[:LEDGER_BUTTONS]))

    @command("who", "a person: relationship, last contact, what is open both ways",
             Param("name", "any of their names", rest=True), example="/who Maya")
    async def _who(self, chat: Chat, *, name: str) -> Reply:
        return Reply(person_text(await self.service.person_page(name), self.service.timezone))


COMMANDS: tuple[Command, ...] = tuple(_REGISTERED)  # every chat command, as the adapters register them
BY_NAME = {c.name: c for c in COMMANDS}

HELP = """I am your biographer. Everything you send me is kept in your own store, with who said it and when.

• Forward messages from any chat: I save them under their original senders and dates.
• Send a chat export or any document (WhatsApp .txt/.zip, Telegram result.json, PDF, notes) and I import it.
• Send a voice note: I transcribe it and keep it as a dated journal entry.
• Send a photo: I keep it with its caption.
• Write to me: I answer from your memories, citing where each fact comes from.
• Reply to one of my questions to answer it.

Commands:
""" + "\n".join(f"/{c.name} – {c.description}" + (f": {c.example}" if c.example else "") for c in COMMANDS)


def ledger_buttons(items: Sequence[LedgerItem]) -> tuple[Button, ...]:
    """Done and Drop for each item (pressed: Commands.press marks it)."""
    return tuple(button for item in items for button in (Button(f"Done #{item.id}", f"ledger:done:{item.id}"),
                                                         Button(f"Drop #{item.id}", f"ledger:dropped:{item.id}")))
