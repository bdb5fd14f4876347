"""Fitting each request into the model's context window. A local model's window is small (Ollama
starts at 2-4k tokens and cuts the front of a longer prompt silently), so before each request the
prompt is measured, and what does not fit is cut here, visibly: the largest cuttable part first
(the chat tail, bio.md, the turn's tool results, new material), each with a note saying so.

Tokens are estimated from UTF-8 bytes, one per three: pessimistic for English (about four
characters a token) and about right for Cyrillic, Greek or CJK text, which tokenizers split finer.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from core.errors import UserFacingError

BYTES_PER_TOKEN = 3
MESSAGE_OVERHEAD = 6  # role markers and separators a chat template adds to each message
MIN_KEPT = 60  # tokens a cut part keeps, so the model still sees what it was


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / BYTES_PER_TOKEN)


def message_tokens(message: dict) -> int:
    calls = message.get("tool_calls") or []
    return (MESSAGE_OVERHEAD + estimate_tokens(message.get("content") or "")
            + sum(estimate_tokens(c["function"]["name"] + c["function"]["arguments"]) for c in calls))


def prompt_tokens(messages: list[dict], tools: list[dict] | None) -> int:
    return sum(map(message_tokens, messages)) + (estimate_tokens(json.dumps(tools)) if tools else 0)


class ContextTooSmall(UserFacingError):
    """Even with everything cuttable cut, the rules, the tools and the question do not fit."""


@dataclass(frozen=True)
class Window:
    context: int  # the model's context window, in tokens
    max_output: int  # tokens reserved for the reply (sent as max_tokens)

    @property
    def prompt(self) -> int:
        return self.context - self.max_output

    def fit(self, messages: list[dict], tools: list[dict] | None, cuttable: set[int]) -> int:
        """Cut messages (by index, in place) until the prompt fits; returns how many were cut."""
        cut = 0
        spent: set[int] = set()  # parts cut as far as they go
        while (excess := prompt_tokens(messages, tools) - self.prompt) > 0:
            sizes = sorted(((estimate_tokens(messages[i].get("content") or ""), i) for i in cuttable - spent),
                           reverse=True)
            if not sizes:
                raise ContextTooSmall(
                    f"the model's context window ({self.context:,} tokens, {self.max_output:,} of them kept for "
                    f"the reply) cannot hold the biographer's rules, tools and this message "
                    f"(about {excess:,} tokens too many)",
                    hint="raise the server's context length (Ollama: OLLAMA_CONTEXT_LENGTH=8192 or more) and set "
                         "BIOGRAPHER_LLM_CONTEXT_TOKENS to match, or ask a shorter question")
            largest, index = sizes[0]
            runner_up = sizes[1][0] if len(sizes) > 1 else 0
            # shrink the largest part by the excess, but not below the next largest: largest first
            target = max(largest - excess, runner_up, MIN_KEPT)
            if target >= largest:  # parts of equal size: a quarter off this one, then the next
                target = max(largest - excess, largest * 3 // 4, MIN_KEPT)
            shorter = shorten(messages[index]["content"], target)
            if estimate_tokens(shorter) >= largest:
                spent.add(index)
                continue
            messages[index] = {**messages[index], "content": shorter}
            cut += 1
        return cut


CUT_NOTE = ("\n[cut here to fit the model's context window: {count:,} more characters not shown; "
            "search or read_source a narrower range to see them]")
_CUT_NOTE_RE = re.compile(
    r"\n\[cut here to fit the model's context window: ([\d,]+) more characters not shown[^\]]*\]$")
_CLOSE = "\n</source>"


def shorten(text: str, tokens: int) -> str:
    """`text` cut to about `tokens` tokens (at a line end where one is near), with a note of what
    was left out. A source block cut open is closed again, so the note is never inside the data."""
    earlier = _CUT_NOTE_RE.search(text)  # cut before: cut the text again, and add up what is left out
    body = text[:earlier.start()] if earlier else text
    before = int(earlier.group(1).replace(",", "")) if earlier else 0
    room = tokens * BYTES_PER_TOKEN - len(CUT_NOTE.format(count=len(text)).encode()) - len(_CLOSE)
    head = body.encode("utf-8")[:max(0, room)].decode("utf-8", errors="ignore")
    if "\n" in head[len(head) // 2:]:
        head = head[:head.rindex("\n")]
    # source text cannot hold either tag (core/agent/delimiters.py), so these are ours
    if head.rfind("<source ") > head.rfind("</source>"):
        head += _CLOSE
    return head + CUT_NOTE.format(count=before + len(body) - len(head))
