"""Image descriptions through an OpenAI-compatible chat endpoint with image input (OpenAI,
OpenRouter, Ollama's llava or qwen2.5-vl, vLLM...). Implements the Describer port."""

from __future__ import annotations

import base64
import mimetypes
from collections.abc import Sequence
from pathlib import Path

import openai

from core.errors import ImportFailed
from core.providers.openai_errors import Endpoint, endpoint_errors

PROMPT = ("Describe this photo for the owner's private archive, in 2-5 plain sentences: who or what "
          "is in it, where it seems to be, what is happening. Then copy any readable text in it "
          "word for word after 'Text:'. Do not guess names unless they are written in the image"
          "{hints}.")
MAX_BYTES = 20 * 2**20


class OpenAIDescriber:
    def __init__(self, *, base_url: str, api_key: str | None, model: str, timeout: float = 120.0,
                 max_retries: int = 3) -> None:
        self.model = model
        self._endpoint = Endpoint("the vision model", base_url, "BIOGRAPHER_LLM_BASE_URL",
                                  "BIOGRAPHER_LLM_API_KEY", model, "BIOGRAPHER_LLM_VISION_MODEL")
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                    timeout=timeout, max_retries=max_retries)

    def describe(self, path: Path, *, hints: Sequence[str] = ()) -> str:
        if path.stat().st_size > MAX_BYTES:
            raise ImportFailed(path.name, "is over 20 MB, too big to send to the vision model",
                               hint="send a smaller copy of the picture")
        mime = mimetypes.guess_type(path.name)[0] or "image/jpeg"
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        known = f" (people and places the owner knows: {', '.join(hints[:30])})" if hints else ""
        refused = lambda error: ImportFailed(  # noqa: E731
            path.name, f"was refused by the vision model ({error.message})",
            hint="check BIOGRAPHER_LLM_VISION_MODEL names a model that reads images")
        with endpoint_errors(self._endpoint, bad_request=refused):
            response = self.client.chat.completions.create(
                model=self.model,
                messages=[{"role": "user", "content": [
                    {"type": "text", "text": PROMPT.format(hints=known)},
                    {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}},
                ]}],
            )
        return (response.choices[0].message.content or "").strip()
