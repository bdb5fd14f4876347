"""The OpenAI-compatible client against a real local HTTP server speaking the protocol."""

from __future__ import annotations

import socket

import pytest

from core.errors import ModelUnavailable
from core.providers.openai_chat import OpenAIChat
from tests.fakes.openai_server import FakeOpenAIServer


async def test_tool_calls_and_usage_come_back(fake_openai: FakeOpenAIServer, llm: OpenAIChat) -> None:
    fake_openai.call("search", {"query": "Porto"}, content="let me look")
    completion = await llm.complete([{"role": "user", "content": "hi"}],
                                    tools=[{"type": "function", "function": {"name": "search", "parameters": {}}}],
                                    role="analysis")
    assert completion.content == "let me look"
    assert [(c.name, c.arguments) for c in completion.tool_calls] == [("search", '{"query": "Porto"}')]
    assert completion.usage.prompt_tokens > 0 and completion.usage.completion_tokens > 0
    assert fake_openai.requests[0]["model"] == "fake-analysis"
    assert fake_openai.requests[0]["tool_choice"] == "auto"


async def test_server_errors_are_retried(fake_openai: FakeOpenAIServer, llm: OpenAIChat) -> None:
    fake_openai.fail(500).fail(429).reply("fine now")
    completion = await llm.complete([{"role": "user", "content": "hi"}])
    assert completion.content == "fine now"
    assert len(fake_openai.requests) == 3


async def test_rate_limit_after_retries_says_what_to_do(fake_openai: FakeOpenAIServer, llm: OpenAIChat) -> None:
    fake_openai.fail(429).fail(429).fail(429)
    with pytest.raises(ModelUnavailable) as error:
        await llm.complete([{"role": "user", "content": "hi"}])
    assert "rate limiting" in error.value.message and error.value.hint


async def test_wrong_key_is_named() -> None:
    with FakeOpenAIServer(api_key="right") as server:
        client = OpenAIChat(base_url=server.base_url, api_key="wrong", models={"chat": "m"}, max_retries=0)
        with pytest.raises(ModelUnavailable) as error:
            await client.complete([{"role": "user", "content": "hi"}])
        await client.close()
    assert "API key" in error.value.message
    assert "BIOGRAPHER_LLM_API_KEY" in error.value.hint


async def test_endpoint_down_is_named() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = OpenAIChat(base_url=f"http://127.0.0.1:{port}/v1", api_key="k", models={"chat": "m"}, max_retries=0)
    with pytest.raises(ModelUnavailable) as error:
        await client.complete([{"role": "user", "content": "hi"}])
    await client.close()
    assert "cannot reach" in error.value.message
    assert "BIOGRAPHER_LLM_BASE_URL" in error.value.hint
