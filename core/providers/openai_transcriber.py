"""Speech-to-text through an OpenAI-compatible `/v1/audio/transcriptions` endpoint (OpenAI,
Groq, a local whisper.cpp or speaches server...)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import openai

from core.errors import ImportFailed
from core.providers.openai_errors import Endpoint, endpoint_errors
from core.providers.spelling_hints import initial_prompt


class OpenAITranscriber:
    """Implements the Transcriber port with the `openai` client (blocking; run off the loop)."""

    def __init__(self, *, base_url: str, api_key: str | None, model: str = "whisper-1",
                 language: str | None = None, timeout: float = 600.0,
                 client: openai.OpenAI | None = None) -> None:
        self.model = model
        self.language = language
        self._endpoint = Endpoint("the transcription model", base_url, "BIOGRAPHER_TRANSCRIPTION_BASE_URL",
                                  "BIOGRAPHER_TRANSCRIPTION_API_KEY", model, "BIOGRAPHER_TRANSCRIPTION_MODEL")
        self.client = client or openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                              timeout=timeout, max_retries=2)

    def transcribe(self, path: Path, *, hints: Sequence[str] = ()) -> str:
        prompt = initial_prompt(hints)
        extra = {"prompt": prompt} if prompt else {}
        if self.language:
            extra["language"] = self.language
        refused = lambda error: ImportFailed(  # noqa: E731
            path.name, f"was refused by the transcription endpoint ({error.message})",
            hint="convert it to .ogg, .mp3 or .wav and try again")
        with endpoint_errors(self._endpoint, bad_request=refused), path.open("rb") as audio:
            result = self.client.audio.transcriptions.create(model=self.model, file=(path.name, audio), **extra)
        text = result if isinstance(result, str) else getattr(result, "text", "")
        return (text or "").strip()
