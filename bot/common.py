"""What both chat front ends share: their dependencies, the command list and the help text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.config import Settings
from core.gate import AgentGate
from core.jobs import PromptBook
from core.preferences import PreferenceStore

COMMANDS: list[tuple[str, str]] = [
    ("start", "what this bot does"),
    ("help", "what this bot does"),
    ("ask", "ask about your life: /ask when did I move to Lisbon?"),
    ("bio", "your profile: a summary here and bio.md as a file"),
    ("timeline", "the dated events of your life so far"),
    ("questions", "what the biographer still wants to know"),
    ("report", "a pattern report of the last seven days"),
    ("sources", "everything imported, with counts"),
    ("forget", "delete a source and everything from it: /forget 12"),
    ("export", "bio.md and a JSON export of sources and messages"),
    ("stats", "what the memory holds"),
    ("pause", "pause scheduled questions and reports"),
    ("resume", "resume scheduled questions and reports"),
    ("settings", "show or change: /settings quiet_hours 22:00-08:00"),
]

HELP = """I am your biographer. Everything you send me is kept in your own store, with who said it and when.

• Forward messages from any chat: I save them under their original senders and dates.
• Send a chat export or any document (WhatsApp .txt/.zip, Telegram result.json, PDF, notes) and I import it.
• Send a voice note: I transcribe it and keep it as a dated journal entry.
• Send a photo: I keep it with its caption.
• Write to me: I answer from your memories, citing where each fact comes from.
• Reply to one of my questions to answer it.

Commands:
""" + "\n".join(f"/{name} – {what}" for name, what in COMMANDS)

QUEUED = "One moment: I'm still working on your previous message; yours is next."
REFUSAL = "This is a private bot. It only talks to its owner."


@dataclass
class FrontendDeps:
    """Built once by `biographer run` and shared by every front end and the scheduler."""

    settings: Settings
    service: Any  # core.service.Service
    preferences: PreferenceStore
    prompts: PromptBook
    gate: AgentGate = field(default_factory=AgentGate)

    @classmethod
    def build(cls, settings: Settings, service: Any) -> FrontendDeps:
        conn = service.memory.conn
        return cls(settings=settings, service=service,
                   preferences=PreferenceStore(conn, settings), prompts=PromptBook(conn))

    @property
    def memory(self) -> Any:
        return self.service.memory
