"""A faster copy of a BERT-style ONNX export, written once beside the user's caches.

PyTorch's exporter writes attention as some twenty small operators per layer (reshapes, four
transposes, the scaled scores, an additive mask, softmax, and an `IsNaN`/`Where` pair after the
softmax for rows whose every position is masked) and GELU as five; onnxruntime fuses neither on
its own. This module rewrites those patterns into onnxruntime's own fused operators
(`com.microsoft` `MultiHeadAttention` with a key padding mask, `BiasGelu`), drops what is then
unused, and keeps the int8 weights as they are. The same arithmetic in fewer passes over memory:
the rewritten model's vectors are checked against the original's on probe texts before it is
used, and any failure (no `onnx` package, a pattern that does not match, a difference) leaves the
original in use.

The copy is named by the source file's SHA-256 and this module's REWRITE_VERSION, so a new model
or a new rewrite never reads a stale copy."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from core.files import file_sha256

log = logging.getLogger(__name__)

REWRITE_VERSION = 1
MS_DOMAIN = "com.microsoft"


def default_cache() -> Path:
    from core.config import user_cache_folder

    return user_cache_folder() / "models"


def writable_cache(cache: Path) -> bool:
    """Whether copies can be saved in `cache` (made if absent). Not in a container whose home is
    another user's or mounted read-only: then the model runs as exported and is optimised at each
    start, which `biographer doctor` says, rather than every command warning of it."""
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(cache, os.W_OK | os.X_OK)


def remembered_sha256(path: Path, cache: Path) -> str:
    """path's SHA-256, remembered in the cache under the file's place, size and time of change:
    hashing the 22 MB model cost each load of it some 40 ms."""
    stat = path.stat()
    key = f"{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()
    memo = cache / "digests" / hashlib.sha256(key).hexdigest()[:32]
    try:
        return memo.read_text(encoding="ascii")
    except OSError:  # not remembered yet (or no cache to remember in)
        pass
    digest = file_sha256(path)
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        fd, partial = tempfile.mkstemp(dir=memo.parent)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(digest)
        os.replace(partial, memo)
    except OSError as exc:  # a cache that cannot be written: hashed again next time
        log.info("could not remember the digest of %s (%s)", path, exc)
    return digest


def rewritten_model(source: Path, cache: Path, *, same_vectors: Callable[[Path], bool]) -> Path | None:
    """The cached rewrite of source, made now if absent; None when it cannot be made or gives
    other vectors (same_vectors compares a candidate file's vectors with the original's)."""
    target = cache / f"{source.stem}-{remembered_sha256(source, cache)[:16]}-fused{REWRITE_VERSION}.onnx"
    if target.exists():
        return target
    if not writable_cache(cache):  # the copy could not be kept: not made, at every start, for nothing
        log.info("the model cache %s cannot be written: the embedding model runs as exported", cache)
        return None
    try:
        import onnx
    except ImportError:
        log.info("onnx is not installed: the embedding model runs as exported")
        return None
    try:
        model = onnx.load(str(source))
        fused = fuse(model)
        if not fused:
            return None
        cache.mkdir(parents=True, exist_ok=True)
        # written under another name and moved in place: a second process never reads half a file
        fd, partial = tempfile.mkstemp(dir=cache, suffix=".partial")
        os.close(fd)
        try:
            onnx.save(model, partial)
            if not same_vectors(Path(partial)):
                log.warning("the rewritten embedding model gives other vectors: it is not used")
                return None
            os.replace(partial, target)
        finally:
            Path(partial).unlink(missing_ok=True)
    except Exception as exc:  # noqa: BLE001 - any failure leaves the model as exported
        log.warning("could not rewrite the embedding model (%s): it runs as exported", exc)
        return None
    log.info("embedding model rewritten (%s) to %s", ", ".join(f"{k} {v}" for k, v in fused.items()), target)
    return target


def fuse(model) -> dict[str, int]:
    """Rewrites model's graph in place; returns how many of each pattern were replaced."""
    graph = model.graph
    counts = {"nan guards": drop_softmax_nan_guards(graph),
              "attention": fuse_attention(graph),
              "gelu": fuse_bias_gelu(graph)}
    if not any(counts.values()):
        return {}
    drop_unused(graph)
    if not any(op.domain == MS_DOMAIN for op in model.opset_import):
        model.opset_import.add(domain=MS_DOMAIN, version=1)
    return counts


class _Graph:
    """Who produces and who reads each tensor, and the constant initializers."""

    def __init__(self, graph) -> None:
        from onnx import numpy_helper

        self.graph = graph
        self.producer = {out: node for node in graph.node for out in node.output}
        self.readers: dict[str, list] = {}
        for node in graph.node:
            for name in node.input:
                self.readers.setdefault(name, []).append(node)
        self.constants = {t.name: numpy_helper.to_array(t) for t in graph.initializer}

    def made_by(self, name: str, op_type: str):
        node = self.producer.get(name)
        return node if node is not None and node.op_type == op_type else None

    def constant(self, name: str):
        return self.constants.get(name)


def drop_softmax_nan_guards(graph) -> int:
    """Where(IsNaN(softmax(x)), 0, softmax(x)) -> softmax(x). The guard is for rows whose every
    position is masked; the exporter's mask adds the float minimum rather than -inf, so a row's
    softmax is never NaN and the guard only costs two passes over the scores."""
    g = _Graph(graph)
    renames, dropped = {}, set()
    for where in list(graph.node):
        if where.op_type != "Where":
            continue
        isnan = g.made_by(where.input[0], "IsNaN")
        if isnan is None or g.made_by(isnan.input[0], "Softmax") is None:
            continue
        if where.input[2] != isnan.input[0] or len(g.readers.get(isnan.output[0], [])) != 1:
            continue
        renames[where.output[0]] = isnan.input[0]
        dropped.update({id(where), id(isnan)})
    _remove(graph, dropped, renames)
    return len(renames)


def fuse_attention(graph) -> int:
    """Each layer's scaled dot-product attention (from the projections after their bias to the
    context in [batch, sequence, hidden]) -> one MultiHeadAttention with a key padding mask."""
    from onnx import helper

    g = _Graph(graph)
    mask = _key_padding_mask(graph)
    if mask is None:
        return 0
    mask_name, mask_nodes = mask
    replaced, dropped, added = 0, set(), []
    for softmax in [n for n in graph.node if n.op_type == "Softmax"]:
        found = _attention_at(g, softmax)
        if found is None:
            continue
        query, key, value, context, heads, scale = found
        added.append((context, helper.make_node(
            "MultiHeadAttention", [query, key, value, "", mask_name], [context],
            name=f"fused_attention_{replaced}", domain=MS_DOMAIN, num_heads=heads, scale=scale)))
        dropped.add(id(g.producer[context]))
        replaced += 1
    if not replaced:
        return 0
    nodes = [n for n in graph.node if id(n) not in dropped]
    for context, node in added:  # each fused node stands where its context was made
        at = next(i for i, n in enumerate(nodes) if context in n.input)
        nodes.insert(at, node)
    first = next(i for i, n in enumerate(nodes) if n.op_type == "MultiHeadAttention")
    nodes[first:first] = mask_nodes
    del graph.node[:]
    graph.node.extend(nodes)
    return replaced


def _key_padding_mask(graph):
    """The graph's attention_mask input as int32 [batch, sequence], and the node that makes it."""
    from onnx import TensorProto, helper

    if "attention_mask" not in {i.name for i in graph.input}:
        return None
    name = "fused_key_padding_mask"
    return name, [helper.make_node("Cast", ["attention_mask"], [name], name="fused_mask_cast",
                                   to=TensorProto.INT32)]


def _attention_at(g: _Graph, softmax):
    """(query, key, value, context, heads, scale) of the exported attention around softmax."""
    import numpy as np

    scores = g.made_by(softmax.input[0], "Add")  # scores + additive mask
    if scores is None:
        return None
    product = g.made_by(scores.input[0], "MatMul")  # (q * s) @ (k^T * s)
    if product is None:
        return None
    q_scaled, k_scaled = (g.made_by(product.input[i], "Mul") for i in (0, 1))
    if q_scaled is None or k_scaled is None:
        return None
    s_q, s_k = g.constant(q_scaled.input[1]), g.constant(k_scaled.input[1])
    if s_q is None or s_k is None or s_q.size != 1 or s_k.size != 1:
        return None
    readers = g.readers.get(softmax.output[0], [])
    if len(readers) != 1 or readers[0].op_type != "MatMul" or readers[0].input[0] != softmax.output[0]:
        return None
    weighted = readers[0]  # probs @ v
    query, heads_q, head_size = _projection(g, q_scaled.input[0])
    key, _, _ = _projection(g, k_scaled.input[0])
    value, heads_v, _ = _projection(g, weighted.input[1])
    if None in (query, key, value) or heads_q != heads_v:
        return None
    out_readers = g.readers.get(weighted.output[0], [])
    if len(out_readers) != 1 or out_readers[0].op_type != "Transpose" or \
            list(out_readers[0].attribute[0].ints) != [0, 2, 1, 3]:
        return None
    merge = g.readers.get(out_readers[0].output[0], [])
    if len(merge) != 1 or merge[0].op_type != "Reshape":
        return None
    return query, key, value, merge[0].output[0], heads_q, float(np.float32(s_q) * np.float32(s_k))


def _projection(g: _Graph, name: str):
    """Walks back from a head-split tensor through Reshape/Transpose to the [batch, sequence,
    hidden] projection it came from: (projection, heads, head size), or (None, 0, 0)."""
    for _ in range(6):
        node = g.producer.get(name)
        if node is None or node.op_type not in ("Reshape", "Transpose"):
            return None, 0, 0
        source = node.input[0]
        made = g.producer.get(source)
        if node.op_type == "Reshape" and made is not None and made.op_type == "Add":
            bias = next((g.constant(i) for i in made.input if g.constant(i) is not None), None)
            head_size = _split_head_size(g, node.input[1])
            if bias is None or bias.ndim != 1 or not head_size or bias.size % head_size:
                return None, 0, 0
            return source, bias.size // head_size, head_size
        name = source
    return None, 0, 0


def _split_head_size(g: _Graph, shape: str) -> int:
    """The last dimension of a reshape target [batch, sequence, -1, head size] made by Concat."""
    concat = g.made_by(shape, "Concat")
    if concat is None or len(concat.input) != 4:
        return 0
    last = g.constant(concat.input[3])
    return int(last.reshape(-1)[0]) if last is not None and last.size == 1 else 0


def fuse_bias_gelu(graph) -> int:
    """x = MatMul + bias; x * (0.5 * (erf(x / sqrt 2) + 1)) -> BiasGelu(MatMul, bias)."""
    from onnx import helper

    g = _Graph(graph)
    replaced, dropped, added = 0, set(), {}
    for erf in [n for n in graph.node if n.op_type == "Erf"]:
        div = g.made_by(erf.input[0], "Div")
        if div is None or not _is(g.constant(div.input[1]), 2 ** 0.5):
            continue
        biased = g.made_by(div.input[0], "Add")
        if biased is None:
            continue
        x = div.input[0]
        plus = _only_reader(g, erf.output[0], "Add")
        half = plus and _only_reader(g, plus.output[0], "Mul")
        out = half and _only_reader(g, half.output[0], "Mul")
        if not (plus and half and out) or x not in out.input:
            continue
        if not _is(_other_constant(g, plus, erf.output[0]), 1.0) or \
                not _is(_other_constant(g, half, plus.output[0]), 0.5):
            continue
        bias = next((i for i in biased.input if g.constant(i) is not None), None)
        product = next((i for i in biased.input if i != bias), None)
        if bias is None or g.constant(bias).ndim != 1 or len(g.readers.get(x, [])) != 2:
            continue
        node = helper.make_node("BiasGelu", [product, bias], [out.output[0]],
                                name=f"fused_gelu_{replaced}", domain=MS_DOMAIN)
        added[id(biased)] = node
        dropped.update({id(div), id(erf), id(plus), id(half), id(out)})
        replaced += 1
    nodes = []
    for n in graph.node:
        if id(n) in added:
            nodes.append(added[id(n)])
        elif id(n) not in dropped:
            nodes.append(n)
    del graph.node[:]
    graph.node.extend(nodes)
    return replaced


def _only_reader(g: _Graph, name: str, op_type: str):
    readers = g.readers.get(name, [])
    return readers[0] if len(readers) == 1 and readers[0].op_type == op_type else None


def _other_constant(g: _Graph, node, name: str):
    others = [i for i in node.input if i != name]
    return g.constant(others[0]) if len(others) == 1 else None


def _is(value, expected: float) -> bool:
    return value is not None and value.size == 1 and abs(float(value.reshape(-1)[0]) - expected) < 1e-6


def _remove(graph, dropped: set[int], renames: dict[str, str]) -> None:
    nodes = [n for n in graph.node if id(n) not in dropped]
    for node in nodes:
        for i, name in enumerate(node.input):
            if name in renames:
                node.input[i] = renames[name]
    for output in graph.output:
        if output.name in renames:
            raise ValueError(f"a graph output ({output.name}) would be renamed")
    del graph.node[:]
    graph.node.extend(nodes)


def drop_unused(graph) -> None:
    """Nodes and initializers nothing reads any more (walked back from the graph's outputs)."""
    needed = {o.name for o in graph.output}
    kept = []
    for node in reversed(graph.node):
        if any(out in needed for out in node.output):
            kept.append(node)
            needed.update(i for i in node.input if i)
    del graph.node[:]
    graph.node.extend(reversed(kept))
    initializers = [t for t in graph.initializer if t.name in needed]
    del graph.initializer[:]
    graph.initializer.extend(initializers)
