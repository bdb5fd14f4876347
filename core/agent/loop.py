"""The tool loop: the model calls tools until it answers or its step budget is spent; then it is
asked once more with tools disabled, so a reply is guaranteed. Mistaken tool calls are answered
with the error, so the model can correct itself, and count against the budget.

Whatever the model, nothing unchecked passes as checked: the first request asks for a tool call
(`tool_choice: "required"` where the server accepts it); tool-call markup written as text is
run as the call it is; a reply that rests on no tool call and cites nothing gets one nudge to
look first, and the caller labels it if it still does not. Every request is fitted into the
model's context window, and a reply cut at the output limit is continued once or marked cut."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from core.agent.budget import Window
from core.agent.schemas import SCHEMAS, ToolError
from core.agent.tool_markup import with_text_calls
from core.agent.tools import Toolbox, Turn
from core.ports import LLM, Completion, Usage

log = logging.getLogger(__name__)

BUDGET_SPENT = ("You have used all {budget} tool calls this run allows, and tools are now off. "
                "Answer now with what you found: cite only locators that tools returned, and say "
                "plainly what you could not check.")
NUDGE = ("You replied without calling a tool, so nothing in that reply was checked against the owner's "
         "sources. Call a tool now (search, grep or read_source to look; the others to record), as a real "
         "tool call rather than text, and then reply citing the locators the tools return.")
CONTINUE = "Your reply was cut off at the length limit. Continue exactly where it stopped, without repeating."
CUT_MARK = "\n\n[…the model's reply was cut off here at its length limit]"
NOT_RUN = "error: not run: the step budget of this run is spent"
EMPTY_ANSWER = "I could not put an answer together this time. Please ask again, perhaps more narrowly."


@dataclass
class LoopResult:
    content: str
    steps: int = 0
    tool_errors: int = 0
    usage: Usage = Usage()
    forced: bool = False  # the budget ran out and the final answer was forced
    truncated: bool = False  # the final reply was cut at the output limit, even after asking to go on
    nudged: bool = False  # the model answered without a tool call once and was asked to look first
    calls: list[str] = field(default_factory=list)  # tool names in order, for logs and tests
    requests: int = 0

    @property
    def successful_calls(self) -> int:
        return self.steps - self.tool_errors


# a reply with no tool call that this says needs evidence gets the nudge (once)
NeedsEvidence = Callable[[str], bool]


class Watcher(Protocol):
    """Sees a run as it happens (the page shows it): each reply starting, its text as the model
    writes it (a reply that turns into tool calls, or is sent back for a nudge, is no answer: the
    next `reply` says to forget it), and each tool call before it runs. The answer itself, with
    its citations checked, is what the run returns."""

    def reply(self) -> None: ...

    def text(self, piece: str) -> None: ...

    def step(self, name: str, arguments: str) -> None: ...


class ToolLoop:
    def __init__(self, llm: LLM, toolbox: Toolbox, *, role: str, budget: int, schemas: list[dict],
                 window: Window | None = None, needs_evidence: NeedsEvidence | None = None,
                 watcher: Watcher | None = None) -> None:
        self.llm = llm
        self.watcher = watcher
        self.toolbox = toolbox
        self.role = role
        self.budget = budget
        self.schemas = {s["function"]["name"]: s for s in schemas}
        self.window = window
        self.needs_evidence = needs_evidence
        self.result = LoopResult(content="")  # the latest run's, kept so a failed run's usage is recorded

    async def run(self, messages: list[dict], turn: Turn, *, cuttable: set[int] = frozenset()) -> LoopResult:
        """Runs to an answer. `messages` grows with this turn's tool traffic: pass a fresh list.
        `cuttable` are the indexes of messages that may be cut to fit the context window."""
        result = self.result = LoopResult(content="")
        cuttable = set(cuttable)
        tools = list(self.schemas.values())
        force = True
        while True:
            completion = await self._complete(messages, result, tools=tools, cuttable=cuttable,
                                              tool_choice="required" if force else "auto")
            # any of the agent's tool names counts, offered or not: an unoffered one is answered
            # with the list of tools, instead of reaching the owner as text
            completion = with_text_calls(completion, SCHEMAS.keys() | self.schemas.keys())
            force = False
            if not completion.tool_calls:
                text, result.truncated = await self._whole_text(messages, completion, result, cuttable)
                if (self.needs_evidence and not result.nudged and result.successful_calls == 0
                        and not result.forced and self.needs_evidence(text)):
                    result.nudged = force = True
                    messages += [{"role": "assistant", "content": text or "(no reply)"},
                                 {"role": "user", "content": NUDGE}]
                    continue
                result.content = _own_words_removed(text) or EMPTY_ANSWER
                return result
            messages.append(_assistant(completion))
            for call in completion.tool_calls:
                cuttable.add(len(messages))
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": await self._run_call(call, turn, result)})
            if result.steps >= self.budget:
                messages.append({"role": "user", "content": BUDGET_SPENT.format(budget=self.budget)})
                final = await self._complete(messages, result, tools=None, cuttable=cuttable)
                result.forced = True
                text, result.truncated = await self._whole_text(messages, final, result, cuttable)
                result.content = _own_words_removed(text) or EMPTY_ANSWER
                return result

    async def _complete(self, messages: list[dict], result: LoopResult, *, tools: list[dict] | None,
                        cuttable: set[int], tool_choice: str = "auto", continuing: bool = False) -> Completion:
        """One request. `continuing`: it goes on with the reply before it (a watcher sees one text)."""
        if self.window is not None:
            if self.window.fit(messages, tools, cuttable):
                log.info("%s run: prompt cut to fit a %d-token context", self.role, self.window.context)
        if self.watcher is not None and not continuing:
            self.watcher.reply()
        completion = await self.llm.complete(messages, tools=tools or None, role=self.role, tool_choice=tool_choice,
                                             max_tokens=self.window.max_output if self.window else None,
                                             on_text=self.watcher.text if self.watcher else None)
        result.requests += 1
        result.usage = result.usage + completion.usage
        return completion

    async def _whole_text(self, messages: list[dict], completion: Completion, result: LoopResult,
                          cuttable: set[int]) -> tuple[str, bool]:
        """The reply's text; one that hit the output limit is continued once, else marked cut."""
        text = completion.content or ""
        if not completion.truncated:
            return text, False
        if text.strip():
            messages += [{"role": "assistant", "content": text}, {"role": "user", "content": CONTINUE}]
            more = await self._complete(messages, result, tools=None, cuttable=cuttable, continuing=True)
            text += more.content or ""
            if not more.truncated:
                return text, False
        log.info("%s run: the reply was cut at the output limit", self.role)
        return text + CUT_MARK, True

    async def _run_call(self, call, turn: Turn, result: LoopResult) -> str:
        if result.steps >= self.budget:
            return NOT_RUN
        result.steps += 1
        result.calls.append(call.name)
        if self.watcher is not None:
            self.watcher.step(call.name, call.arguments)
        try:
            schema = self.schemas.get(call.name)
            if schema is None:
                raise ToolError(f"unknown tool {call.name!r}; the tools are: {', '.join(sorted(self.schemas))}")
            return await self.toolbox.dispatch(schema, call.arguments, turn)
        except ToolError as error:
            result.tool_errors += 1
            log.info("tool call %s failed: %s", call.name, error)
            return f"error: {error}"


def _own_words_removed(text: str) -> str:
    """The reply without our own instructions in it: a small model may echo the nudge back as its
    answer (Qwen2.5-Coder-1.5B did), and that is no answer."""
    for ours in (NUDGE, CONTINUE, BUDGET_SPENT.split("{budget}")[0]):
        text = text.replace(ours, "")
    return text.strip()


def _assistant(completion: Completion) -> dict:
    return {
        "role": "assistant",
        "content": completion.content,
        "tool_calls": [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                       for c in completion.tool_calls],
    }
