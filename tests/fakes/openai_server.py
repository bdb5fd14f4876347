"""A scripted OpenAI-compatible server on 127.0.0.1, for testing the real `openai` client.

Queue replies (plain answers, tool calls, HTTP errors); every request body is recorded. Usage is
reported as the real APIs do, estimated at 4 characters per token of the JSON the model would
read (messages and tool schemas) and of what it writes: good enough to compare prompts.

    with FakeOpenAIServer() as server:
        server.call("search", {"query": "Lisbon"})
        server.reply("You moved to Lisbon in 2019 [doc1:0-120].")
        llm = OpenAIChat(base_url=server.base_url, api_key="test", models={"chat": "fake"})

It can also behave as real servers do that the agent must cope with: refuse `tool_choice:
"required"` (`reject_required`), refuse a prompt longer than its context (`context_tokens`), cut
a reply at the request's `max_tokens` (finish_reason "length"), write a tool call as plain text
in a chat template's markup (`text_call`), or take its time (`delay`). Asked to stream
(`"stream": true`), it sends the reply as server-sent events, a word at a time (`pace`).
"""

from __future__ import annotations

import itertools
import json
import math
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


@dataclass
class Scripted:
    status: int = 200
    content: str | None = None
    tool_calls: list[tuple[str, str]] = field(default_factory=list)  # (name, raw arguments)
    error: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    finish_reason: str | None = None  # None: "tool_calls" or "stop", or "length" when cut at max_tokens
    delay: float = 0.0  # seconds to wait before answering
    pace: float = 0.0  # streamed: seconds between the reply's words


class FakeOpenAIServer:
    def __init__(self, *, api_key: str | None = None, model: str = "fake-model", reject_required: bool = False,
                 context_tokens: int | None = None) -> None:
        self.api_key = api_key  # when set, other keys get a 401 like the real APIs
        self.model = model
        self.reject_required = reject_required  # answer tool_choice "required" with a 400, as some servers do
        self.context_tokens = context_tokens  # refuse longer prompts with a 400, as vLLM and OpenAI do
        self.script: deque[Scripted] = deque()
        self.requests: list[dict] = []  # every chat request body, in order
        self.usage: list[dict] = []  # the usage reported for each answered request
        self.unscripted = 0  # requests that found the queue empty
        self.embedding_requests: list[dict] = []
        self._ids = itertools.count(1)
        self._pace = 0.0  # of the latest answer (streamed answers are sent one at a time here)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # ---------------------------------------------------------- scripting

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def reply(self, content: str, *, finish_reason: str | None = None, delay: float = 0.0,
              pace: float = 0.0) -> FakeOpenAIServer:
        """A plain answer; asked to stream, it is sent a word at a time, `pace` seconds apart."""
        self.script.append(Scripted(content=content, finish_reason=finish_reason, delay=delay, pace=pace))
        return self

    def text_call(self, name: str, arguments: dict, *, style: str = "qwen", prefix: str = "") -> FakeOpenAIServer:
        """A tool call written as text in the reply, as small models do: Qwen/Hermes markup or bare JSON."""
        call = json.dumps({"name": name, "arguments": arguments})
        return self.reply(prefix + (f"<tool_call>\n{call}\n</tool_call>" if style == "qwen" else call))

    def call(self, name: str, arguments: dict | str, *, content: str | None = None) -> FakeOpenAIServer:
        """One tool call; `arguments` as a dict, or a raw string to script malformed JSON."""
        return self.calls([(name, arguments)], content=content)

    def calls(self, calls: list[tuple[str, dict | str]], *, content: str | None = None) -> FakeOpenAIServer:
        raw = [(n, a if isinstance(a, str) else json.dumps(a)) for n, a in calls]
        self.script.append(Scripted(content=content, tool_calls=raw))
        return self

    def fail(self, status: int, message: str = "scripted failure", *,
             retry_after_ms: int | None = 1) -> FakeOpenAIServer:
        headers = {"retry-after-ms": str(retry_after_ms)} if retry_after_ms is not None else {}
        self.script.append(Scripted(status=status, error=message, headers=headers))
        return self

    # ---------------------------------------------------------- lifecycle

    def start(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---------------------------------------------------------- serving

    def _answer(self, body: dict) -> tuple[int, dict, dict[str, str]]:
        with self._lock:
            self.requests.append(body)
            prompt = estimate_tokens(json.dumps(body.get("messages", []), ensure_ascii=False)
                                     + json.dumps(body.get("tools", []), ensure_ascii=False))
            if self.reject_required and body.get("tool_choice") == "required":
                return 400, _error("tool_choice 'required' is not supported", "invalid_request_error"), {}
            if self.context_tokens and prompt + (body.get("max_tokens") or 0) > self.context_tokens:
                return 400, _error(f"This model's maximum context length is {self.context_tokens} tokens; "
                                   f"the request has {prompt}", "context_length_exceeded"), {}
            step = self.script.popleft() if self.script else None
            if step is None:
                self.unscripted += 1
                return 400, _error("fake server: no scripted reply left", "invalid_request_error"), {}
        time.sleep(step.delay)  # outside the lock: other requests are answered meanwhile
        with self._lock:
            if step.status != 200:
                return step.status, _error(step.error, "server_error"), step.headers
            calls = [{"id": f"call_{next(self._ids)}", "type": "function",
                      "function": {"name": n, "arguments": a}} for n, a in step.tool_calls]
            content, finish = step.content, step.finish_reason or ("tool_calls" if calls else "stop")
            cap = body.get("max_tokens")
            if cap and content and estimate_tokens(content) > cap:  # cut as a real server does
                content, finish = content[:cap * 4], "length"
            written = estimate_tokens((content or "") + "".join(n + a for n, a in step.tool_calls))
            usage = {"prompt_tokens": prompt, "completion_tokens": written, "total_tokens": prompt + written}
            self.usage.append(usage)
            message: dict = {"role": "assistant", "content": content}
            if calls:
                message["tool_calls"] = calls
            self._pace = step.pace
            return 200, {
                "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0,
                "model": body.get("model", self.model),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            }, {}

    def _embeddings(self, body: dict) -> dict:
        """Deterministic vectors (the tests' hashed bag of words), listed in reverse order: the
        API numbers them by `index`, and clients must not rely on the order."""
        from tests.fakes.embedder import HashEmbedder

        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        with self._lock:
            self.embedding_requests.append(body)
        vectors = HashEmbedder().embed(texts) * 3.0  # not unit length: clients normalise
        data = [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
        return {"object": "list", "data": data[::-1], "model": body.get("model", self.model),
                "usage": {"prompt_tokens": sum(estimate_tokens(t) for t in texts),
                          "total_tokens": sum(estimate_tokens(t) for t in texts)}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def _send(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                    pass

            def _stream(self, whole: dict, pace: float) -> None:
                """The answer as server-sent events, as the OpenAI API streams one: the role, the
                text a word at a time, each tool call, the finish reason, then the usage alone."""
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                choice = whole["choices"][0]
                message = choice["message"]
                head = {k: whole[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
                deltas: list[dict] = [{"role": "assistant", "content": ""}]
                deltas += [{"content": word} for word in re.findall(r"\s*\S+\s*", message["content"] or "")]
                deltas += [{"tool_calls": [{"index": i, **call}]} for i, call in enumerate(message.get("tool_calls", []))]
                try:
                    for n, delta in enumerate(deltas):
                        if n > 1 and "content" in delta:
                            time.sleep(pace)
                        self._event(head | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
                    self._event(head | {"choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]})
                    self._event(head | {"choices": [], "usage": whole["usage"]})
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _event(self, payload: dict) -> None:
                self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")
                self.wfile.flush()

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": fake.model, "object": "model"}]})
                else:
                    self._send(404, _error(f"no route {self.path}", "not_found"))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if fake.api_key and self.headers.get("Authorization") != f"Bearer {fake.api_key}":
                    self._send(401, _error("Incorrect API key provided", "invalid_api_key"))
                elif self.path.rstrip("/").endswith("/chat/completions"):
                    status, payload, headers = fake._answer(body)
                    if body.get("stream") and status == 200:
                        self._stream(payload, fake._pace)
                    else:
                        self._send(status, payload, headers)
                elif self.path.rstrip("/").endswith("/embeddings"):
                    self._send(200, fake._embeddings(body))
                else:
                    self._send(404, _error(f"no route {self.path}", "not_found"))

        return Handler


def _error(message: str, kind: str) -> dict:
    return {"error": {"message": message, "type": kind, "code": kind}}
