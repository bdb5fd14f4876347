"""Chat completions with tool calling from any OpenAI-compatible endpoint (OpenRouter, OpenAI,
Ollama, vLLM, LM Studio).

Retries: the `openai` client itself retries 408/409/429/5xx and connection errors with
exponential backoff (honouring Retry-After), `max_retries` times. What is left after that becomes
a ModelUnavailable that says what to check; the raw error goes to the log only.
"""

from __future__ import annotations

import logging

import openai

from core.errors import ModelUnavailable
from core.ports import Completion, ToolCall, Usage

log = logging.getLogger(__name__)


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
        try:
            response = await self._client.chat.completions.create(model=name, messages=messages, **extra)
        except openai.AuthenticationError as error:
            log.info("model endpoint refused the key: %s", error)
            raise ModelUnavailable("the model endpoint refused the API key",
                                   hint="check BIOGRAPHER_LLM_API_KEY") from None
        except openai.APITimeoutError as error:
            log.info("model endpoint timed out: %s", error)
            raise ModelUnavailable(f"the model at {self.base_url} did not answer in time",
                                   hint="try again, or raise BIOGRAPHER_LLM_TIMEOUT_SECONDS") from None
        except openai.APIConnectionError as error:
            log.info("cannot reach model endpoint: %s", error)
            raise ModelUnavailable(f"cannot reach the model at {self.base_url}",
                                   hint="check BIOGRAPHER_LLM_BASE_URL and that the server is running") from None
        except openai.RateLimitError as error:
            log.info("model endpoint rate limit: %s", error)
            raise ModelUnavailable("the model endpoint is rate limiting us, even after retries",
                                   hint="wait a few minutes, or check the account's limits and credit") from None
        except openai.NotFoundError as error:
            log.info("model not found: %s", error)
            raise ModelUnavailable(f"the endpoint does not serve the model {name!r}",
                                   hint="check BIOGRAPHER_LLM_MODEL (and the analysis/vision models)") from None
        except openai.BadRequestError as error:
            log.info("model endpoint rejected the request: %s", error)
            raise ModelUnavailable(f"the model {name!r} rejected the request",
                                   hint="pick a model that supports tool calling, "
                                        "and check the context length it allows") from None
        except openai.APIStatusError as error:
            log.info("model endpoint error %s: %s", error.status_code, error)
            raise ModelUnavailable(f"the model endpoint failed (HTTP {error.status_code})",
                                   hint="try again later; the provider's status page may say more") from None
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
