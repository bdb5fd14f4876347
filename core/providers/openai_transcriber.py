"""Speech-to-text through an OpenAI-compatible `/v1/audio/transcriptions` endpoint (OpenAI,
Groq, a local whisper.cpp or speaches server...)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import openai

from core.errors import ImportFailed, ModelUnavailable
from core.spelling_hints import initial_prompt


class OpenAITranscriber:
    """Implements the Transcriber port with the `openai` client (blocking; run off the loop)."""

    def __init__(self, *, base_url: str, api_key: str | None, model: str = "whisper-1",
                 language: str | None = None, timeout: float = 600.0,
                 client: openai.OpenAI | None = None) -> None:
        self.model = model
        self.language = language
        self.client = client or openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                              timeout=timeout, max_retries=2)

    def transcribe(self, path: Path, *, hints: Sequence[str] = ()) -> str:
        prompt = initial_prompt(hints)
        extra = {"prompt": prompt} if prompt else {}
        if self.language:
            extra["language"] = self.language
        try:
            with path.open("rb") as audio:
                result = self.client.audio.transcriptions.create(
                    model=self.model, file=(path.name, audio), **extra)
        except openai.APIConnectionError as error:
            raise ModelUnavailable(f"the transcription endpoint cannot be reached ({error})",
                                   hint="check the transcription base URL and that the server runs") from None
        except openai.AuthenticationError:
            raise ModelUnavailable("the transcription endpoint refused the API key",
                                   hint="check the transcription API key") from None
        except openai.BadRequestError as error:
            raise ImportFailed(path.name, f"was refused by the transcription endpoint ({error.message})",
                               hint="convert it to .ogg, .mp3 or .wav and try again") from None
        except openai.APIStatusError as error:
            raise ModelUnavailable(f"the transcription endpoint failed (HTTP {error.status_code})",
                                   hint="try again later, or switch to local transcription") from None
        text = result if isinstance(result, str) else getattr(result, "text", "")
        return (text or "").strip()
