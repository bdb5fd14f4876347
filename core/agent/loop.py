"""The tool loop: the model calls tools until it answers or its step budget is spent; then it is
asked once more with tools disabled, so a reply is guaranteed. Mistaken tool calls are answered
with the error, so the model can correct itself, and count against the budget."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from core.agent.tools import Toolbox, ToolError, Turn, tool_schemas
from core.ports import LLM, Completion, Usage

log = logging.getLogger(__name__)

BUDGET_SPENT = ("You have used all {budget} tool calls this run allows, and tools are now off. "
                "Answer now with what you found: cite only locators that tools returned, and say "
                "plainly what you could not check.")
NOT_RUN = "error: not run: the step budget of this run is spent"
EMPTY_ANSWER = "I could not put an answer together this time. Please ask again, perhaps more narrowly."


@dataclass
class LoopResult:
    content: str
    steps: int = 0
    tool_errors: int = 0
    usage: Usage = Usage()
    forced: bool = False  # the budget ran out and the final answer was forced
    calls: list[str] = field(default_factory=list)  # tool names in order, for logs and tests


class ToolLoop:
    def __init__(self, llm: LLM, toolbox: Toolbox, *, role: str, budget: int,
                 tools: tuple[str, ...] | None = None) -> None:
        self.llm = llm
        self.toolbox = toolbox
        self.role = role
        self.budget = budget
        self.schemas = tool_schemas(tools)
        self.allowed = {s["function"]["name"] for s in self.schemas}
        self.result = LoopResult(content="")  # the latest run's, kept so a failed run's usage is recorded

    async def run(self, messages: list[dict], turn: Turn) -> LoopResult:
        """Runs to an answer. `messages` grows with this turn's tool traffic: pass a fresh list."""
        result = self.result = LoopResult(content="")
        while True:
            completion = await self._complete(messages, result, tools=self.schemas)
            if not completion.tool_calls:
                result.content = (completion.content or "").strip() or EMPTY_ANSWER
                return result
            messages.append(_assistant(completion))
            for call in completion.tool_calls:
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": await self._run_call(call, turn, result)})
            if result.steps >= self.budget:
                messages.append({"role": "user", "content": BUDGET_SPENT.format(budget=self.budget)})
                final = await self._complete(messages, result, tools=None)
                result.forced = True
                result.content = (final.content or "").strip() or EMPTY_ANSWER
                return result

    async def _complete(self, messages: list[dict], result: LoopResult, *, tools: list[dict] | None) -> Completion:
        completion = await self.llm.complete(messages, tools=tools or None, role=self.role)
        result.usage = result.usage + completion.usage
        return completion

    async def _run_call(self, call, turn: Turn, result: LoopResult) -> str:
        if result.steps >= self.budget:
            return NOT_RUN
        result.steps += 1
        result.calls.append(call.name)
        try:
            if call.name not in self.allowed:
                raise ToolError(f"unknown tool {call.name!r}; the tools are: {', '.join(sorted(self.allowed))}")
            return await self.toolbox.dispatch(call.name, call.arguments, turn)
        except ToolError as error:
            result.tool_errors += 1
            log.info("tool call %s failed: %s", call.name, error)
            return f"error: {error}"


def _assistant(completion: Completion) -> dict:
    return {
        "role": "assistant",
        "content": completion.content,
        "tool_calls": [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                       for c in completion.tool_calls],
    }
