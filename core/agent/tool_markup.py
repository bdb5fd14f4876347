"""Tool calls that arrive as plain text. Small and local models often write the markup of their
chat template instead of a native call (`<tool_call>{"name": ..., "arguments": ...}</tool_call>`
from Qwen and Hermes, a bare JSON object, `[TOOL_CALLS]` from Mistral), or leave stray tags
(`<tools></tools>`) when they mean no call at all. Such text is a call, or nothing: never an
answer shown to the owner."""

from __future__ import annotations

import json
import re
from collections.abc import Collection

from core.ports import Completion, ToolCall

_TAGGED_RE = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL | re.IGNORECASE)
_FUNCTION_RE = re.compile(r"<function=([\w.-]+)>\s*(\{.*?\})\s*</function>", re.DOTALL)
_FENCE_RE = re.compile(r"^```(?:json|tool_call|tool_code)?\s*(.*?)\s*(?:```|$)", re.DOTALL | re.IGNORECASE)
# markup left behind once the calls are taken out, or written with no call at all
_STRAY_RE = re.compile(r"</?\s*(?:tools|tool_call|tool_calls|tool_response|function_calls?)\s*/?>|\[TOOL_CALLS\]",
                       re.IGNORECASE)


def _call(obj: object, n: int, tools: Collection[str], *, tagged: bool) -> ToolCall | None:
    """A call from {"name", "arguments"|"parameters"}; untagged JSON only when it names a tool."""
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        return None
    function = obj.get("function")
    if isinstance(function, dict) and "name" in function:  # {"type": "function", "function": {...}}
        obj = function
    name = obj["name"]
    if not tagged and name not in tools:
        return None
    arguments = obj.get("arguments", obj.get("parameters", {}))
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return ToolCall(id=f"text_call_{n}", name=name, arguments=arguments)


_ENVELOPE_KEYS = frozenset({"name", "function", "tool", "type", "arguments", "parameters"})


def unwrapped_arguments(args: object) -> object:
    """Arguments that repeat the call's own envelope, `{"function": "record_ledger", "arguments":
    {...}}`, as small models write inside a native call (Qwen2.5-Coder-1.5B did), are the inner
    object; anything else is returned as it is."""
    if not isinstance(args, dict) or not set(args) <= _ENVELOPE_KEYS:
        return args
    inner = args.get("arguments", args.get("parameters"))
    if isinstance(inner, str):
        try:
            inner = json.loads(inner)
        except json.JSONDecodeError:
            return args
    return inner if isinstance(inner, dict) else args


def _json(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return _repaired(text)


def _repaired(text: str) -> object:
    """A JSON object cut short (a reply that hit its length limit mid-call), closed after its last
    complete member: `{"name": "search", "arguments": {"query": "x", "lim` reads as the call
    with the query. None when no prefix of it closes into JSON."""
    text = text.strip()
    if not text.startswith(("{", "[")):
        return None
    cuts = [len(text)] + [i for i, char in enumerate(text) if char in ",{["][::-1]
    for cut in cuts[:200]:
        head = text[:cut].rstrip().rstrip(",")
        closing = _closers(head)
        if closing is None:
            continue
        try:
            return json.loads(head + closing)
        except json.JSONDecodeError:
            continue
    return None


def _closers(head: str) -> str | None:
    """The brackets that close `head`, or None when it ends inside a string."""
    chars, open_string = _outside_strings(head)
    if open_string:
        return None
    stack: list[str] = []
    for _, char in chars:
        if char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]" and stack:
            stack.pop()
    return "".join(reversed(stack))


def _outside_strings(text: str, start: int = 0) -> tuple[list[tuple[int, str]], bool]:
    """(index, character) of what lies outside JSON strings from `start`, and whether the text
    ends inside one."""
    out, in_string, escaped = [], False, False
    for i in range(start, len(text)):
        char = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        else:
            out.append((i, char))
    return out, in_string


def parse_text_calls(content: str, tools: Collection[str]) -> tuple[list[ToolCall], str]:
    """(calls found in `content`, the text that is left). The text is stripped of tool markup."""
    calls: list[ToolCall] = []
    rest = content
    for match in _TAGGED_RE.finditer(content):
        parsed = _json(match.group(1))
        for obj in parsed if isinstance(parsed, list) else [parsed]:
            call = _call(obj, len(calls), tools, tagged=True)
            if call is None and match.group(1).strip():
                # tagged but not JSON we can read: still a call, whose broken arguments go back to the model
                call = ToolCall(id=f"text_call_{len(calls)}", name=_guess_name(match.group(1)),
                                arguments=match.group(1))
            if call:
                calls.append(call)
        rest = rest.replace(match.group(0), "")
    for match in _FUNCTION_RE.finditer(rest):
        calls.append(ToolCall(id=f"text_call_{len(calls)}", name=match.group(1), arguments=match.group(2)))
        rest = rest.replace(match.group(0), "")
    if not calls:
        body = rest.replace("[TOOL_CALLS]", "").strip()
        fenced = _FENCE_RE.match(body)
        parsed = _json(fenced.group(1) if fenced else body)
        for obj in parsed if isinstance(parsed, list) else [parsed]:
            call = _call(obj, len(calls), tools, tagged="[TOOL_CALLS]" in rest)
            if call:
                calls.append(call)
        if calls:
            rest = ""
    if not calls:  # a call inside prose: "To answer this, let me search: ```json {"name": ...} ``` ..."
        embedded = _embedded_objects(rest, tools)
        calls += [_call(obj, n, tools, tagged=False) for n, (_, _, obj) in enumerate(embedded)]
        for start, end, _ in reversed(embedded):
            rest = rest[:start] + rest[end:]
        rest = _EMPTY_FENCE_RE.sub("", rest) if calls else rest
    return calls, _STRAY_RE.sub("", rest).strip()


_EMBEDDED_RE = re.compile(r'\{\s*"name"\s*:\s*"([\w.-]+)"')
_EMPTY_FENCE_RE = re.compile(r"```(?:json|tool_call|tool_code)?\s*(?:```|$)", re.IGNORECASE)


def _embedded_objects(text: str, tools: Collection[str]) -> list[tuple[int, int, dict]]:
    """(start, end, object) of the JSON objects naming an offered tool inside other text, in
    order; one cut off by the end of the text is repaired."""
    found = []
    for match in _EMBEDDED_RE.finditer(text):
        if match.group(1) not in tools or (found and match.start() < found[-1][1]):
            continue
        end = _object_end(text, match.start())
        parsed = _json(text[match.start():end])
        if isinstance(parsed, dict):
            found.append((match.start(), end, parsed))
    return found


def _object_end(text: str, start: int) -> int:
    """Where the JSON object opening at `start` closes (or the end of the text, if it never does)."""
    depth = 0
    for i, char in _outside_strings(text, start)[0]:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _guess_name(text: str) -> str:
    match = re.search(r'"name"\s*:\s*"([^"]+)"', text)
    return match.group(1) if match else "unreadable_tool_call"


def with_text_calls(completion: Completion, tools: Collection[str]) -> Completion:
    """The completion with any text-markup calls made native, and its text cleaned."""
    if completion.tool_calls or not completion.content:
        return completion
    calls, rest = parse_text_calls(completion.content, tools)
    if not calls and rest == completion.content.strip():
        return completion
    return Completion(content=rest or None, tool_calls=calls, usage=completion.usage, model=completion.model,
                      finish_reason=completion.finish_reason)
