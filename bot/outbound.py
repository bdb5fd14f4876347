"""What the biographer sends on its own (question prompts, reminders, reports, pictures), written
once for every chat front end: the scheduler's Notifier builds the replies here; each adapter only
delivers a reply to its owners' chats and says where it landed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot.replies import File, Reply
from bot.render import render_answer
from core.chat.prompts import PromptBook
from core.types import Answer

QUESTION_PROMPT = "A question for your story:\n\n{text}\n\n(Reply to this message to answer.)"


@dataclass(frozen=True)
class Delivered:
    """Where a reply landed: its chat, and its last message (the one a reply to it names)."""

    chat_id: str
    message_id: str


class OwnerChats(Protocol):
    """A chat front end as the scheduler reaches the owner through it."""

    platform: str

    async def deliver(self, reply: Reply) -> list[Delivered]:
        """Send `reply` into every owner's chat; one Delivered per chat."""
        ...


class Outbound:
    """The scheduler's Notifier (core/schedule/jobs.py) over every running chat front end."""

    def __init__(self, front_ends: Sequence[OwnerChats], prompts: PromptBook) -> None:
        self.front_ends = list(front_ends)
        self.prompts = prompts

    async def _deliver(self, reply: Reply) -> None:
        for front_end in self.front_ends:
            await front_end.deliver(reply)

    async def send_text(self, text: str) -> None:
        await self._deliver(Reply(text))

    async def send_answer(self, answer: Answer) -> None:
        await self._deliver(Reply(render_answer(answer)))

    async def send_picture(self, png: bytes, caption: str, *, name: str = "picture.png") -> None:
        """An image with `caption` (the same in words, for screen readers) as its caption."""
        await self._deliver(Reply(caption, files=(File(name, data=png, picture=True, alt=caption),), captioned=True))

    async def send_question(self, question_id: str, text: str, *, sent_at: datetime) -> None:
        """A question prompt, recorded per chat so that a reply to it answers the question."""
        reply = Reply(QUESTION_PROMPT.format(text=text))
        for front_end in self.front_ends:
            for where in await front_end.deliver(reply):
                await self.prompts.record(question_id=question_id, platform=front_end.platform,
                                          chat_id=where.chat_id, message_id=where.message_id, sent_at=sent_at)
