"""ONNX ``RotaryEmbedding`` (opset 23) fed a cos/sin cache, through the rotary suite at float32
(optional: skipped without onnx and onnxruntime; issue 26, the ``custom`` schedule).

The operator computes no frequencies: the caller hands it ``cos_cache``/``sin_cache`` of shape
(max_position + 1, d_r/2) and ``position_ids`` to gather rows from. Here the cache is built per
call in float32 as an exporter writes it (cos/sin of float32 p·ω), one row per position of the
call, gathered back through ``position_ids``; the declared configuration is ``custom`` with the
ω handed over (a model's learned or computed frequencies, here θ^(−2j/d) rounded to float32).
Run by onnxruntime's kernel and by onnx's own reference evaluator, halves and interleaved.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.rope import RopeConfig, check

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
helper = onnx.helper
TensorProto = onnx.TensorProto

HEAD, ROTARY = 64, 48
OMEGAS = (10000.0 ** (-np.arange(0, ROTARY, 2) / ROTARY)).astype(np.float32)


def _model(interleaved: bool) -> bytes:
    """One RotaryEmbedding node on X (batch 1, heads 1, seq, HEAD), rotary_embedding_dim
    ROTARY (the rest of the head passes through)."""
    node = helper.make_node(
        "RotaryEmbedding",
        ["X", "cos_cache", "sin_cache", "position_ids"],
        ["Y"],
        interleaved=int(interleaved),
        rotary_embedding_dim=ROTARY,
    )
    inputs = [
        helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 1, "s", HEAD]),
        helper.make_tensor_value_info("cos_cache", TensorProto.FLOAT, ["p", ROTARY // 2]),
        helper.make_tensor_value_info("sin_cache", TensorProto.FLOAT, ["p", ROTARY // 2]),
        helper.make_tensor_value_info("position_ids", TensorProto.INT64, [1, "s"]),
    ]
    output = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 1, "s", HEAD])
    graph = helper.make_graph([node], "rope", inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    return bytes(model.SerializeToString())


def _feeds(x: NDArray[Any], positions: NDArray[Any]) -> dict[str, NDArray[Any]]:
    """The cache of this call (row i: position i of the call, in float32) and the gather."""
    p = positions.astype(np.float32)
    phase = p[:, None] * OMEGAS[None, :]
    n = positions.shape[0]
    return {
        "X": np.ascontiguousarray(x.astype(np.float32)[None, None]),
        "cos_cache": np.cos(phase).astype(np.float32),
        "sin_cache": np.sin(phase).astype(np.float32),
        "position_ids": np.arange(n, dtype=np.int64)[None],
    }


def _backend(interleaved: bool, runner: str) -> Any:
    model = _model(interleaved)
    if runner == "onnxruntime":
        session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])

        def run(feeds: dict[str, NDArray[Any]]) -> Any:
            return session.run(["Y"], feeds)[0]
    else:
        reference = pytest.importorskip("onnx.reference")
        evaluator = reference.ReferenceEvaluator(onnx.load_from_string(model))

        def run(feeds: dict[str, NDArray[Any]]) -> Any:
            return evaluator.run(None, feeds)[0]

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        return run(_feeds(x, positions))[0, 0]

    return fn


def _config(interleaved: bool) -> RopeConfig:
    return RopeConfig(
        head_dim=HEAD,
        rotary_dim=ROTARY,
        rope_type="custom",
        omegas=tuple(float(w) for w in OMEGAS),
        pairing="interleaved" if interleaved else "halves",
    )


@pytest.mark.parametrize("runner", ["onnxruntime", "reference"])
@pytest.mark.parametrize("interleaved", [False, True], ids=["halves", "interleaved"])
def test_onnx_rotary_embedding_with_a_cache_is_custom(interleaved: bool, runner: str) -> None:
    report = check(_backend(interleaved, runner), _config(interleaved), level="float32")
    assert report.conformant, report.summary()


def test_onnx_rotary_embedding_with_the_other_pairing_fails() -> None:
    report = check(_backend(True, "onnxruntime"), _config(False), level="float32")
    assert not report.conformant
