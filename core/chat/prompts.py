"""Which chat message asked which open question, so a reply to a prompt answers it."""

from __future__ import annotations

from datetime import datetime

from core.times import utc_iso
from storage import frontend_state
from storage.db import Store


class PromptBook:
    """Which chat message asked which open question."""

    def __init__(self, conn: Store) -> None:
        self.conn = conn

    async def record(self, *, question_id: str, platform: str, chat_id: str, message_id: str,
                     sent_at: datetime) -> None:
        """Remember which chat message asked which question, so a reply to it answers it."""
        async with self.conn.transaction():
            await frontend_state.record_prompt(self.conn, question_id=question_id, platform=platform,
                                               chat_id=chat_id, message_id=message_id,
                                               sent_at=utc_iso(sent_at))

    async def question_for_reply(self, *, platform: str, chat_id: str, message_id: str) -> int | None:
        """The open question a chat message asked, if it was a prompt."""
        found = await frontend_state.prompt_question(self.conn, platform=platform, chat_id=chat_id,
                                                     message_id=message_id)
        return int(found) if found is not None else None

    async def sent_since(self, moment: datetime) -> int:
        return await frontend_state.prompts_sent_since(self.conn, utc_iso(moment))
