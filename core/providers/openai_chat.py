"""Chat completions with tool calling from any OpenAI-compatible endpoint (OpenRouter, OpenAI,
Ollama, vLLM, LM Studio).

Retries: the `openai` client itself retries 408/409/429/5xx and connection errors with
exponential backoff (honouring Retry-After), `max_retries` times. What is left after that becomes
a ModelUnavailable that says what to check; the raw error goes to the log only.
"""

from __future__ import annotations

import openai

from core.errors import ModelUnavailable
from core.ports import Completion, ToolCall, Usage
from core.providers.openai_errors import Endpoint, endpoint_errors


class OpenAIChat:
    def __init__(self, *, base_url: str, api_key: str | None, models: dict[str, str],
                 timeout: float = 120.0, max_retries: int = 4) -> None:
        # local servers (Ollama, LM Studio) accept any key, but the client insists on one
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                          timeout=timeout, max_retries=max_retries)
        self._models = models
        self.base_url = base_url

    def model_for(self, role: str) -> str:
        return self._models.get(role) or self._models["chat"]

    async def close(self) -> None:
        await self._client.close()

    async def complete(self, messages: list[dict], *, tools: list[dict] | None = None,
                       model: str | None = None, role: str = "chat") -> Completion:
        name = model or self.model_for(role)
        extra = {"tools": tools, "tool_choice": "auto"} if tools else {}
        endpoint = Endpoint("the model", self.base_url, "BIOGRAPHER_LLM_BASE_URL", "BIOGRAPHER_LLM_API_KEY",
                            name, "BIOGRAPHER_LLM_MODEL (and the analysis/vision models)")
        with endpoint_errors(endpoint, bad_request=lambda _: ModelUnavailable(
                f"the model {name!r} rejected the request",
                hint="pick a model that supports tool calling, and check the context length it allows")):
            response = await self._client.chat.completions.create(model=name, messages=messages, **extra)
        return _completion(response, name)


def _completion(response, name: str) -> Completion:
    if not response.choices:
        raise ModelUnavailable(f"the model {name!r} returned no answer", hint="try again")
    message = response.choices[0].message
    calls = [ToolCall(id=c.id or f"call_{i}", name=c.function.name or "", arguments=c.function.arguments or "")
             for i, c in enumerate(message.tool_calls or []) if getattr(c, "function", None)]
    usage = response.usage
    return Completion(
        content=message.content,
        tool_calls=calls,
        usage=Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else Usage(),
        model=response.model or name,
    )
