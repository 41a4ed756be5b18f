"""llama.cpp's rope arguments for DeepSeek-V3 (YaRN with mscale) and Phi-3.5-mini (LongRoPE
chosen by the allocated context), and ggml's ``batch`` shape class (issue 35 items 3 and 8).
The op runs through ggml-python where it is installed (CI pass 2 installs it)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pespec.clients.catalog import get_client
from pespec.clients.llamacpp_params import MODE_NEOX, MODE_NORMAL, rope_args
from pespec.clients.table import planned_rows, reproduction

U32 = 2.0**-24  # float32 unit roundoff
PHI = "Phi-3.5-mini-instruct-seq-len-4096"
PHI_LONG = "Phi-3.5-mini-instruct-seq-len-131072"
PUBLISHED = Path(__file__).resolve().parents[2] / "pespec" / "rope" / "published"


def _phi_config() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PUBLISHED / "phi-3.5-mini-instruct.json").read_text())
    return data


def test_deepseek_v3_yarn_arguments_give_attention_factor_one() -> None:
    # DeepSeek-V3: yarn factor 40, L0 4096, mscale = mscale_all_dim = 1, so the definition's
    # attention factor is mscale(40, 1)/mscale(40, 1) = 1. llama.cpp passes attn_factor
    # 1/(1 + 0.1 ln 40) (float32, three roundings and logf) and ggml multiplies by
    # 1 + 0.1 ln(1/freq_scale): the product is 1 within a few float32 roundings (8 u).
    args = rope_args("DeepSeek-V3-interleaved-outputs")
    assert (args.mode, args.n_dims, args.head_dim, args.freq_base) == (MODE_NORMAL, 64, 64, 1e4)
    assert (args.freq_scale, args.ext_factor, args.n_ctx_orig) == (1 / 40, 1.0, 4096)
    assert (args.beta_fast, args.beta_slow) == (32.0, 1.0)
    assert not args.permuted and args.freq_factors is None
    assert abs(args.attn_factor * (1 + 0.1 * math.log(40)) - 1) < 8 * U32
    with pytest.raises(ValueError, match="config must be one of"):
        rope_args("DeepSeek-V3")  # halves outputs: not what llama.cpp's NORM mode writes


def test_phi35_longrope_factors_follow_the_allocated_context() -> None:
    # Phi-3.5-mini: NEOX, d 96, no YaRN; attn_factor sqrt(1 + ln(131072/4096)/ln 4096) stored
    # as float32 (<= 1 u relative); the factors are long iff n_ctx padded to 256 exceeds 4096.
    config = _phi_config()["rope_scaling"]
    short, long_ = rope_args(PHI), rope_args(PHI_LONG)
    amplitude = math.sqrt(1 + math.log(32) / math.log(4096))
    for args in (short, long_):
        assert (args.mode, args.n_dims, args.freq_scale, args.ext_factor) == (MODE_NEOX, 96, 1, 0)
        assert abs(args.attn_factor / amplitude - 1) <= U32
    assert short.freq_factors == tuple(float(np.float32(f)) for f in config["short_factor"])
    assert long_.freq_factors == tuple(float(np.float32(f)) for f in config["long_factor"])
    assert rope_args(PHI, 131072).freq_factors == long_.freq_factors
    assert rope_args(PHI, 4097).freq_factors == long_.freq_factors  # padded to 4352
    assert rope_args(PHI, 4000).freq_factors == short.freq_factors  # padded to 4096
    assert "n_ctx=131072 (long factors" in rope_args(PHI, 131072).describe()


def test_ggml_rows_of_phi_at_4096_stop_at_position_4095() -> None:
    rows = planned_rows(
        [get_client("ggml:ggml_rope_ext"), get_client("ggml:ggml_rope_ext-n-ctx-131072")]
    )
    lines = {(r["client"], r["config"], r["dtype"]): reproduction(r) for r in rows}
    assert lines[("ggml:ggml_rope_ext", PHI, "float16")].endswith("--max-position 4095")
    assert "--max-position" not in lines[("ggml:ggml_rope_ext", PHI_LONG, "float32")]
    assert lines[("ggml:ggml_rope_ext-n-ctx-131072", PHI, "float32")].endswith("4095")
    assert get_client("ggml:ggml_rope_ext-n-ctx-131072").options["n_ctx"] == 131072


def test_batch_order_interleaves_two_sequences() -> None:
    from pespec.clients.ggml_rope import batch_order

    for n in (1, 2, 7, 64):
        order = batch_order(n)
        assert sorted(order.tolist()) == list(range(n))
    assert batch_order(6).tolist() == [3, 0, 4, 1, 5, 2]


def _rope(x: Any, positions: Any, args: Any, dtype: str, shape: str) -> Any:
    from pespec.clients.ggml_rope import ggml_rope

    return ggml_rope(x, positions, args, dtype, shape)


@pytest.mark.parametrize("config", ["Llama-3.1-8B", "DeepSeek-V3-interleaved-outputs", PHI_LONG])
def test_ggml_batch_equals_tokens_bit_for_bit(config: str) -> None:
    # ggml rotates each (token, head) row from its own position: the batch layout (two
    # sequences interleaved, two heads) must give the tokens layout's bits.
    pytest.importorskip("ggml")
    args = rope_args(config)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, args.head_dim)).astype(np.float32)
    positions = np.sort(rng.integers(0, 100_000, 40))
    for dtype in ("float32", "float16"):
        tokens = _rope(x, positions, args, dtype, "tokens")
        np.testing.assert_array_equal(_rope(x, positions, args, dtype, "batch"), tokens)


def test_ggml_longrope_takes_long_factors_by_n_ctx() -> None:
    # Finding: llama.cpp's get_rope_factors picks Phi-3.5's long factors whenever the
    # allocated context exceeds 4096, for every position; a 4096-token sequence is defined
    # with the short ones. mpmath's p·ω_j for each set against the angle ggml's float32 op
    # turned pair j by at p = 4095. Bound on ggml's phase error: ω_j is a running product of j
    # float32 roundings, then ·p and /factor: <= p·ω_j·(j + 3)·u, plus 1e-6 for cos/sin/atan2
    # (measured 2.4e-4 and 1.5e-4 rad; the two sets differ by 2.9 rad).
    pytest.importorskip("ggml")
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    config, d, p = _phi_config(), 96, 4095
    half = d // 2

    def exact(kind: str) -> Any:
        factors = config["rope_scaling"][kind]
        return [p / (mpmath.mpf(f) * mpmath.power(10000, mpmath.mpf(2 * j) / d))
                for j, f in enumerate(factors)]  # fmt: skip

    def gap(got: Any, want: Any) -> float:
        return max(abs(float(mpmath.atan2(mpmath.sin(w - g), mpmath.cos(w - g))))
                   for g, w in zip(got, want, strict=True))  # fmt: skip

    def angles(n_ctx: int) -> Any:
        x = np.zeros((half, d), np.float32)
        x[np.arange(half), np.arange(half)] = 1.0
        y = _rope(x, np.full(half, p), rope_args(PHI, n_ctx), "float32", "tokens")
        rows = np.arange(half)
        return np.arctan2(y[rows, half + rows], y[rows, rows]).astype(np.float64).tolist()

    short, long_ = exact("short_factor"), exact("long_factor")
    bound = max(float(w) * (j + 3) * U32 for s in (short, long_) for j, w in enumerate(s)) + 1e-6
    at_4096, at_131072 = angles(4096), angles(131072)
    assert gap(at_4096, short) < bound < 2.0 < gap(at_4096, long_)
    assert gap(at_131072, long_) < bound < 2.0 < gap(at_131072, short)


def test_liger_interpreter_rows_check_positions_to_511_in_a_preloaded_zygote() -> None:
    # Issue 35 item 2: the interpreter runs one Python program per token, and a position only
    # selects the caller's cos/sin row, so the rows stop at position 511; the triton zygote
    # sets TRITON_INTERPRET before it imports Liger (the interpreter is chosen at import).
    from pespec.clients.engines import ENVIRONMENT, PRELOAD

    assert ENVIRONMENT["triton"] == {"TRITON_INTERPRET": "1"}
    assert "liger_kernel.transformers.rope" in PRELOAD["triton"]
    for shape in ("prefill", "decode", "heads"):
        rows = planned_rows([get_client(f"liger-kernel:triton-interpret-rope-{shape}")])
        assert rows and all(reproduction(r).endswith("--max-position 511") for r in rows)


def test_table_selects_the_gpu_rows_by_device() -> None:
    from pespec.clients.table import select_clients

    gpu = select_clients(device="cuda", every_tier=True)
    assert gpu and all(c.device == "cuda" for c in gpu)
    assert "liger-kernel:liger_rotary_pos_emb" in {c.name for c in gpu}
    with pytest.raises(ValueError, match="device='cuda'"):
        select_clients(device="cuda", library="ggml-python")
