"""The OpenAI-compatible client against a real local HTTP server speaking the protocol."""

from __future__ import annotations

import socket
import time

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


async def test_a_streamed_reply_arrives_in_pieces_and_whole(fake_openai: FakeOpenAIServer, llm: OpenAIChat) -> None:
    fake_openai.reply("You moved to Porto in 2021 [doc2:0-40].", pace=0.05)
    pieces: list[tuple[float, str]] = []
    completion = await llm.complete([{"role": "user", "content": "hi"}],
                                    on_text=lambda piece: pieces.append((time.monotonic(), piece)))
    assert fake_openai.requests[0]["stream"] is True
    assert "".join(p for _, p in pieces) == completion.content == "You moved to Porto in 2021 [doc2:0-40]."
    assert len(pieces) == 7 and pieces[-1][0] - pieces[0][0] >= 0.2  # as the server sent them, not at the end
    assert completion.finish_reason == "stop" and completion.usage.prompt_tokens > 0
    assert completion.usage.completion_tokens > 0


async def test_streamed_tool_calls_come_back_as_calls(fake_openai: FakeOpenAIServer, llm: OpenAIChat) -> None:
    fake_openai.calls([("search", {"query": "Porto"}), ("read_source", '{"locator": "doc1:0-')])
    completion = await llm.complete([{"role": "user", "content": "hi"}], on_text=lambda piece: None,
                                    tools=[{"type": "function", "function": {"name": "search", "parameters": {}}}])
    assert [(c.name, c.arguments) for c in completion.tool_calls] == [
        ("search", '{"query": "Porto"}'), ("read_source", '{"locator": "doc1:0-')]  # malformed, as written
    assert not completion.content and completion.finish_reason == "tool_calls"


async def test_a_streamed_request_is_retried_like_any(fake_openai: FakeOpenAIServer, llm: OpenAIChat) -> None:
    fake_openai.fail(503).reply("fine now")
    pieces: list[str] = []
    assert (await llm.complete([{"role": "user", "content": "hi"}], on_text=pieces.append)).content == "fine now"
    assert pieces == ["fine ", "now"] and len(fake_openai.requests) == 2


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
