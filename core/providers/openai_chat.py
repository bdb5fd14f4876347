"""Chat completions with tool calling from any OpenAI-compatible endpoint (OpenRouter, OpenAI,
Ollama, vLLM, LM Studio, llama.cpp's server).

Retries are ours, not the `openai` client's: the client also retries read timeouts, which sends
the same request again to a one-at-a-time local server that is still working on the first one
(and then on both). Here a timeout is never retried; 429, 5xx (but 504, where the upstream may
still be working) and failed connections are, with exponential backoff honouring Retry-After,
`max_retries` times. What is left after that becomes a ModelUnavailable that says what to check;
the raw error goes to the log only.
"""

from __future__ import annotations

import asyncio
import logging

import openai
from openai.lib.streaming.chat import ChatCompletionStreamState

from core.config import is_local_url

from core.errors import ModelUnavailable
from core.ports import Completion, TextSink, ToolCall, Usage
from core.providers.openai_errors import Endpoint, endpoint_errors

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 15.0  # a server that does not accept the connection in this long is down
MAX_BACKOFF = 30.0
# small local models pad a reply with blank lines up to the length limit (Qwen2.5-Coder-1.5B after
# a fenced tool call: 256 of 256 tokens, some four minutes on a small CPU); no answer needs five
BLANK_RUN = "\n\n\n\n\n"


class OpenAIChat:
    def __init__(self, *, base_url: str, api_key: str | None, models: dict[str, str],
                 timeout: float = 120.0, max_retries: int = 4, stop_blank_runs: bool = False,
                 remote: bool | None = None) -> None:
        # local servers (Ollama, LM Studio) accept any key, but the client insists on one
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                          timeout=openai.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT)),
                                          max_retries=0)
        self._models = models
        self.base_url = base_url
        # what it is shown leaves the machine unless the server is here (the settings decide)
        self.remote = not is_local_url(base_url) if remote is None else remote
        self.timeout = timeout
        self.max_retries = max_retries
        self.forces_tool_calls = True  # until the server refuses tool_choice "required" once
        # only for local servers: some hosted reasoning models refuse a `stop` parameter
        self.stop = [BLANK_RUN] if stop_blank_runs else None

    def model_for(self, role: str) -> str:
        return self._models.get(role) or self._models["chat"]

    async def close(self) -> None:
        await self._client.close()

    async def complete(self, messages: list[dict], *, tools: list[dict] | None = None,
                       model: str | None = None, role: str = "chat", tool_choice: str = "auto",
                       max_tokens: int | None = None, on_text: TextSink | None = None) -> Completion:
        name = model or self.model_for(role)
        request: dict = {"model": name, "messages": messages}
        if on_text is not None:
            request |= {"stream": True, "stream_options": {"include_usage": True}}
        if tools:
            request |= {"tools": tools,
                        "tool_choice": "required" if tool_choice == "required" and self.forces_tool_calls else "auto"}
        if max_tokens:
            request["max_tokens"] = max_tokens
        if self.stop:
            request["stop"] = self.stop
        endpoint = Endpoint("the model", self.base_url, "BIOGRAPHER_LLM_BASE_URL", "BIOGRAPHER_LLM_API_KEY",
                            name, "BIOGRAPHER_LLM_MODEL (and the analysis/vision models)")
        with endpoint_errors(endpoint, bad_request=lambda _: ModelUnavailable(
                f"the model {name!r} rejected the request",
                hint="pick a model that supports tool calling, and check the context length it allows "
                     "(BIOGRAPHER_LLM_CONTEXT_TOKENS)")):
            try:
                response = await self._create(request)
            except (openai.BadRequestError, openai.UnprocessableEntityError):
                if request.get("tool_choice") != "required":
                    raise
                # some servers (older vLLM, LM Studio) refuse "required": ask as "auto" from now on;
                # the agent then checks the reply itself
                log.info("%s refused tool_choice=required; using auto", self.base_url)
                self.forces_tool_calls = False
                response = await self._create(request | {"tool_choice": "auto"})
            if on_text is not None:
                response = await _gathered(response, on_text)
        return _completion(response, name)

    async def _create(self, request: dict):
        for attempt in range(self.max_retries + 1):
            try:
                return await self._client.chat.completions.create(**request)
            except openai.APITimeoutError:
                raise  # the server may still be working on it: never send it twice
            except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError,
                    openai.ConflictError) as error:
                status = getattr(error, "status_code", None)
                if attempt == self.max_retries or status == 504:
                    raise
                delay = _retry_after(error) or min(0.5 * 2 ** attempt, MAX_BACKOFF)
                log.info("model request failed (%s); retry %d of %d in %.1f s",
                         status or type(error).__name__, attempt + 1, self.max_retries, delay)
                await asyncio.sleep(delay)
        raise AssertionError("unreachable")


def _retry_after(error: Exception) -> float | None:
    response = getattr(error, "response", None)
    if response is None:
        return None
    headers = response.headers
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return min(float(headers[key]) * scale, MAX_BACKOFF)
        except (KeyError, ValueError):  # absent, or an HTTP date: fall back to our backoff
            continue
    return None


async def _gathered(stream, on_text: TextSink):
    """A streamed reply put together by the client library's own accumulator (tool calls arrive
    in pieces too), its text handed over as it comes."""
    state = ChatCompletionStreamState()
    async for chunk in stream:
        state.handle_chunk(chunk)
        for choice in chunk.choices[:1]:
            if choice.delta and choice.delta.content:
                on_text(choice.delta.content)
    return state.get_final_completion()


def _completion(response, name: str) -> Completion:
    if not response.choices:
        raise ModelUnavailable(f"the model {name!r} returned no answer", hint="try again")
    choice = response.choices[0]
    message = choice.message
    calls = [ToolCall(id=c.id or f"call_{i}", name=c.function.name or "", arguments=c.function.arguments or "")
             for i, c in enumerate(message.tool_calls or []) if getattr(c, "function", None)]
    usage = response.usage
    return Completion(
        content=message.content,
        tool_calls=calls,
        usage=Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else Usage(),
        model=response.model or name,
        finish_reason=choice.finish_reason or "",
    )
