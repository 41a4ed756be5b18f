"""The flattened-token engines' shape classes and SGLang's transcribed model-file calls
(issue 35 items 2 and 8). Engine-free: the engines' own calls are checked in their
environments (tests/clients/test_engines.py, skipped without them)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from pespec.clients.catalog import get_client
from pespec.clients.engine_shapes import DECODE_BATCH, decode_steps, run_shape
from pespec.clients.sglang_rope import LONGROPE, _model_file_call, cpu_kernel_reason


def test_decode_steps_take_one_token_of_each_sequence_per_step() -> None:
    # np.array_split(range(10), 4): sequences [0 1 2] [3 4 5] [6 7] [8 9]
    steps = decode_steps(10, batch=4)
    assert [s.tolist() for s in steps] == [[0, 3, 6, 8], [1, 4, 7, 9], [2, 5]]


def test_decode_steps_cover_every_row_once_at_most_a_batch_a_step() -> None:
    for n in (0, 1, 7, 8, 9, 100, 4097):
        steps = decode_steps(n)
        assert sorted(np.concatenate(steps or [np.empty(0, np.intp)]).tolist()) == list(range(n))
        assert all(0 < len(s) <= DECODE_BATCH for s in steps)


def test_offsets_shape_puts_each_output_row_back_at_its_token() -> None:
    torch = pytest.importorskip("torch")
    data = torch.arange(30, dtype=torch.float64).reshape(10, 3)
    positions = torch.tensor([5, 6, 7, 100, 101, 102, 900, 901, 4095, 4096])
    seen: list[list[int]] = []

    def call(pos: object, rows: object) -> object:
        seen.append(pos.tolist())  # type: ignore[attr-defined]
        return rows * pos[:, None]  # type: ignore[index,operator]

    out = run_shape(call, data, positions, "offsets")
    assert torch.equal(out, data * positions[:, None])
    assert len(seen) == 2 and all(len(set(step)) == len(step) for step in seen)  # 8 sequences
    assert seen[0][0] == 5 and 0 not in seen[0]  # sequences start at their own positions


def test_offsets_shape_of_mrope_steps_along_the_token_axis() -> None:
    torch = pytest.importorskip("torch")
    data = torch.ones((9, 2))
    positions = torch.stack([torch.arange(9), 10 + torch.arange(9), 20 + torch.arange(9)])

    def call(pos: object, rows: object) -> object:
        assert pos.shape == (3, rows.shape[0])  # type: ignore[attr-defined]
        return rows * pos.sum(0)[:, None]  # type: ignore[attr-defined]

    out = run_shape(call, data, positions, "offsets", token_axis=1)
    assert torch.equal(out[:, 0], (3 * torch.arange(9) + 30).to(out.dtype))


def test_unknown_shape_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="shape must be one of tokens, offsets, compiled; got 'x'"):
        run_shape(lambda p, d: d, None, None, "x")


def _config(**fields: object) -> SimpleNamespace:
    base = {"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072}
    return SimpleNamespace(**(base | fields))


def test_sglang_deepseek_call_is_deepseek_yarn_interleaved_on_cpu() -> None:
    # sglang/srt/models/deepseek_v2.py: rope_type rewritten to deepseek_yarn, is_neox_style =
    # not rope_interleave (default True), get_rope_wrapper(..., device=cpu) -> get_rope_cpu
    yarn = {"rope_type": "yarn", "factor": 40, "rope_theta": 10000}
    config = _config(rope_parameters=yarn, qk_rope_head_dim=64, max_position_embeddings=163840)
    factory, args, kwargs = _model_file_call("DeepseekV3ForCausalLM", config)
    assert (factory, args, kwargs["rotary_dim"]) == ("get_rope_wrapper", (64,), 64)
    assert kwargs["rope_scaling"]["rope_type"] == "deepseek_yarn"
    assert (kwargs["is_neox_style"], kwargs["device"], kwargs["base"]) == (False, "cpu", 10000)


def test_sglang_llama_call_carries_original_max_position_into_longrope() -> None:
    # sglang/srt/models/llama.py: LlamaDecoderLayer copies config.original_max_position_embeddings
    params = {"rope_type": "longrope", "rope_theta": 10000.0}
    config = _config(
        rope_parameters=params, original_max_position_embeddings=4096, hidden_size=3072
    )
    factory, args, kwargs = _model_file_call("Phi3ForCausalLM", config)
    assert (factory, args, kwargs["rotary_dim"]) == ("get_rope", (96,), 96)
    assert kwargs["rope_scaling"]["original_max_position_embeddings"] == 4096
    assert kwargs["max_position"] == 131072 and kwargs["is_neox_style"] is True


def test_sglang_rows_declare_their_shape_and_longrope_serving_length() -> None:
    for name in ("sglang:get_rope.forward", "sglang:get_rope.forward-offsets"):
        client = get_client(name)
        assert set(client.configs) == set(LONGROPE)
        assert client.options["max_positions"] == {"Phi-3.5-mini-instruct-seq-len-4096": 4095}
    assert get_client("sglang:get_rope.forward_native-offsets").options["shape"] == "offsets"
    compiled = get_client("sglang:get_rope.forward_torch_compile-compiled")
    assert compiled.options["shape"] == "compiled"


def test_sglang_cpu_kernel_row_says_why_it_is_native_here() -> None:
    torch = pytest.importorskip("torch")
    why = cpu_kernel_reason()
    try:
        import sgl_kernel  # noqa: F401

        importable = True
    except Exception:
        importable = False
    if torch.cpu._is_amx_tile_supported() and importable:
        assert why is None
    else:
        assert why is not None and "cpu_has_amx_support()" in why
        assert ("no AMX tiles" in why) != torch.cpu._is_amx_tile_supported()
        assert ("sgl_kernel does not import" in why) != importable
