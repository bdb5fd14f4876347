"""onnxruntime's graph optimisations done once: the optimised graph saved in the user cache and
loaded afterwards with the optimisations off.

Creating a session of the fused MiniLM graph spends most of its 0.2-0.3 s in onnxruntime's own
optimisations, folding the int8 weights into floats first among them; the saved graph (its 90 MB
of float weights in a file of their own, which onnxruntime maps into memory) loads in a fifth of
that. It is the graph the optimising session runs, so the vectors are the same bit for bit: that
is checked on probe texts before a copy is kept, and anything that fails leaves the optimising
session in use.

Saved at ORT_ENABLE_EXTENDED, the level onnxruntime documents as free of optimisations for the
processor at hand (ALL adds only NCHWc layouts for convolutions, which this graph has none of);
named by the graph's digest and onnxruntime's version, whose optimiser made it."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from core.providers.onnx_rewrite import remembered_sha256, writable_cache

log = logging.getLogger(__name__)

SAVED_VERSION = 1
GRAPH, WEIGHTS, CHECK = "model.onnx", "model.weights", "probe.npy"
# how close a load's probe vectors must be to those saved with the copy: a processor with other
# kernels (a Docker image built elsewhere) moves them by about 1e-7, a damaged weights file to NaN
PROBE_COSINE = 0.99999


def saved_folder(model_file: Path, cache: Path, onnxruntime) -> Path:
    digest = remembered_sha256(model_file, cache)[:16]
    return cache / f"{model_file.stem}-{digest}-ort{onnxruntime.__version__}-saved{SAVED_VERSION}"


def optimised_session(onnxruntime, model_file: Path, cache: Path, *, options: Callable[[], object],
                      same_vectors: Callable[[object, object], bool], probe: Callable[[object], np.ndarray]):
    """A session of model_file as `options()` makes it (with every optimisation), loaded from the
    saved optimised graph when there is one; otherwise made, and the graph saved for next time.
    same_vectors(session, candidate) compares two sessions' vectors; probe(session) is a session's
    unit vectors of a few short texts, saved with the graph and compared at each load (a weights
    file damaged in place loads without an error and gives NaNs)."""
    folder = saved_folder(model_file, cache, onnxruntime)
    saved = _load_saved(onnxruntime, folder, options, probe)
    if saved is not None:
        return saved
    session = onnxruntime.InferenceSession(str(model_file), options(), providers=["CPUExecutionProvider"])
    if not writable_cache(folder.parent):  # nowhere to keep it: the session optimises at each start
        log.info("the model cache %s cannot be written: the embedding graph is optimised at each start", folder.parent)
        return session
    try:
        _save(onnxruntime, model_file, folder, options, lambda candidate: same_vectors(session, candidate),
              probe)
    except Exception as exc:  # noqa: BLE001 - no copy: every load optimises, as before
        log.warning("could not save the optimised embedding graph (%s)", exc)
    return session


def _load_saved(onnxruntime, folder: Path, options: Callable[[], object], probe: Callable[[object], np.ndarray]):
    """The saved graph's session, or None when there is none or it is damaged (then removed, to be
    made again as before there was one)."""
    try:
        if not (folder / GRAPH).exists():
            return None
        if not (folder / CHECK).exists():  # saved by a version that did not record its vectors
            log.info("the saved embedding graph in %s has no digest of its vectors: saving it again", folder)
            shutil.rmtree(folder, ignore_errors=True)
            return None
        recorded = np.load(folder / CHECK, allow_pickle=False)
        session = onnxruntime.InferenceSession(str(folder / GRAPH), _unoptimised(onnxruntime, options()),
                                               providers=["CPUExecutionProvider"])
        if _close(probe(session), recorded):
            return session
        log.warning("the saved embedding graph gives other vectors than when it was saved: optimising the model again")
    except Exception as exc:  # noqa: BLE001 - a damaged or unreadable copy
        log.warning("could not load the saved embedding graph (%s): optimising the model again", exc)
    shutil.rmtree(folder, ignore_errors=True)
    return None


def _save(onnxruntime, model_file: Path, folder: Path, options: Callable[[], object],
          same_vectors: Callable[[object], bool], probe: Callable[[object], np.ndarray]) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    # written in a folder of its own and renamed into place: another process never reads half a copy
    partial = Path(tempfile.mkdtemp(dir=folder.parent, suffix=".partial"))
    try:
        saving = options()
        saving.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        saving.optimized_model_filepath = str(partial / GRAPH)
        saving.add_session_config_entry("session.optimized_model_external_initializers_file_name", WEIGHTS)
        saving.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
        onnxruntime.InferenceSession(str(model_file), saving, providers=["CPUExecutionProvider"])
        candidate = onnxruntime.InferenceSession(str(partial / GRAPH), _unoptimised(onnxruntime, options()),
                                                 providers=["CPUExecutionProvider"])
        if not same_vectors(candidate):
            log.warning("the saved embedding graph gives other vectors: it is not used")
            return
        np.save(partial / CHECK, probe(candidate), allow_pickle=False)
        try:
            os.rename(partial, folder)
        except OSError:  # another process saved it first
            return
        log.info("optimised embedding graph saved to %s", folder)
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def _close(vectors: np.ndarray, recorded: np.ndarray) -> bool:
    return (vectors.shape == recorded.shape and bool(np.isfinite(vectors).all())
            and bool(np.sum(vectors * recorded, axis=1).min() >= PROBE_COSINE))


def _unoptimised(onnxruntime, options):
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    return options
