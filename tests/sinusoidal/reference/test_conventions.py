"""Conventions (SPEC §3): column maps, presets against their published formulas, rejection
of undefined conventions, and the dict round trip."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.typing import NDArray

from pespec.sinusoidal.reference import oracle
from pespec.sinusoidal.reference.conventions import (
    CANONICAL,
    LAYOUTS,
    PRESETS,
    TIMESTEP_PRESETS,
    Convention,
    diffusers_convention,
)
from pespec.specblocks.conventions import presets_table

U = 2.0**-53


def test_layout_column_maps_for_d8() -> None:
    # hand-written: pair k's sine and cosine columns for d = 8 (k = 0..3)
    expected = {
        "interleaved": ([0, 2, 4, 6], [1, 3, 5, 7]),
        "sin_cos_halves": ([0, 1, 2, 3], [4, 5, 6, 7]),
        "cos_sin_halves": ([4, 5, 6, 7], [0, 1, 2, 3]),
    }
    for layout in LAYOUTS:
        convention = Convention(layout=layout)
        sin_cols, cos_cols = expected[layout]
        assert convention.sin_columns(8).tolist() == sin_cols
        assert convention.cos_columns(8).tolist() == cos_cols
        pair, is_sin = convention.column_roles(8)
        for k in range(4):
            assert (pair[sin_cols[k]], is_sin[sin_cols[k]]) == (k, True)
            assert (pair[cos_cols[k]], is_sin[cos_cols[k]]) == (k, False)


# Published formulas, transcribed in float64 NumPy from the sources cited in the presets'
# docstrings. Each returns the table rows for positions 0..n-1 (the table row index).
def _fairseq_like(n: int, d: int) -> NDArray[np.float64]:
    half = d // 2
    emb = math.log(10000) / (half - 1)
    freqs = np.exp(np.arange(half) * -emb)
    args = np.arange(n)[:, None] * freqs[None, :]
    return np.concatenate([np.sin(args), np.cos(args)], axis=1)


def _mlx(n: int, d: int) -> NDArray[np.float64]:
    # mlx 0.32.4 python/mlx/nn/layers/positional_encoding.py, SinusoidalPositionalEncoding
    # with its defaults (min_freq=1e-4, max_freq=1, scale=None, cos_first=False), in float64
    one_zero = 1 - np.arange(0, d // 2) / (d // 2 - 1)
    min_freq, max_freq = math.log(0.0001), math.log(1)
    sigmas = np.exp(one_zero * (max_freq - min_freq) + min_freq)
    y = np.arange(n)[:, None] * sigmas
    return np.concatenate([np.sin(y), np.cos(y)], axis=-1) * (2 / d) ** 0.5


def _guided_diffusion(n: int, d: int) -> NDArray[np.float64]:
    half = d // 2
    freqs = np.exp(-math.log(10000) * np.arange(half) / half)
    args = np.arange(n)[:, None] * freqs[None]
    return np.concatenate([np.cos(args), np.sin(args)], axis=-1)


def _marian(n: int, d: int) -> NDArray[np.float64]:
    position_enc = np.array(
        [[pos / np.power(10000, 2 * (j // 2) / d) for j in range(d)] for pos in range(n)]
    )
    out = np.empty((n, d))
    out[:, : d // 2] = np.sin(position_enc[:, 0::2])
    out[:, d // 2 :] = np.cos(position_enc[:, 1::2])
    return out


def _vaswani(n: int, d: int) -> NDArray[np.float64]:
    out = np.empty((n, d))
    for i in range(d // 2):
        angle = np.arange(n) / 10000 ** (2 * i / d)
        out[:, 2 * i] = np.sin(angle)
        out[:, 2 * i + 1] = np.cos(angle)
    return out


def _diffusers(flip: bool, shift: float, scale: float) -> Callable[[int, int], NDArray[np.float64]]:
    def table(n: int, d: int) -> NDArray[np.float64]:
        half = d // 2
        exponent = -math.log(10000) * np.arange(half) / (half - shift)
        emb = scale * (np.arange(n)[:, None] * np.exp(exponent)[None, :])
        out = np.concatenate([np.sin(emb), np.cos(emb)], axis=-1)
        return np.concatenate([out[:, half:], out[:, :half]], axis=-1) if flip else out

    return table


def _flux(n: int, d: int) -> NDArray[np.float64]:
    # black-forest-labs/flux modules/layers.py timestep_embedding(t, dim, max_period=10000,
    # time_factor=1000.0): t = time_factor * t; freqs = exp(-log(max_period) * arange(half)
    # / half); args = t[:, None] * freqs[None]; cat([cos(args), sin(args)]). Here t = 0..n-1.
    t = 1000.0 * np.arange(n)
    half = d // 2
    freqs = np.exp(-math.log(10000) * np.arange(half) / half)
    args = t[:, None] * freqs[None]
    return np.concatenate([np.cos(args), np.sin(args)], axis=-1)


def _wan(n: int, d: int) -> NDArray[np.float64]:
    # Wan-Video/Wan2.1 wan/modules/model.py sinusoidal_embedding_1d(dim, position): position
    # in float64; sinusoid = outer(position, pow(10000, -arange(half).div(half)));
    # cat([cos(sinusoid), sin(sinusoid)], dim=1).
    half = d // 2
    sinusoid = np.outer(np.arange(n, dtype=np.float64), np.power(10000.0, -np.arange(half) / half))
    return np.concatenate([np.cos(sinusoid), np.sin(sinusoid)], axis=1)


# (convention, formula, table row of the first real token = position_offset)
PUBLISHED = [
    (PRESETS["canonical"], _vaswani),
    (PRESETS["tensor2tensor"], _fairseq_like),
    (PRESETS["fairseq"], _fairseq_like),  # row r is position r − 2
    (PRESETS["whisper"], _fairseq_like),
    (PRESETS["guided-diffusion"], _guided_diffusion),
    (PRESETS["marian"], _marian),
    (PRESETS["diffusers"], _diffusers(False, 1.0, 1.0)),
    (PRESETS["mlx"], _mlx),
    (diffusers_convention(True, 0.0, 1.0), _diffusers(True, 0.0, 1.0)),
    (diffusers_convention(False, 1.0, 1000.0), _diffusers(False, 1.0, 1000.0)),
    # the timestep presets of SPEC §3.3, as real pipelines call get_timestep_embedding
    (TIMESTEP_PRESETS["diffusers-unet"], _diffusers(True, 0.0, 1.0)),
    (TIMESTEP_PRESETS["sd3"], _diffusers(True, 0.0, 1.0)),
    (TIMESTEP_PRESETS["pixart"], _diffusers(True, 0.0, 1.0)),
    (TIMESTEP_PRESETS["dit"], _guided_diffusion),
    (TIMESTEP_PRESETS["flux"], _flux),
    (TIMESTEP_PRESETS["wan"], _wan),
]


@pytest.mark.parametrize(("convention", "formula"), PUBLISHED, ids=lambda v: getattr(v, "name", ""))
def test_presets_match_their_published_formulas(
    convention: Convention, formula: Callable[[int, int], NDArray[np.float64]]
) -> None:
    d, rows = 16, 12
    table = formula(rows, d)
    # the table's row r holds the position p with p + o = r
    positions = np.arange(rows) - convention.position_offset
    exact = oracle.encode(positions, d, convention=convention)
    # The float64 formulas round ln(10000) and the exponent product (3 roundings, each
    # ≤ u relative, amplified by t = |exponent| ≤ ln(10000) = 9.22 through exp), exp itself
    # (≤ 1 ulp), the angle product(s) (≤ 2 roundings) and sin/cos (≤ 1 ulp ≤ 2u):
    # |err| ≤ |θ|·(3t + 1 + 2)·u·(1 + 2u)... ≤ |θ|·(3·9.22 + 4)·u + 2u with |θ| ≤ c·rows.
    theta_max = abs(convention.argument_scale) * rows
    bound = theta_max * (3 * math.log(10000) + 4) * U + 2 * U
    assert np.max(np.abs(table - exact)) <= bound
    # and the bound is tight enough to tell the presets apart (equal fields = same math)
    for other, _ in PUBLISHED:
        if other != convention:
            wrong = oracle.encode(positions, d, convention=other)
            assert np.max(np.abs(table - wrong)) > 100 * bound


def test_every_preset_has_a_published_transcription() -> None:
    for name, known in {**PRESETS, **TIMESTEP_PRESETS}.items():
        assert any(convention is known for convention, _ in PUBLISHED), name


def test_flux_scaling_before_and_after_the_frequencies_are_the_same_value() -> None:
    # SPEC §4.2: Flux forms (1000·t)·ω, diffusers scale·(t·ω); exactly the same real number,
    # rounded differently: both float64 evaluations are within the transcription bound.
    t = np.array([0.0, 0.25, 0.5, 0.99839, 1.0])
    d = 16
    half = d // 2
    freqs = np.exp(-math.log(10000) * np.arange(half) / half)
    before = (1000.0 * t)[:, None] * freqs[None]
    after = 1000.0 * (t[:, None] * freqs[None])
    exact = oracle.encode(t, d, convention=TIMESTEP_PRESETS["flux"])
    bound = 1000 * (3 * math.log(10000) + 5) * U + 2 * U
    for args in (before, after):
        table = np.concatenate([np.cos(args), np.sin(args)], axis=-1)
        assert np.max(np.abs(table - exact)) <= bound


def test_undefined_conventions_are_rejected() -> None:
    shifted = Convention(layout="sin_cos_halves", frequency_shift=1)
    assert shifted.denominator(4) == 1.0
    with pytest.raises(ValueError, match="undefined for d_model=2"):
        shifted.denominator(2)
    with pytest.raises(ValueError, match="undefined"):
        Convention(frequency_shift=2.5).denominator(4)
    with pytest.raises(ValueError, match="undefined"):
        oracle.encode([1], 2, convention=shifted)


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"layout": "halves"}, ValueError, "layout must be one of"),
        ({"frequency_shift": math.nan}, ValueError, "frequency_shift"),
        ({"frequency_shift": True}, TypeError, "frequency_shift"),
        ({"frequency_shift": Fraction(1, 3)}, ValueError, "exactly representable"),
        ({"argument_scale": 0.0}, ValueError, "non-zero"),
        ({"argument_scale": math.inf}, ValueError, "argument_scale"),
        ({"argument_scale": 10**400}, ValueError, "argument_scale"),
        ({"position_offset": 1.5}, TypeError, "position_offset must be an int"),
        ({"position_offset": False}, TypeError, "position_offset"),
    ],
)
def test_bad_fields_are_rejected(
    kwargs: dict[str, object], error: type[Exception], pattern: str
) -> None:
    with pytest.raises(error, match=pattern):
        Convention(**kwargs)  # type: ignore[arg-type]


def test_fields_are_normalised_and_names_are_honest() -> None:
    convention = Convention(frequency_shift=1, position_offset=np.int64(2), argument_scale=2)
    assert type(convention.frequency_shift) is float
    assert type(convention.argument_scale) is float
    assert type(convention.position_offset) is int
    assert convention.name == "custom"  # not the default "canonical"
    assert CANONICAL.is_canonical and CANONICAL.name == "canonical"
    assert not PRESETS["marian"].is_canonical


_conventions = st.builds(
    Convention,
    layout=st.sampled_from(LAYOUTS),
    frequency_shift=st.floats(-8, 8, allow_nan=False),
    position_offset=st.integers(-(2**40), 2**40),
    argument_scale=st.floats(-1e6, 1e6, allow_nan=False).filter(lambda v: v != 0),
    name=st.text(max_size=12),
)


@given(_conventions)
def test_dict_round_trip_through_json(convention: Convention) -> None:
    data = json.loads(json.dumps(convention.to_dict()))
    back = Convention.from_dict(data)
    assert back == convention
    assert back.name == convention.name
    assert back.to_dict() == convention.to_dict()


def test_from_dict_names_missing_and_unknown_keys() -> None:
    data = CANONICAL.to_dict()
    del data["layout"]
    data["scale"] = 2
    with pytest.raises(ValueError, match=r"missing \['layout'\], unknown \['scale'\]"):
        Convention.from_dict(data)


def test_presets_table_lists_every_preset() -> None:
    table = presets_table()
    for name in PRESETS:
        assert f"| `{name}` |" in table
    # s = 1 presets have lowest frequency exactly 1/base: 10000^-1
    assert "| `whisper` | sin_cos_halves | 1 | 0 | 1 | 1 | 0.0001 |" in table
    assert "| `mlx` | sin_cos_halves | 1 | 0 | 1 | √(2/d) | 0.0001 |" in table
