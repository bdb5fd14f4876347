"""What a biographer run may do and how much it may use: the agent's configuration, light enough
for the composition root and the CLI to import without loading the agent itself."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timezone, tzinfo

from core.agent.budget import Window

READ_TOOLS = ("search", "grep", "read_source")
# chat reads, and writes only what the owner says (into bio.md and the ledger); analysis and
# folded-in answers write the profile, questions and timeline; a report only reads
CHAT_TOOLS = (*READ_TOOLS, "remember", "edit_profile", "ledger_query", "ledger_save", "ledger_update")
ANALYSIS_TOOLS = (*READ_TOOLS, "edit_profile", "add_open_question", "resolve_open_question", "add_timeline_event")
REPORT_TOOLS = (*READ_TOOLS, "ledger_query")

# a small window: reading, and keeping what the owner states about their life (questions are not kept)
SMALL_CHAT_TOOLS = (*REPORT_TOOLS, "remember")
# below this context window, chat gets the small tool set: every tool's schema costs prompt tokens
SMALL_CONTEXT = 12_000


@dataclass(frozen=True)
class AgentConfig:
    chat_steps: int = 25
    analysis_steps: int = 40
    ingest_steps: int = 60
    chat_tail: int = 6
    batch_chars: int = 24_000
    daily_token_cap: int = 0  # 0: none
    question_repeat_days: int = 7
    owner: str = "the owner"
    zone: tzinfo = timezone.utc
    context_tokens: int = 32_768
    max_output_tokens: int = 1500

    @property
    def window(self) -> Window:
        return Window(self.context_tokens, min(self.max_output_tokens, self.context_tokens // 4))

    @property
    def chat_tools(self) -> tuple[str, ...]:
        return CHAT_TOOLS if self.context_tokens >= SMALL_CONTEXT else SMALL_CHAT_TOOLS


@dataclass(frozen=True)
class AnalysisStatus:
    pending: int  # passages not read into bio.md yet
    last_unread: str | None  # when the latest analysis run left its batch unread (the model made no call)
    note: str = ""
