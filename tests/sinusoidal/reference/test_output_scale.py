"""The output scale A of a convention (SPEC §3.1, Annex F.8): mlx's default √(2/d).

The oracle is checked against an independent mpmath transcription of the scaled encoding
at 400 bits; the exact float64 reference against the oracle within its scaled error
(Annex C.7); the §4 bound with the product by a rounded A (Annex A.7) against float32
ports; the diagnosis names the missing scale.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.conformance import check
from pespec.sinusoidal.properties.base import EncodingConfig, parse_level
from pespec.sinusoidal.properties.errormodel import element_bound_parts
from pespec.sinusoidal.reference import oracle
from pespec.sinusoidal.reference._oracle_mpmath import mpf_to_float
from pespec.sinusoidal.reference.conventions import MLX, PRESETS, TENSOR2TENSOR, Convention
from pespec.sinusoidal.reference.exact import (
    exact_encode,
    exact_sinusoidal_positional_encoding,
    iter_encoding_chunks,
    scaled_reference_error,
)


def _mpmath_scaled_row(position: float, d: int, base: float, convention: Convention) -> list[float]:
    """A·sin θ_k, A·cos θ_k at 400 bits: A = √(2/d) or the float, ω = mpmath.power."""
    pair, is_sin = convention.column_roles(d)
    with mpmath.workprec(400):
        if convention.output_scale == "sqrt(2/d)":
            amplitude = mpmath.sqrt(mpmath.mpf(2) / d)
        else:
            amplitude = mpmath.mpf(convention.output_scale)
        den = Fraction(d // 2) - Fraction(convention.frequency_shift)
        x = mpmath.mpf(convention.argument_scale) * (
            mpmath.mpf(position) + convention.position_offset
        )
        row = []
        for j in range(d):
            k = int(pair[j])
            omega = mpmath.power(mpmath.mpf(base), -mpmath.mpf(k * den.denominator) / den.numerator)
            value = mpmath.sin(x * omega) if is_sin[j] else mpmath.cos(x * omega)
            row.append(mpf_to_float(amplitude * value))
    return row


SCALED = [MLX, Convention(output_scale=0.75, name="three-quarters")]


@pytest.mark.parametrize("convention", SCALED, ids=lambda c: c.name)
@pytest.mark.parametrize("d_model", [4, 6, 16, 100])
def test_oracle_matches_an_independent_mpmath_transcription(
    convention: Convention, d_model: int
) -> None:
    positions = [0, 1, 2, 7, -5, 1000, 123457, 2**40 + 3, 0.5, 1e-3, -2.75]
    got = oracle.encode(np.array(positions, dtype=np.float64), d_model, convention=convention)
    for row, position in zip(got, positions, strict=True):
        assert row.tolist() == _mpmath_scaled_row(position, d_model, 10000.0, convention)


def test_oracle_decimal_strings_are_scaled() -> None:
    rows = oracle.encode_decimal([0, 3], 8, convention=MLX, digits=20)
    with mpmath.workprec(400):
        half = mpmath.sqrt(mpmath.mpf(2) / 8)  # = 1/2 exactly
        expected = mpmath.nstr(half * mpmath.sin(3 * mpmath.power(10000, -mpmath.mpf(1) / 3)), 20)
    assert rows[0][4] == "5.0000000000000000000e-01"  # cos 0 · A, never −0 in the sine
    assert rows[0][0] == "0.0000000000000000000e+00"
    assert float(rows[1][1]) == pytest.approx(float(mpmath.mpf(expected)), rel=1e-18)


def test_amplitude_is_the_correctly_rounded_square_root() -> None:
    with mpmath.workprec(300):
        for d in range(4, 4098, 2):
            assert MLX.amplitude(d) == float(mpmath.sqrt(mpmath.mpf(2) / d)), d
    assert MLX.amplitude_squared(64) == Fraction(1, 32)
    assert Convention(output_scale=0.3).amplitude(8) == 0.3


def test_unscaled_conventions_keep_their_json_and_equality() -> None:
    for name, convention in PRESETS.items():
        data = convention.to_dict()
        assert ("output_scale" in data) == (name == "mlx")
        assert Convention.from_dict(data) == convention
    assert MLX.to_dict()["output_scale"] == "sqrt(2/d)"
    assert MLX != TENSOR2TENSOR
    assert not MLX.is_canonical


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (0.0, ValueError),
        (1.5, ValueError),
        (-0.5, ValueError),
        (math.nan, ValueError),
        ("sqrt(d)", ValueError),
        (True, TypeError),
        (Fraction(1, 3), ValueError),
    ],
)
def test_bad_output_scales_are_rejected_by_name(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="output_scale"):
        Convention(output_scale=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("d_model", [4, 6, 16, 512])
def test_exact_reference_is_within_its_scaled_error(d_model: int) -> None:
    positions = np.array([0, 1, 5, 1000, 65535, 2**30 + 1, -77], dtype=np.int64)
    got = exact_encode(positions, d_model, convention=MLX)
    exact = oracle.encode(positions, d_model, convention=MLX)
    bound = scaled_reference_error(MLX, d_model)
    assert bound <= MLX.amplitude(d_model) * 2.0**-51 * (1 + 2.0**-49)
    assert np.max(np.abs(got - exact)) <= bound


def test_every_exact_entry_point_applies_the_scale_once() -> None:
    """The scale is applied after the shared rotation (pespec.numerics.rotation, which knows
    no output scale) on each of the reference's paths: integer ranges, gathers, fractional
    positions, and the chunked stream; each within the scaled error of the oracle."""
    d_model = 32
    bound = scaled_reference_error(MLX, d_model)
    ints = np.arange(5, 45, dtype=np.int64)
    fractional = np.array([0.5, 3.25, -7.125, 1000.75, 2.0], dtype=np.float64)
    got = {
        "range": exact_sinusoidal_positional_encoding(40, d_model, offset=5, convention=MLX),
        "gather": exact_encode(ints[::-3], d_model, convention=MLX),
        "fractional": exact_encode(fractional, d_model, convention=MLX),
        "stream": np.concatenate(
            [
                b
                for _, b in iter_encoding_chunks(
                    range(5, 45), d_model, convention=MLX, chunk_rows=7
                )
            ]
        ),
        "stream-array": np.concatenate(
            [b for _, b in iter_encoding_chunks(fractional, d_model, convention=MLX, chunk_rows=2)]
        ),
    }
    want = {
        "range": oracle.encode(ints, d_model, convention=MLX),
        "gather": oracle.encode(ints[::-3], d_model, convention=MLX),
        "fractional": oracle.encode(fractional, d_model, convention=MLX),
        "stream": oracle.encode(ints, d_model, convention=MLX),
        "stream-array": oracle.encode(fractional, d_model, convention=MLX),
    }
    for path, values in got.items():
        assert np.max(np.abs(values - want[path])) <= bound, path


def _float32_port(
    scale: bool, mlx_frequencies: bool = False
) -> object:  # a backend: (positions, d_model, base) -> (n, d) float32
    """mlx's module as a float32 NumPy port: halves, ω_k = base^(−k/(d/2 − 1)), then ×A."""

    def encode(positions: NDArray[np.float64], d_model: int, base: float) -> NDArray[np.float32]:
        half = d_model // 2
        if mlx_frequencies:  # exp((1 − k/(h − 1))·(ln max − ln min) + ln min), as mlx
            one_zero = 1 - np.arange(half, dtype=np.float32) / np.float32(half - 1)
            low = np.float32(math.log(1.0 / base))
            sigmas = np.exp(one_zero * -low + low)
        else:  # SPEC §4.1 A3: exp(−k·(ln base/(d/2 − 1)))
            step = np.float32(math.log(base) / (half - 1))
            sigmas = np.exp(-np.arange(half, dtype=np.float32) * step)
        y = np.asarray(positions).astype(np.float32)[:, None] * sigmas
        out = np.concatenate([np.sin(y), np.cos(y)], axis=-1)
        if scale:
            out = out * np.float32((2 / d_model) ** 0.5)  # mlx: float64 scale, float32 product
        return out.astype(np.float32)

    return encode


def _worst_ratio(backend: object, d_model: int, convention: Convention) -> float:
    positions = np.array([*range(300), 4097, 65535, 100000, 2**24 - 1], dtype=np.int64)
    y = backend(positions, d_model, 10000.0).astype(np.float64)  # type: ignore[operator]
    x = oracle.encode(positions, d_model, convention=convention)
    config = EncodingConfig(positions, d_model, 10000.0, convention)
    bound = element_bound_parts(config, parse_level("float32"), np.abs(x) + 2.0**-54).total
    return float(np.max(np.abs(y - x) / bound))


@pytest.mark.parametrize("d_model", [4, 6, 64, 512])
def test_scaled_float32_port_is_within_the_bound(d_model: int) -> None:
    assert _worst_ratio(_float32_port(True), d_model, MLX) <= 1.0


def test_scale_term_is_needed_for_the_bound() -> None:
    # Without the scale the working error would be the unscaled E; with A = √(2/d) the
    # bound is A·(E + m·γ(4)) (SPEC Annex A.7): smaller than E, and above the port's error.
    positions = np.arange(50, dtype=np.int64)
    level = parse_level("float32")
    x = oracle.encode(positions, 64, convention=MLX)
    scaled = element_bound_parts(EncodingConfig(positions, 64, 10000.0, MLX), level, np.abs(x))
    unscaled = dataclasses.replace(TENSOR2TENSOR, frequency_formula="log-linear")  # as MLX
    plain = element_bound_parts(
        EncodingConfig(positions, 64, 10000.0, unscaled), level, np.abs(x) / 0.25
    )
    amplitude = MLX.amplitude(64)
    g4 = 4 * level.u_work / (1 - 4 * level.u_work)
    m = np.minimum(np.abs(x) / amplitude + plain.working, 1.0)
    np.testing.assert_allclose(scaled.working, amplitude * (plain.working + m * g4), rtol=1e-15)


@pytest.mark.slow
def test_correct_float32_port_is_conformant_to_mlx() -> None:
    report = check(_float32_port(True), level="float32", convention="mlx", profile="ci")
    assert report.verdict == "conformant", [
        c.message for c in report.checks if c.status == "failed"
    ]


def test_port_without_the_scale_fails_and_the_diagnosis_names_the_scale() -> None:
    report = check(
        _float32_port(False), level="float32", convention="mlx", stages=("golden",), profile="ci"
    )
    assert report.verdict == "non-conformant"
    sentence = report.diagnosis_sentence or ""
    assert "not the declared mlx convention" in sentence
    assert "outputs scaled by √(2/d)" in sentence.split("not the declared")[1]


def test_undeclared_scaled_port_is_recognised_as_mlx() -> None:
    report = check(_float32_port(True), level="float32", stages=("golden",), profile="ci")
    assert report.verdict == "non-conformant"
    assert "--convention mlx" in (report.diagnosis_sentence or "")
