"""Tests of the diagnosis (SPEC Annex D): convention and working precision of failing backends.

Expected answers come from how each emulation is built (tests/diagnosis_emulations.py:
layout, shift, offset, scale, base and working format are its constructor arguments), from
IEEE 754 facts (the largest exactly representable integer of each format) and from the
error model's own position limit (SPEC Annex A.2), never from the diagnosis itself.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from diagnosis_emulations import (
    EMULATIONS,
    FORMATS,
    MISTAKES,
    UNEXPLAINED,
    Emulation,
    Expected,
)
from hypothesis import given
from hypothesis import strategies as st
from numpy.typing import NDArray

from pespec.sinusoidal.diagnosis import Diagnosis, classify_error_bits, diagnose
from pespec.sinusoidal.properties.base import LEVELS, SIGNIFICAND_BITS, Level, level_for_dtype
from pespec.sinusoidal.properties.errormodel import meaningful_position_limit


def _level(emulation: Emulation) -> Level:
    """The default level of the emulation's output format (what the suite would check)."""
    return level_for_dtype(FORMATS[emulation.output or emulation.work])


_CACHE: dict[str, Diagnosis] = {}


def _diagnosis(expected: Expected) -> Diagnosis:
    """One diagnosis per emulation for the whole module (they are deterministic)."""
    name = expected.emulation.name
    if name not in _CACHE:
        _CACHE[name] = diagnose(
            expected.emulation,
            level=_level(expected.emulation),
            integer_positions_only=expected.integer_positions_only,
        )
    return _CACHE[name]


@pytest.mark.slow
@pytest.mark.parametrize("expected", EMULATIONS, ids=lambda e: e.emulation.name)
def test_names_the_convention_and_the_precision(expected: Expected) -> None:
    diagnosis = _diagnosis(expected)
    assert diagnosis.explained, diagnosis.sentence()
    convention = diagnosis.convention
    assert convention is not None
    assert convention["layout"] == expected.layout
    assert convention["frequency_shift"] == expected.frequency_shift
    assert convention["preset"] == expected.preset
    assert convention["position_offset"] == expected.position_offset
    assert convention["argument_scale"] == expected.argument_scale
    assert convention["output_scale_rule"] == expected.output_scale_rule
    if expected.output_scale_rule == "constant":
        assert convention["output_scale"] == expected.output_scale
    else:
        assert convention["output_scale"] == math.sqrt(2.0 / 64)
    if expected.base is None:
        assert convention["base_follows_argument"] and convention["base"] == 10000.0
    else:
        assert not convention["base_follows_argument"] and convention["base"] == expected.base
    assert diagnosis.working_precision == expected.precision


@pytest.mark.parametrize("expected", EMULATIONS, ids=lambda e: e.emulation.name)
def test_meaningful_limit_is_consistent_with_the_format(expected: Expected) -> None:
    """Below: the error model guarantees 1e-2 up to its limit at the detected precision
    (the probes are at most a factor 2 apart). Above: integer positions beyond 2^p are
    rounded in a p-bit working format, and one position step moves column 0 (ω_0 = 1) by
    |sin(2^p + 1) − sin(2^p)| > 1e-2 (asserted here from math.sin)."""
    diagnosis = _diagnosis(expected)
    limit = diagnosis.meaningful_position_limit
    assert limit is not None
    level = Level(_level(expected.emulation).output_dtype, expected.precision)
    base = expected.base or 10000.0
    # The bound depends on the angle c·p·ω: a scale c divides the position limit by c.
    model = meaningful_position_limit(level, 64, base) / expected.argument_scale
    assert limit >= min(model, 32.0)
    assert limit >= model / 2 or diagnosis.limit_is_lower_bound  # every probe passed
    if expected.precision == "float64":
        assert diagnosis.limit_is_lower_bound
    else:
        top = 2 ** SIGNIFICAND_BITS[expected.precision]
        assert abs(math.sin(top + 1) - math.sin(top)) > 1e-2
        assert limit < top + 1 and not diagnosis.limit_is_lower_bound


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(UNEXPLAINED))
def test_no_false_match(name: str) -> None:
    diagnosis = diagnose(UNEXPLAINED[name], level=LEVELS["float64"])
    assert not diagnosis.explained
    assert diagnosis.convention is None
    assert diagnosis.meaningful_position_limit is None
    assert diagnosis.sentence().startswith("Output matches no known convention")
    json.dumps(diagnosis.to_dict(), allow_nan=False)  # JSON-ready, no NaN/inf
    for candidate in diagnosis.candidates:
        assert set(candidate) == {
            "convention",
            "rms_error",
            "max_abs_error",
            "max_error_over_bound",
        }
        assert candidate["max_error_over_bound"] > 1.0  # none of them explains the output


@pytest.mark.slow
@pytest.mark.parametrize("name", ["garbage", "constant", "raises", "nan"])
def test_unusable_output_has_unknown_precision(name: str) -> None:
    assert diagnose(UNEXPLAINED[name], level=LEVELS["float32"]).working_precision == "unknown"


def test_garbage_lists_closest_candidates_by_residual() -> None:
    candidates = diagnose(UNEXPLAINED["garbage"], level=LEVELS["float64"]).candidates
    assert 1 <= len(candidates) <= 3
    residuals = [candidate["rms_error"] for candidate in candidates]
    assert residuals == sorted(residuals)


def _perturbed(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """Canonical float64 with one column 1 % too large: a bug, not a convention."""
    out = np.asarray(Emulation("canonical")(positions, d_model, base), dtype=np.float64)
    out[:, 5] *= 1.01
    return out


@pytest.mark.slow
def test_a_small_bug_is_not_explained() -> None:
    diagnosis = diagnose(_perturbed, level=LEVELS["float64"])
    assert not diagnosis.explained
    assert diagnosis.candidates[0]["max_abs_error"] < 0.02  # the near miss is reported


def test_sentences_say_what_was_found() -> None:
    by_name = {expected.emulation.name: expected for expected in EMULATIONS}
    t2t = _diagnosis(by_name["tensor2tensor @float32"]).sentence()
    assert "tensor2tensor" in t2t and "sines|cosines halves" in t2t
    assert "ω_k = base^(−k/(d/2−1))" in t2t and "not the canonical encoding" in t2t
    bf16 = _diagnosis(by_name["canonical @bfloat16"]).sentence()
    assert bf16.startswith("Output follows the canonical convention")
    assert "computed in bfloat16" in bf16 and "only up to position ~" in bf16
    fixed = _diagnosis(by_name["base fixed 1000"]).sentence()
    assert "base fixed at 1000" in fixed
    fairseq = _diagnosis(by_name["fairseq @float64"]).sentence()
    assert "positions shifted by +2" in fairseq
    mlx = _diagnosis(by_name["mlx"]).sentence()
    assert "√(2/d)" in mlx


def test_to_dict_is_json_and_deterministic() -> None:
    emulation = EMULATIONS[3].emulation
    first = diagnose(emulation, level=_level(emulation)).to_dict()
    second = diagnose(emulation, level=_level(emulation)).to_dict()
    assert json.dumps(first, allow_nan=False) == json.dumps(second, allow_nan=False)
    assert set(first["convention"]) >= {
        "layout",
        "frequency_shift",
        "base",
        "position_offset",
        "argument_scale",
        "output_scale",
        "preset",
    }
    assert first["working_precision"] in {"float64", "float32", "float16", "bfloat16", "unknown"}


def _integer_table(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """A fairseq-style lookup table in float32: integer positions only."""
    if np.asarray(positions).dtype.kind != "i":
        raise TypeError("positions must be integers")
    return Emulation("fairseq table", "sin_cos_halves", 1.0, offset=2, work="float32")(
        positions, d_model, base
    )


def test_integer_positions_only_is_honoured() -> None:
    diagnosis = diagnose(_integer_table, level=LEVELS["float32"], integer_positions_only=True)
    assert diagnosis.explained and diagnosis.convention is not None
    assert diagnosis.convention["preset"] == "fairseq"
    assert diagnosis.working_precision == "float32"
    # Probed with fractional positions the same backend raises; the integer grid, tried
    # next, explains it, and the sentence says to declare integer positions only.
    undeclared = diagnose(_integer_table, level=LEVELS["float32"])
    assert undeclared.explained and undeclared.explained_at_integers_only
    assert undeclared.convention is not None and undeclared.convention["preset"] == "fairseq"
    assert "declare integer_positions_only" in undeclared.sentence()


def _short_table(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """Canonical float32 that raises beyond a 5000-row table."""
    if int(np.max(positions)) >= 5000:
        raise IndexError("position out of the table")
    return Emulation("canonical", work="float32")(positions, d_model, base)


def test_a_backend_failing_at_large_positions_is_still_diagnosed() -> None:
    diagnosis = diagnose(_short_table, level=LEVELS["float32"])
    assert diagnosis.explained and diagnosis.working_precision == "float32"
    assert diagnosis.convention is not None and diagnosis.convention["preset"] == "canonical"
    limit = diagnosis.meaningful_position_limit
    assert limit is not None and limit < 5000
    assert diagnosis.departs_from_position is not None
    assert diagnosis.departs_from_position >= 5000


@pytest.mark.parametrize(
    ("bits", "floor_bits", "expected"),
    [
        # A p-bit format shows bits near [p, p + 2.5] (SPEC Annex D.3): both ends of each.
        (8.0, 40.0, "bfloat16"),
        (10.5, 40.0, "bfloat16"),
        (11.0, 40.0, "float16"),
        (13.5, 40.0, "float16"),
        (24.0, 40.0, "float32"),
        (26.5, 40.0, "float32"),
        (53.0, 90.0, "float64"),
        (55.5, 90.0, "float64"),
        (3.0, 40.0, "unknown"),  # more error than bfloat16 makes: not a precision
        (math.inf, 30.0, "float64"),  # float32 (24..26.5 bits) would have shown
        (math.inf, 20.0, "unknown"),  # float32 would have been invisible
    ],
)
def test_precision_classes(bits: float, floor_bits: float, expected: str) -> None:
    assert classify_error_bits(bits, floor_bits) == expected


def test_real_pytorch_module_in_low_precision() -> None:
    """The common PyTorch PositionalEncoding recipe run in the model dtype (torch arithmetic,
    not our emulation): arange, exp(arange·(−ln base/d)), position·div_term, sin/cos."""
    torch = pytest.importorskip("torch")
    import ml_dtypes

    def module(dtype: Any) -> Any:
        def encoder(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
            position = torch.as_tensor(np.asarray(positions)).to(dtype).unsqueeze(1)
            step = -math.log(base) / d_model
            div_term = torch.exp(torch.arange(0, d_model, 2, dtype=dtype) * step)
            pe = torch.zeros(len(positions), d_model, dtype=dtype)
            pe[:, 0::2] = torch.sin(position * div_term)
            pe[:, 1::2] = torch.cos(position * div_term)
            return (
                pe.float()
                .numpy()
                .astype(ml_dtypes.bfloat16 if dtype == torch.bfloat16 else np.float16)
            )

        return encoder

    for dtype, name in ((torch.bfloat16, "bfloat16"), (torch.float16, "float16")):
        diagnosis = diagnose(module(dtype), level=LEVELS[name])
        assert diagnosis.explained and diagnosis.convention is not None
        assert diagnosis.convention["preset"] == "canonical"
        assert diagnosis.working_precision == name


def _nan_rows(rows: str) -> Any:
    """Canonical float64 with NaN in the row of position 0 ("first") or of position 2."""

    def encoder(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
        out = np.asarray(Emulation("canonical")(positions, d_model, base), dtype=np.float64)
        out[np.asarray(positions) == (0 if rows == "first" else 2)] = np.nan
        return out

    return encoder


def test_nan_at_the_edge_of_the_probe_is_reported_not_fatal() -> None:
    diagnosis = diagnose(_nan_rows("first"), level=LEVELS["float64"])
    assert diagnosis.explained and diagnosis.convention is not None
    assert diagnosis.convention["preset"] == "canonical"
    assert diagnosis.non_finite_positions == [0.0]
    assert "non-finite values at position 0" in diagnosis.sentence()


def test_nan_inside_the_probe_gives_no_convention() -> None:
    assert not diagnose(_nan_rows("inside"), level=LEVELS["float64"]).explained


@pytest.mark.slow
@given(
    st.sampled_from(["uniform", "huge", "tiny", "sign", "random frequencies"]),
    st.integers(0, 2**32 - 1),
)
def test_arbitrary_output_never_crashes_nor_matches(kind: str, seed: int) -> None:
    """Whatever finite array a backend returns, the diagnosis returns (no exception) and a
    random array is never explained."""

    def encoder(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
        rng = np.random.default_rng([seed, d_model, int(base), len(positions)])
        shape = (len(positions), d_model)
        if kind == "uniform":
            return rng.uniform(-1.0, 1.0, shape)
        if kind == "huge":
            return rng.uniform(-1.0, 1.0, shape) * 1e300
        if kind == "tiny":
            return rng.uniform(-1.0, 1.0, shape) * 1e-300
        if kind == "sign":
            return rng.choice([-1.0, 1.0], shape)
        # sin/cos pairs of random, non-geometric frequencies: sinusoidal but no member.
        omega = rng.uniform(0.0, 1.0, d_model // 2)
        theta = np.asarray(positions, dtype=np.float64)[:, None] * omega
        return np.concatenate([np.sin(theta), np.cos(theta)], axis=1)

    diagnosis = diagnose(encoder, level=LEVELS["float32"])
    assert not diagnosis.explained
    json.dumps(diagnosis.to_dict(), allow_nan=False)


_TENSOR2TENSOR = Emulation("t2t-16", layout="sin_cos_halves", shift=1.0)


def _narrow(limit: int, calls: list[int]) -> Any:
    """The tensor2tensor convention in float64 that raises for d_model > ``limit``."""

    def backend(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        calls.append(int(d_model))
        if d_model > limit:
            raise ValueError(f"d_model > {limit} is not supported")
        return _TENSOR2TENSOR(positions, d_model, base)

    backend.pespec_capabilities = {"max_d_model": limit}  # type: ignore[attr-defined]
    return backend


def test_the_suite_diagnoses_within_the_declared_max_d_model() -> None:
    # Declared max_d_model = 16: the fit probes are d = 16 and 8 (two dimensions separate
    # base 10^4 from s = 1, the emulation's constructor arguments), never d = 64 or 32.
    from pespec.conformance import check

    calls: list[int] = []
    report = check(_narrow(16, calls), stages=("contract", "golden"))
    assert report.diagnosis is not None, report.diagnosis_sentence
    convention = report.diagnosis["convention"]
    assert convention is not None, report.diagnosis_sentence
    assert convention["preset"] == "tensor2tensor"
    assert (convention["frequency_shift"], convention["base"]) == (1.0, 10000.0)
    assert convention["base_follows_argument"]
    assert max(calls) <= 16


@pytest.mark.parametrize("limit", [6, 8, 12])
def test_two_fit_dimensions_within_a_small_max_d_model_separate_base_and_shift(
    limit: int,
) -> None:
    calls: list[int] = []
    diagnosis = diagnose(_narrow(limit, calls), level=LEVELS["float64"], max_d_model=limit)
    assert diagnosis.explained and diagnosis.convention is not None, diagnosis.sentence()
    assert diagnosis.convention["frequency_shift"] == 1.0
    assert diagnosis.convention["preset"] == "tensor2tensor"
    assert max(calls) <= limit and len(set(calls)) == 2
    assert "cannot" not in diagnosis.sentence() and "observable" not in diagnosis.sentence()


def test_max_d_model_4_says_base_and_shift_are_not_separated() -> None:
    # d = 4 has two pairs: ω_1 = b^(−1/(2 − s)) gives only ln b/(2 − s); d = 2 adds nothing.
    calls: list[int] = []
    diagnosis = diagnose(_narrow(4, calls), level=LEVELS["float64"], max_d_model=4)
    assert set(calls) == {4}
    assert diagnosis.convention is not None and diagnosis.convention["frequency_shift"] == 1.0
    assert "only ln(base)/(d/2 − s) is observable" in diagnosis.sentence()
    assert "base is taken to be the one requested" in diagnosis.sentence()


def test_max_d_model_2_says_base_and_shift_do_not_matter() -> None:
    # At d = 2 the only frequency is ω_0 = base^0 = 1: no fit of base or shift is possible.
    calls: list[int] = []
    canonical = Emulation("canonical-2", work="float16")

    def backend(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        calls.append(int(d_model))
        return canonical(positions, d_model, base)

    diagnosis = diagnose(backend, level=LEVELS["float64"], max_d_model=2)
    assert set(calls) == {2}
    assert "neither the base nor the frequency shift affects the output" in diagnosis.sentence()
    json.dumps(diagnosis.to_dict())  # the closest candidates leave out presets undefined at d = 2


# --- issue 12, item 3: what the fit alone called "canonical" or "no known convention" -------


@pytest.mark.parametrize("work", ["float64", "float32"])
def test_a_base_fixed_at_10000_is_named_not_called_canonical(work: str) -> None:
    """Before: "Output matches the canonical convention computed in float32; the failure is
    neither a different convention nor a lower working precision" while the JSON said
    base_follows_argument false."""
    backend = Emulation(f"base fixed 10000 @{work}", fixed_base=10000.0, work=work)
    found = diagnose(backend, level=level_for_dtype(FORMATS[work]))
    data = found.to_dict()
    assert data["explained"] and data["working_precision"] == work
    assert data["convention"]["base"] == 10000.0
    assert data["convention"]["base_follows_argument"] is False
    sentence = data["sentence"]
    assert "base fixed at 10000 whatever base is requested" in sentence
    assert "neither a different convention" not in sentence
    assert sentence.startswith(f"Output follows the canonical convention computed in {work}")


def test_the_suite_names_a_base_fixed_at_10000() -> None:
    from pespec.conformance import check

    backend = Emulation("base fixed 10000 @float32", fixed_base=10000.0, work="float32")
    report = check(backend, stages=("contract", "golden"))
    assert not report.conformant
    assert report.get("golden:base-100-d128").status == "failed"
    assert report.diagnosis_sentence is not None
    assert "base fixed at 10000 whatever base is requested" in report.diagnosis_sentence
    data = json.loads(report.to_json())
    assert data["diagnosis"]["convention"]["base_follows_argument"] is False


@pytest.mark.parametrize(
    ("backend", "mistake", "precision"),
    [entry[1:] for entry in MISTAKES],
    ids=[entry[0] for entry in MISTAKES],
)
def test_a_common_mistake_is_named(backend: Any, mistake: str, precision: str) -> None:
    """Before: "Output matches no known convention of the sinusoidal family (closest:
    guided-diffusion, max error 2)" for swapped sin/cos, and likewise for 4i/d and i/d."""
    level = level_for_dtype(np.dtype(backend(np.arange(2), 4, 10000.0).dtype))
    found = diagnose(backend, level=level)
    data = found.to_dict()
    assert data["convention"] is None and not data["explained"]
    assert data["known_mistake"]["name"] == mistake
    assert data["known_mistake"]["working_precision"] == precision
    assert data["working_precision"] == precision
    assert data["known_mistake"]["max_error_over_bound"] <= 1.0
    words = {
        "sin_cos_swapped": "sin and cos swapped within each pair",
        "exponent_4i_over_d": "the exponent 4i/d instead of 2i/d",
        "exponent_i_over_d": "the exponent i/d instead of 2i/d",
    }[mistake]
    assert data["sentence"].startswith(f"Output is the canonical encoding with {words}")
    assert f"computed in {precision}" in data["sentence"]
    json.dumps(data, allow_nan=False)


def test_the_catalog_mistakes_are_named_by_the_suite() -> None:
    """The buggy catalog's swapped and i/d backends, through the suite as a user runs it."""
    from catalog.buggy import exponent_i_over_d, swapped

    from pespec.conformance import check

    for backend, name in ((swapped, "sin_cos_swapped"), (exponent_i_over_d, "exponent_i_over_d")):
        report = check(backend, stages=("contract", "golden"))
        assert report.diagnosis is not None
        assert report.diagnosis["known_mistake"]["name"] == name
