"""The table rows of three knobs no published configuration uses (issue 36): diffusers'
``ntk_factor``, rotary-embedding-torch's ``theta_rescale_factor``, ``freqs_for="constant"`` and
``use_xpos``,
each judged against a documented configuration (pespec/rope/variants.py).

Two things can go wrong: the documented configuration may not be the schedule the knob
documents (checked against mpmath, independent of the oracle's code), and the client may not
pass the knob (checked by judging the real library against the schedule without it: that must
fail). The rows themselves are in results/conformance-table.json (test_coverage.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import mpmath
import pytest

from pespec.clients.catalog import all_clients
from pespec.rope import PRESETS, RopeConfig, check
from pespec.rope.oracle import frequencies
from pespec.rope.presets import read_config
from pespec.rope.variants import DECLARED

_DEEPSEEK = dataclasses.replace(PRESETS["DeepSeek-V3"], output_layout="interleaved")

ROWS = {
    # client: (its configuration, the schedule without the knob: must fail)
    "rotary-embedding-torch:RotaryEmbedding-theta-rescale": (
        "rotary-embedding-torch-ntk-64-theta-rescale-4",
        RopeConfig(head_dim=64, theta=10000.0, pairing="interleaved"),
    ),
    "rotary-embedding-torch:RotaryEmbedding-constant": (
        "rotary-embedding-torch-constant-64-num-freqs-1",
        RopeConfig(head_dim=64, theta=10000.0, pairing="interleaved"),
    ),
    "rotary-embedding-torch:RotaryEmbedding-xpos": (
        "rotary-embedding-torch-xpos-64-32-base-512-key",
        RopeConfig(head_dim=64, rotary_dim=32, pairing="interleaved"),
    ),
    "mlx-lm:deepseek_v3": (  # without the mscale pair: A = 0.1·ln 40 + 1, not 1
        "DeepSeek-V3-interleaved-outputs",
        dataclasses.replace(_DEEPSEEK, mscale=None, mscale_all_dim=None),
    ),
    "mlx-lm:gemma4_text": (  # partial rotation over its own 128 features, not proportional
        "Gemma-4-31B global layers",
        RopeConfig(head_dim=512, rotary_dim=128, theta=1e6, pairing="halves"),
    ),
    "mlx-lm:qwen2_vl-text": (  # the file's θ 10⁶ read (not the 10⁴ default)
        "Qwen2.5-VL-7B-Instruct-text-positions",
        RopeConfig(head_dim=128, theta=10000.0, pairing="halves"),
    ),
    "diffusers:get_1d_rotary_pos_embed-ntk-factor": (
        "diffusers-1d-64-theta-10000-ntk-factor-4",
        RopeConfig(head_dim=64, theta=10000.0, pairing="interleaved"),
    ),
}


def _documented(name: str) -> list[Any]:
    """ω_j at 100 bits from each library's documented formula (not from pespec's schedules):
    theta_rescale_factor s: (10000·s^(d/(d−2)))^(−2j/d); constant: ω = 1 for num_freqs = 1;
    ntk_factor F: (10000·F)^(−2j/d); xPos: θ 10000 over d_r = 32."""
    with mpmath.workprec(100):
        d = mpmath.mpf(64)
        if "theta-rescale" in name:
            base = 10000 * mpmath.mpf(4) ** (d / (d - 2))
        elif "constant" in name:
            return [mpmath.mpf(1)]
        elif "xpos" in name:  # the rotation of d_r = 32 (σ against mpmath: tests/rope/test_xpos.py)
            d = mpmath.mpf(32)
            return [mpmath.mpf(10000) ** (-2 * mpmath.mpf(j) / d) for j in range(16)]
        else:
            base = mpmath.mpf(10000) * 4
        return [base ** (-2 * mpmath.mpf(j) / d) for j in range(32)]


_FORMULAS = [c for c, _ in ROWS.values() if c in DECLARED and c[0] not in "DQ"]
"""The configurations whose ω :func:`_documented` states (DeepSeek's A, Qwen-VL: own tests)."""


@pytest.mark.parametrize("name", _FORMULAS)
def test_documented_configuration_is_the_knobs_schedule(name: str) -> None:
    omegas, attention = frequencies(DECLARED[name]())
    exact = _documented(name)
    assert len(omegas) == len(exact) and attention == 1.0
    for got, want in zip(omegas, exact, strict=True):
        # the oracle's ω is correctly rounded to float64: within half an ulp, 2^-53 relative
        assert abs(mpmath.mpf(float(got)) - want) <= abs(want) * mpmath.mpf(2) ** -53


@pytest.mark.parametrize("client", list(ROWS))
def test_client_passes_the_knob(client: str) -> None:
    entry = all_clients()[client]
    for module in (*entry.requires, entry.library.replace("-", "_")):
        pytest.importorskip(module)
    config, without = ROWS[client]
    backend = entry.build("float32", config)
    report = check(backend, read_config(config), level="float32")
    assert report.conformant, report.summary()
    assert not check(backend, without, level="float32").conformant


def test_deepseek_mscale_pair_gives_attention_one() -> None:
    # YaRN's A = (0.1·mscale·ln s + 1)/(0.1·mscale_all_dim·ln s + 1) = 1 for mscale =
    # mscale_all_dim = 1 (DeepSeek-V3's config.json, s = 40); without them A = 0.1·ln 40 + 1
    from pespec.rope.variants import DEEPSEEK_INTERLEAVED

    config = DECLARED[DEEPSEEK_INTERLEAVED]()
    assert (config.mscale, config.mscale_all_dim, config.factor) == (1.0, 1.0, 40.0)
    with mpmath.workprec(100):
        plain = float(mpmath.mpf("0.1") * mpmath.log(40) + 1)
    assert frequencies(config)[1] == 1.0
    assert frequencies(ROWS["mlx-lm:deepseek_v3"][1])[1] == plain
    # the pairing is the file's; only the output layout is declared
    assert dataclasses.replace(config, output_layout=None) == PRESETS["DeepSeek-V3"]


def test_qwen_vl_file_is_mrope_and_text_positions_make_it_one_axis() -> None:
    # the row's premise: the file asks for mrope; with t = h = w = p every section rotates
    # pair j by p·ω_j, ω_j = 10⁶^(−2j/128) (mpmath), so the 1-D configuration is the schedule
    from pespec.rope.variants import QWEN_VL_TEXT, qwen_vl_json

    data = qwen_vl_json()
    assert data["rope_scaling"] == {"type": "mrope", "mrope_section": [16, 24, 24]}
    assert sum(data["rope_scaling"]["mrope_section"]) == 128 // 2
    omegas, _ = frequencies(DECLARED[QWEN_VL_TEXT]())
    with mpmath.workprec(100):
        for j, got in enumerate(omegas):
            want = (mpmath.mpf(10) ** 6) ** (-2 * mpmath.mpf(j) / 128)
            assert abs(mpmath.mpf(float(got)) - want) <= want * mpmath.mpf(2) ** -53
