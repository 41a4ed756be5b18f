"""Real library code for the ``ntk``, ``custom`` and ``proportional`` schedules through the
rotary suite at float32 (optional: each library skipped when it is not installed; issue 26).

- rotary-embedding-torch 0.9: ``theta_rescale_factor`` (θ·s^(dim/(dim − 2)): ``ntk``),
  ``freqs_for="constant"`` and ``custom_freqs`` (``custom``), ``freqs_for="pixel"`` (``custom``
  with the module's own float32 ω; against the exact π·linspace it is NON-CONFORMANT, a
  library finding confirmed by mpmath below).
- diffusers: ``get_1d_rotary_pos_embed(ntk_factor=F)`` multiplies θ by F itself (SPEC Annex
  F.7: ``default`` with θ·F; as ``ntk`` with factor F it fails and the slip "NTK exponent left
  out" is named), ``linear_factor`` (``linear``), in the real/interleaved (Flux), float64
  frequency (Flux ``freqs_dtype``) and complex (Lumina) paths.
- transformers: HunYuan's fixed ``alpha`` (``ntk``) and Gemma 4's global layers
  (``proportional`` over ``global_head_dim``) from a copy of gemma-4-31B-it's config.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import mpmath
import numpy as np
import pytest
import rope_implementations as impl
from numpy.typing import NDArray
from paths import HF_CONFIGS

from pespec.rope import RopeConfig, check, from_hf

torch = pytest.importorskip("torch")

Backend = Any


def _report(fn: Backend, config: RopeConfig, diagnose: bool = False) -> Any:
    return check(fn, config, level="float32", diagnose=diagnose)


def _conformant(fn: Backend, config: RopeConfig) -> Any:
    report = _report(fn, config)
    assert report.conformant, report.summary()
    return report


# ---------------------------------------------------------------------------------------------
# rotary-embedding-torch


def _ret_backend(module: Any) -> Backend:
    """The module's frequencies at explicit positions, applied by its apply_rotary_emb
    (interleaved pairs) to float32 rows."""
    ret = pytest.importorskip("rotary_embedding_torch")

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        with torch.no_grad():
            freqs = module(torch.from_numpy(positions).float())
            return ret.apply_rotary_emb(freqs, torch.from_numpy(x).float())

    return fn


def _ret(**kwargs: Any) -> Any:
    ret = pytest.importorskip("rotary_embedding_torch")
    return ret.RotaryEmbedding(cache_if_possible=False, **kwargs)


@pytest.mark.parametrize(("dim", "s"), [(64, 4.0), (32, 8.0), (128, 2.5)])
def test_ret_theta_rescale_factor_is_ntk(dim: int, s: float) -> None:
    module = _ret(dim=dim, theta=10000, theta_rescale_factor=s)
    rope = RopeConfig(head_dim=dim, rope_type="ntk", factor=s, pairing="interleaved")
    _conformant(_ret_backend(module), rope)


def test_ret_theta_rescale_factor_is_not_theta_times_s() -> None:
    module = _ret(dim=64, theta=10000, theta_rescale_factor=4.0)
    plain = RopeConfig(head_dim=64, theta=40000.0, pairing="interleaved")
    assert not _report(_ret_backend(module), plain).conformant


@pytest.mark.parametrize("pairs", [32, 1])
def test_ret_constant_frequencies_are_custom(pairs: int) -> None:
    # freqs_for="constant": ω = 1 for each of num_freqs pairs (d_r = 2·num_freqs), the rest of
    # the head passes through
    module = _ret(dim=64, freqs_for="constant", num_freqs=pairs)
    rope = RopeConfig(
        head_dim=64, rotary_dim=2 * pairs, rope_type="custom", omegas=(1.0,) * pairs,
        pairing="interleaved",
    )  # fmt: skip
    _conformant(_ret_backend(module), rope)


def test_ret_custom_freqs_are_custom() -> None:
    freqs = np.random.default_rng(26).uniform(0.0, 1.0, 32).astype(np.float32)
    module = _ret(dim=64, custom_freqs=torch.from_numpy(freqs))
    omegas = tuple(float(w) for w in freqs)  # float32 values, exact in float64
    rope = RopeConfig(head_dim=64, rope_type="custom", omegas=omegas, pairing="interleaved")
    _conformant(_ret_backend(module), rope)
    wrong = dataclasses.replace(rope, omegas=tuple(reversed(omegas)))
    assert not _report(_ret_backend(module), wrong).conformant


def _pixel_exact(dim: int, max_freq: float) -> list[Any]:
    """ω_j = π·(1 + j·(max_freq/2 − 1)/(dim/2 − 1)), j < dim/2, at 200 bits (mpmath)."""
    with mpmath.workprec(200):
        n = dim // 2
        top = mpmath.mpf(max_freq) / 2
        return [mpmath.pi * (1 + j * (top - 1) / (n - 1)) for j in range(n)]


def test_ret_pixel_with_its_own_float32_frequencies_is_custom() -> None:
    module = _ret(dim=64, freqs_for="pixel", max_freq=10)
    omegas = tuple(float(w) for w in module.freqs.detach())
    rope = RopeConfig(head_dim=64, rope_type="custom", omegas=omegas, pairing="interleaved")
    _conformant(_ret_backend(module), rope)


def test_ret_pixel_against_exact_linspace_is_a_library_finding() -> None:
    # The table's row rotary-embedding-torch:RotaryEmbedding-pixel (issue 36) runs this
    # configuration (pespec.rope.variants.pixel_config) through the CLI.
    # freqs_for="pixel" computes ω = linspace(1, max_freq/2, dim/2)·π in float32: the step,
    # π and the product are each rounded, so ω carries up to ~3 float32 roundings where the
    # custom schedule (ω given) allows one (SPEC §8.7). Declared with the exact π·linspace the
    # module is NON-CONFORMANT; the mpmath computation confirms the cause: its ω is off by
    # more than one rounding (u = 2^-24 relative) at the pair the suite flags.
    module = _ret(dim=64, freqs_for="pixel", max_freq=10)
    exact = _pixel_exact(64, 10.0)
    rope = RopeConfig(
        head_dim=64, rope_type="custom", omegas=tuple(float(w) for w in exact),
        pairing="interleaved",
    )  # fmt: skip
    report = _report(_ret_backend(module), rope)
    assert not report.conformant
    failed = next(c for c in report.checks if c.status == "failed")
    assert failed.worst_column is not None
    pair = failed.worst_column // 2  # interleaved: columns 2j, 2j + 1
    held = [float(w) for w in module.freqs.detach()]
    with mpmath.workprec(200):
        u = mpmath.mpf(2) ** -24
        rel = [abs(mpmath.mpf(h) - w) / w / u for h, w in zip(held, exact, strict=True)]
        assert rel[pair] > 1  # more than one rounding at the failing pair
        assert max(rel) > 1.5


# ---------------------------------------------------------------------------------------------
# diffusers


def _diffusers_backend(
    ntk: float = 1.0, linear: float = 1.0, mode: str = "real", freqs_dtype: Any = None
) -> Backend:
    """``get_1d_rotary_pos_embed`` with θ = 10000 at the suite's positions and
    ``apply_rotary_emb``: "real"
    (cos/sin repeat_interleaved, Flux; ``freqs_dtype`` float64 as Flux) or "complex"
    (``torch.polar``, complex64, Lumina)."""
    emb = pytest.importorskip("diffusers.models.embeddings")

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        kwargs = {"freqs_dtype": freqs_dtype} if freqs_dtype is not None else {}
        pos = torch.from_numpy(positions)
        with torch.no_grad():
            if mode == "complex":
                cis = emb.get_1d_rotary_pos_embed(
                    rope.d_r, pos, 10000.0, linear_factor=linear, ntk_factor=ntk
                )
                q = torch.from_numpy(x).float()[None, :, None, :]  # (batch, seq, heads, d)
                return emb.apply_rotary_emb(q, cis[None], use_real=False)[0, :, 0]  # (1, seq, d/2)
            cos, sin = emb.get_1d_rotary_pos_embed(
                rope.d_r, pos, 10000.0, use_real=True, linear_factor=linear,
                ntk_factor=ntk, **kwargs,
            )  # fmt: skip
            q = torch.from_numpy(x).float()[None, None]  # (batch, heads, seq, d)
            return emb.apply_rotary_emb(q, (cos, sin))[0, 0]

    return fn


@pytest.mark.parametrize("mode", ["real", "real64", "complex"])
def test_diffusers_ntk_factor_is_theta_times_factor(mode: str) -> None:
    # Annex F.7: diffusers multiplies θ by ntk_factor itself: default with θ·F
    dtype = torch.float64 if mode == "real64" else None
    fn = _diffusers_backend(ntk=4.0, mode=mode.removesuffix("64"), freqs_dtype=dtype)
    _conformant(fn, RopeConfig(head_dim=64, theta=40000.0, pairing="interleaved"))


def test_diffusers_ntk_factor_as_ntk_names_the_exponent_slip() -> None:
    fn = _diffusers_backend(ntk=4.0)
    rope = RopeConfig(head_dim=64, rope_type="ntk", factor=4.0, pairing="interleaved")
    report = _report(fn, rope, diagnose=True)
    assert not report.conformant
    assert "NTK exponent left out" in report.summary(), report.summary()


def test_diffusers_ntk_factor_at_the_ntk_ratio_is_ntk() -> None:
    # ntk_factor = s^(d/(d − 2)) in float64 (what CosmosRotaryPosEmbed passes as θ's factor)
    s, d = 4.0, 64
    fn = _diffusers_backend(ntk=s ** (d / (d - 2)))
    _conformant(fn, RopeConfig(head_dim=d, rope_type="ntk", factor=s, pairing="interleaved"))


@pytest.mark.parametrize("mode", ["real", "complex"])
def test_diffusers_linear_factor_is_linear(mode: str) -> None:
    fn = _diffusers_backend(linear=4.0, mode=mode)
    rope = RopeConfig(head_dim=64, rope_type="linear", factor=4.0, pairing="interleaved")
    _conformant(fn, rope)


# ---------------------------------------------------------------------------------------------
# transformers


def test_transformers_hunyuan_alpha_is_ntk() -> None:
    transformers = pytest.importorskip("transformers")
    block = {"rope_type": "dynamic", "alpha": 1000.0, "factor": 1.0, "rope_theta": 10000.0}
    data = {
        "model_type": "hunyuan_v1_dense", "hidden_size": 1024, "num_attention_heads": 8,
        "head_dim": 128, "rope_parameters": block, "max_position_embeddings": 32768,
    }  # fmt: skip
    rope = from_hf(data)
    assert (rope.rope_type, rope.factor, rope.d_r) == ("ntk", 1000.0, 128)
    config = transformers.AutoConfig.for_model(**data)
    _conformant(impl.transformers_backend(config, "float32"), rope)


GEMMA4 = json.loads((HF_CONFIGS / "gemma-4-31b-it.json").read_text(encoding="utf-8"))


def test_gemma4_reader_takes_global_head_dim_on_full_attention() -> None:
    # transformers Gemma4TextConfig: full-attention layers run head_dim = global_head_dim (512)
    # with partial_rotary_factor 0.25 of it: k = int(0.25·512 // 2) = 64 pairs
    full = from_hf(GEMMA4["text_config"], "full_attention")
    assert (full.head_dim, full.d_r, full.rotated_pairs) == (512, 512, 64)
    assert (full.rope_type, full.theta) == ("proportional", 1e6)
    local = from_hf(GEMMA4["text_config"], "sliding_attention")
    assert (local.head_dim, local.d_r, local.rope_type, local.theta) == (256, 256, "default", 1e4)


def _gemma4_backend(layer_type: str) -> Backend:
    """transformers' Gemma4TextRotaryEmbedding for the layer type and Gemma 4's
    apply_rotary_pos_emb (rotate_half over the layer's whole head)."""
    transformers = pytest.importorskip("transformers")
    module = pytest.importorskip("transformers.models.gemma4.modeling_gemma4")
    text = transformers.AutoConfig.for_model(**GEMMA4).text_config
    rotary = module.Gemma4TextRotaryEmbedding(text)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        q = torch.from_numpy(x).float()[None, None]
        with torch.no_grad():
            cos, sin = rotary(q, torch.from_numpy(positions)[None], layer_type)
            return module.apply_rotary_pos_emb(q, cos, sin)[0, 0]

    return fn


@pytest.mark.parametrize("layer_type", ["full_attention", "sliding_attention"])
def test_transformers_gemma4_rotary(layer_type: str) -> None:
    rope = from_hf(GEMMA4["text_config"], layer_type)
    _conformant(_gemma4_backend(layer_type), rope)


def test_transformers_gemma4_global_layer_over_head_dim_fails() -> None:
    # the reading before this issue: head_dim 256, k = 32 (a different rotation)
    rope = from_hf(GEMMA4["text_config"], "full_attention")
    narrow = dataclasses.replace(rope, head_dim=256, rotary_dim=256, rotated_pairs=32)
    assert not _report(_gemma4_backend("full_attention"), narrow).conformant


def test_pixel_exact_helper() -> None:
    # π·linspace(1, 5, 32): the end points π and 5π
    ends = _pixel_exact(64, 10.0)
    assert float(ends[0]) == math.pi and float(ends[-1]) == 5 * math.pi
