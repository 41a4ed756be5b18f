"""The ONNX ``RotaryEmbedding`` operator (opset 23) as a rotary backend, through onnx's
reference evaluator and through onnxruntime's CPU kernel (issue 29).

The adapter builds a one-node model: X (1, 1, n, head_dim) in the row's dtype, the
``cos_cache``/``sin_cache`` inputs (max position + 1, d_r/2) and ``position_ids`` (1, n) = the
row's positions; attributes ``interleaved`` (1 for consecutive pairs) and
``rotary_embedding_dim`` = d_r (the rest passes). The operator only gathers and rotates: the
caches are an exported model's constants, made here as GPT-J's exported graph holds them, by
transformers' ``create_sinusoidal_positions`` (float32, θ = 10000 fixed by that function),
then cast to the row's dtype as the op requires. So the rows check the operator's gather and
rotation on a real exporter's caches; θ ≠ 10000 is refused.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pespec.clients.model import Client

if TYPE_CHECKING:  # the catalog imports this module: no NumPy, no rotary family until a build
    from numpy.typing import NDArray

    from pespec.rope.config import RopeConfig

__all__ = ["ONNX_CLIENTS", "build", "caches", "rotary_model"]

_ELEMENT = {"float32": 1, "float16": 10}
"""onnx.TensorProto element types of the row dtypes."""


def rotary_model(rope: RopeConfig, dtype: str) -> Any:
    """The one-node opset-23 model ``Y = RotaryEmbedding(X, cos, sin, position_ids)``."""
    onnx = importlib.import_module("onnx")
    helper = onnx.helper
    element = _ELEMENT[dtype]
    node = helper.make_node(
        "RotaryEmbedding",
        ["X", "cos_cache", "sin_cache", "position_ids"],
        ["Y"],
        interleaved=int(rope.pairing == "interleaved"),
        rotary_embedding_dim=rope.d_r,
    )
    graph = helper.make_graph(
        [node],
        "pespec_rotary",
        [
            helper.make_tensor_value_info("X", element, [1, 1, "n", rope.head_dim]),
            helper.make_tensor_value_info("cos_cache", element, ["p", rope.d_r // 2]),
            helper.make_tensor_value_info("sin_cache", element, ["p", rope.d_r // 2]),
            helper.make_tensor_value_info("position_ids", onnx.TensorProto.INT64, [1, "n"]),
        ],
        [helper.make_tensor_value_info("Y", element, [1, 1, "n", rope.head_dim])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    return model


def caches(top: int, d_r: int, dtype: str) -> tuple[NDArray[Any], NDArray[Any]]:
    """(cos, sin) caches (top, d_r/2) from transformers' ``create_sinusoidal_positions``."""
    import numpy as np

    gptj = importlib.import_module("transformers.models.gptj.modeling_gptj")
    table = gptj.create_sinusoidal_positions(top, d_r).numpy()
    sin, cos = np.split(table, 2, axis=1)
    return cos.astype(dtype), sin.astype(dtype)


def _session(model: Any, runtime: str) -> Any:
    """``run(feeds) -> Y`` of ``model`` in the reference evaluator or onnxruntime (CPU)."""
    if runtime == "reference":
        evaluator = importlib.import_module("onnx.reference").ReferenceEvaluator(model)
        return lambda feeds: evaluator.run(None, feeds)[0]
    ort = importlib.import_module("onnxruntime")
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return lambda feeds: session.run(None, feeds)[0]


def build(client: Client, dtype: str, config: str | None) -> Any:
    """The rotary backend of the client's runtime (``options['runtime']``)."""
    import numpy as np

    from pespec.rope.presets import read_config

    if config is None:
        raise ValueError(f"client {client.name} needs --config (a preset or a config.json)")
    rope = read_config(config)
    expressible = rope.pairing in ("halves", "interleaved") and rope.theta == 10000.0
    if rope.rope_type != "default" or not expressible:
        raise ValueError(
            f"client {client.name} runs default-schedule configurations with θ = 10000 (the "
            f"exporter's caches); --config {config!r} has rope_type {rope.rope_type!r}, "
            f"θ {rope.theta:g}, {rope.pairing} pairs"
        )
    run = _session(rotary_model(rope, dtype), str(client.options["runtime"]))

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> NDArray[Any]:
        p = np.asarray(positions, dtype=np.int64)
        # an exported model's caches cover its context; onnxruntime refuses (as "updating the
        # caches") ones shorter than the sequence, so they cover both the positions and n rows
        cos, sin = caches(max(int(p.max()) + 1, p.size), rope.d_r, dtype)
        feeds = {
            "X": np.asarray(x, dtype=dtype)[None, None],
            "cos_cache": cos,
            "sin_cache": sin,
            "position_ids": p[None],
        }
        out: NDArray[Any] = np.asarray(run(feeds))[0, 0]
        return out

    return fn


def _onnx(library: str, runtime: str, dtypes: tuple[str, ...]) -> Client:
    return Client(
        name=f"{library}:RotaryEmbedding",
        family="rope",
        library=library,
        requires=("onnx", "transformers", "torch"),
        entry=f"ONNX RotaryEmbedding (opset 23) in {runtime}",
        source="onnx/onnx onnx/reference/ops/op_rotary_embedding.py"
        if library == "onnx"
        else "microsoft/onnxruntime onnxruntime/core/providers/cpu/llm/rotary_embedding.cc",
        adapter="pespec.clients.onnx_clients:build",
        configs=("Llama-2-7B", "GPT-J-6B"),  # Gemma-3-4B local: conformant, ~50 s a row
        dtypes=dtypes,
        options={"runtime": runtime},
    )


ONNX_CLIENTS = (
    _onnx("onnx", "reference", ("float32",)),
    _onnx("onnxruntime", "onnxruntime", ("float32", "float16")),
)
"""The ONNX RotaryEmbedding operator: onnx's reference evaluator and onnxruntime (CPU)."""
