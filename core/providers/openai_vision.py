"""Image descriptions through an OpenAI-compatible chat endpoint with image input (OpenAI,
OpenRouter, Ollama's llava or qwen2.5-vl, vLLM...). Implements the Describer port."""

from __future__ import annotations

import base64
import mimetypes
from collections.abc import Sequence
from pathlib import Path

import openai

from core.errors import ImportFailed, ModelUnavailable

PROMPT = ("Describe this photo for the owner's private archive, in 2-5 plain sentences: who or what "
          "is in it, where it seems to be, what is happening. Then copy any readable text in it "
          "word for word after 'Text:'. Do not guess names unless they are written in the image"
          "{hints}.")
MAX_BYTES = 20 * 2**20


class OpenAIDescriber:
    def __init__(self, *, base_url: str, api_key: str | None, model: str, timeout: float = 120.0,
                 max_retries: int = 3) -> None:
        self.model = model
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                    timeout=timeout, max_retries=max_retries)

    def describe(self, path: Path, *, hints: Sequence[str] = ()) -> str:
        if path.stat().st_size > MAX_BYTES:
            raise ImportFailed(path.name, "is over 20 MB, too big to send to the vision model",
                               hint="send a smaller copy of the picture")
        mime = mimetypes.guess_type(path.name)[0] or "image/jpeg"
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        known = f" (people and places the owner knows: {', '.join(hints[:30])})" if hints else ""
        try:
            response = self.client.chat.completions.create(
                model=self.model,
                messages=[{"role": "user", "content": [
                    {"type": "text", "text": PROMPT.format(hints=known)},
                    {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}},
                ]}],
            )
        except openai.APIConnectionError:
            raise ModelUnavailable("the vision model's endpoint cannot be reached",
                                   hint="check BIOGRAPHER_LLM_BASE_URL and that the server runs") from None
        except openai.AuthenticationError:
            raise ModelUnavailable("the vision model's endpoint refused the API key",
                                   hint="check BIOGRAPHER_LLM_API_KEY") from None
        except openai.BadRequestError as error:
            raise ImportFailed(path.name, f"was refused by the vision model ({error.message})",
                               hint="check BIOGRAPHER_LLM_VISION_MODEL names a model that reads images") from None
        except openai.APIStatusError as error:
            raise ModelUnavailable(f"the vision model failed (HTTP {error.status_code})",
                                   hint="try again later") from None
        return (response.choices[0].message.content or "").strip()
