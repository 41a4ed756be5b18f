"""Each SPEC §5 property: passes for the correctly rounded encoding, fails for a bug it targets,
and says what, where, by how much, and how to reproduce."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from numpy.typing import NDArray
from paths import ROOT

from pespec.sinusoidal.properties import (
    PROPERTIES,
    prop_accuracy,
    prop_boundedness,
    prop_determinism,
    prop_dot_products,
    prop_frequency_structure,
    prop_low_precision,
    prop_norm,
    prop_rotation,
    prop_uniqueness,
    structure,
)
from pespec.sinusoidal.properties.base import LEVELS, EncodingConfig, Level, PropertyViolation
from pespec.sinusoidal.properties.rows import ORACLE_ERROR
from pespec.sinusoidal.reference import oracle
from pespec.sinusoidal.reference.conventions import MARIAN, TENSOR2TENSOR

Backend = Callable[[NDArray[Any], int, float], NDArray[Any]]


def rounded(dtype: Any, convention: Any = None) -> Backend:
    """The certified oracle rounded to ``dtype``: conformant at every default level."""

    def encoder(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        kwargs = {} if convention is None else {"convention": convention}
        return oracle.encode(positions, d_model, base=base, **kwargs).astype(dtype)

    return encoder


def perturbed(change: Callable[[NDArray[np.float64], NDArray[Any]], None], dtype: Any) -> Backend:
    """The rounded oracle with ``change(values, positions)`` applied before the final cast."""

    def encoder(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        values = oracle.encode(positions, d_model, base=base)
        change(values, positions)
        return values.astype(dtype)

    return encoder


CONFIG = EncodingConfig(np.arange(0, 40, dtype=np.int64), 16)
F32 = LEVELS["float32"]


def violation(
    check: Callable[..., Any], encoder: Backend, config: EncodingConfig, level: Level
) -> str:
    with pytest.raises(PropertyViolation) as info:
        check(encoder, config, level)
    result = info.value.result
    assert not result.passed and result.message == str(info.value)
    assert result.property in PROPERTIES
    return str(info.value)


@pytest.mark.parametrize("name", list(PROPERTIES))
@pytest.mark.parametrize("dtype_name", ["float64", "float32", "float16", "bfloat16"])
def test_rounded_oracle_passes_every_property(name: str, dtype_name: str) -> None:
    dtype = {"bfloat16": ml_dtypes.bfloat16}.get(dtype_name, dtype_name)
    config = EncodingConfig(np.array([0, 1, 2, 7, 100, 4097, 65536, 10**6]), 64)
    result = PROPERTIES[name](rounded(dtype), config, LEVELS[dtype_name])
    assert result.passed and result.section == PROPERTIES[name].section


def test_accuracy_flags_one_wrong_element_with_full_message() -> None:
    def bug(values: NDArray[np.float64], positions: NDArray[Any]) -> None:
        values[positions == 30, 5] += 1e-4  # well above the float32 bound near position 30

    message = violation(prop_accuracy, perturbed(bug, np.float32), CONFIG, F32)
    assert "accuracy (SPEC §5.1) violated at level float32" in message
    assert "at position 30, column 5 (pair 2, cos)" in message
    assert re.search(r"\|y − x\| = 1\.0\d*e-04", message)
    assert (
        "Reproduce (encoder = the backend under test): "
        "y = encoder(np.array([30]), 16, 10000.0)[0, 5]" in message
    )


def test_accuracy_tolerates_the_bound_but_not_twice_it() -> None:
    # Move every element by exactly 0.9 of its float64-level working bound: still conformant
    # (the check adds 2^-54 for the oracle); 3× the full bound is not.
    level = LEVELS["float64"]
    from pespec.sinusoidal.properties.errormodel import element_bound_parts

    x = oracle.encode(CONFIG.positions, 16)
    parts = element_bound_parts(CONFIG, level, np.abs(x) + ORACLE_ERROR)

    def near(scale: float) -> Backend:
        return lambda p, d, b: np.clip(x + scale * parts.working, -1, 1)

    assert prop_accuracy(near(0.9), CONFIG, level).passed
    violation(prop_accuracy, near(3.0), CONFIG, level)


def test_boundedness_rejects_values_past_one() -> None:
    def bug(values: NDArray[np.float64], positions: NDArray[Any]) -> None:
        values[0, 1] = 1.0 + 2.0**-40  # cos 0 slightly above 1: within any tolerance, still wrong

    message = violation(prop_boundedness, perturbed(bug, np.float64), CONFIG, LEVELS["float64"])
    assert "|y| − 1 = 9.095e-13" in message and "column 1 (pair 0, cos)" in message


def test_norm_detects_a_scaled_row() -> None:
    def bug(values: NDArray[np.float64], positions: NDArray[Any]) -> None:
        values[positions == 12] *= 1.001

    message = violation(prop_norm, perturbed(bug, np.float32), CONFIG, F32)
    assert "at position 12" in message and "√(d/2) = 2.8284271247461903" in message


def test_rotation_detects_swapped_sin_and_cos() -> None:
    # Swapping the pair's roles: rows still have the right norm and are bounded, but
    # y_{p+k} is then a rotation by −ω k, not M_k y_p.
    def bug(values: NDArray[np.float64], positions: NDArray[Any]) -> None:
        values[:, [0, 1]] = values[:, [1, 0]]

    message = violation(prop_rotation, perturbed(bug, np.float32), CONFIG, F32)
    assert "M_1·y_p" in message or "M_5·y_p" in message
    assert "(pair 0," in message
    assert prop_norm(perturbed(bug, np.float32), CONFIG, F32).passed


def test_rotation_detects_position_dependent_frequency_drift() -> None:
    # ω slowly changing with p (a cache built with a different base past position 20): M_k
    # would depend on p.
    def encoder(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        low = oracle.encode(positions, d_model, base=base)
        high = oracle.encode(positions, d_model, base=base * 1.001)
        return np.where((positions < 20)[:, None], low, high).astype(np.float32)

    violation(prop_rotation, encoder, CONFIG, F32)


def test_dot_products_detect_a_wrong_pair_frequency() -> None:
    # Pair 1 computed with t2t's frequency: each row is still a valid unit-norm pair set,
    # but y_p·y_q no longer equals Σ cos(ω_i(p − q)) with the canonical ω.
    def encoder(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        canonical = oracle.encode(positions, d_model, base=base)
        t2t = oracle.encode(positions, d_model, base=base, convention=TENSOR2TENSOR)
        canonical[:, 2] = t2t[:, 1]
        canonical[:, 3] = t2t[:, d_model // 2 + 1]
        return canonical.astype(np.float32)

    message = violation(prop_dot_products, encoder, CONFIG, F32)
    assert "y_p·y_q = Σ_i cos(ω_i·(p − q))" in message
    assert prop_norm(encoder, CONFIG, F32).passed


def test_uniqueness_detects_clamped_positions() -> None:
    # A table of 32 rows indexed with clamping: positions ≥ 31 share one row.
    def encoder(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        return oracle.encode(np.minimum(positions, 31), d_model, base=base).astype(np.float32)

    config = EncodingConfig(np.arange(20, 60, dtype=np.int64), 16)
    message = violation(prop_uniqueness, encoder, config, F32)
    assert "identical rows" in message and re.search(r"at position (3[1-9]|[45]\d)\b", message)


def test_uniqueness_reports_deficit_against_tolerance() -> None:
    # Like every property, a result gives error ≤ bound (absolute values, same pair): the
    # deficit σ − ‖y_p − y_q‖ against ‖b_p‖ + ‖b_q‖, with their ratio (not a negative
    # "error" against a bound of 0, which a report cannot turn into a ratio).
    result = prop_uniqueness(rounded(np.float32), CONFIG, F32)
    assert 0.0 <= result.max_error <= result.bound and result.bound > 0
    assert result.details["max_ratio"] == pytest.approx(result.max_error / result.bound)

    def clamped(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        return oracle.encode(np.minimum(positions, 31), d_model, base=base).astype(np.float32)

    with pytest.raises(PropertyViolation) as info:
        prop_uniqueness(clamped, EncodingConfig(np.arange(20, 60), 16), F32)
    failed = info.value.result
    assert failed.max_error > failed.bound > 0 and failed.details["max_ratio"] > 1


def test_uniqueness_does_not_claim_what_the_bound_cannot_separate() -> None:
    # Adjacent float64 positions (1.1e-16 apart) are closer than the float64 bound can
    # separate: not claimed distinct, so equal rows pass.
    config = EncodingConfig(np.array([0.5, np.nextafter(0.5, 1.0)]), 8)
    result = prop_uniqueness(
        lambda p, d, b: oracle.encode(np.full_like(p, 0.5), d, base=b), config, LEVELS["float64"]
    )
    assert result.passed and result.details["claimed_pairs"] == 0


def test_low_precision_requires_the_level_dtype_and_bound() -> None:
    level = LEVELS["float16"]
    message = violation(prop_low_precision, rounded(np.float32), CONFIG, level)
    assert "expected output dtype float16; found dtype float32" in message

    # Float16 angles (a real bug): θ rounded to float16 before sin at moderate positions.
    def f16_angles(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        exact = oracle.frequencies_mpf(d_model, base)
        omega = np.array([float(w) for w in exact]).astype(np.float16)
        theta = positions.astype(np.float16)[:, None] * omega
        out = np.empty((len(positions), d_model), dtype=np.float32)
        out[:, 0::2] = np.sin(theta.astype(np.float32))
        out[:, 1::2] = np.cos(theta.astype(np.float32))
        return out.astype(np.float16)

    violation(prop_low_precision, f16_angles, CONFIG, level)
    details = prop_low_precision(rounded(np.float32), CONFIG, F32).details
    assert details["applicable"] is False
    assert details["reason"] == (
        "SPEC §5.7 states it for float16/bfloat16 levels; the level is float32"
    )


def test_frequency_structure_detects_off_by_one_frequencies() -> None:
    # ω_i = base^(−2(i+1)/d): column 0 no longer has wavelength 2π.
    def encoder(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        wide = oracle.encode(positions, d_model + 2, base=base ** ((d_model + 2) / d_model))
        return wide[:, 2:].astype(np.float32)

    message = violation(prop_frequency_structure, encoder, CONFIG, F32)
    assert re.search(
        r"y\(p \+ \d+\) \(≈ [\d.]+·λ\) [−+] y\(p\) = exact \S+ for pair (0|7) \(λ = ", message
    )
    # Float positions are shifted by λ itself: pair 0's wavelength 2π is named.
    floats = EncodingConfig(np.linspace(0.25, 3.0, 12), 16)
    message = violation(prop_frequency_structure, encoder, floats, F32)
    assert "λ = 6.283185307179586" in message or "for pair 7" in message


def test_frequency_structure_detects_shifted_last_wavelength() -> None:
    # t2t's frequencies in the canonical layout: pair 0 is right, the last pair is 1/base.
    def encoder(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        t2t = oracle.encode(positions, d_model, base=base, convention=TENSOR2TENSOR)
        out = np.empty_like(t2t)
        out[:, 0::2], out[:, 1::2] = t2t[:, : d_model // 2], t2t[:, d_model // 2 :]
        return out.astype(np.float32)

    message = violation(prop_frequency_structure, encoder, CONFIG, F32)
    assert "for pair 7" in message


def test_frequency_structure_is_tight_for_a_correct_backend() -> None:
    # The shifted difference y(p + 710) − y(p) is compared with the exact x(p + 710) − x(p)
    # (about 6·10^-5, since 710 − 113·2π ≈ 6.03·10^-5), not with 0: the tolerance is the two
    # element bounds only, so the correctly rounded encoding sits far below it (ratio ≤ 2^-54
    # per element against bounds ≥ 4·2^-53 at float64, ≥ 4·2^-24 at float32).
    for name, dtype in (("float64", np.float64), ("float32", np.float32)):
        result = prop_frequency_structure(rounded(dtype), CONFIG, LEVELS[name])
        assert result.passed and result.details["max_ratio"] < 0.5, name


def test_frequency_structure_finds_a_wrong_frequency_inside_the_period_drift() -> None:
    # A float64 backend that serves positions < 512 from a correct table and computes the
    # rest with pair 0's frequency 1 − 10^-7: over the shift 710 the angle moves by
    # 710·(1 − 10^-7) − 113·2π ≈ −1.1·10^-5 instead of +6.03·10^-5, so |y(p + 710) − y(p)|
    # stays below the exact drift and a tolerance that includes the drift cannot see it;
    # against the exact difference it is off by up to 7.1·10^-5, ≫ the float64 bounds.
    def encoder(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        out = oracle.encode(positions, d_model, base=base)
        far = positions >= 512
        theta = positions[far].astype(np.float64) * (1.0 - 1e-7)
        out[far, 0], out[far, 1] = np.sin(theta), np.cos(theta)
        return out

    message = violation(prop_frequency_structure, encoder, CONFIG, LEVELS["float64"])
    assert "for pair 0" in message and re.search(r"column [01] \(pair 0, (sin|cos)\)", message)
    for check in ("accuracy", "norm", "rotation", "dot_products", "uniqueness"):
        assert PROPERTIES[check](encoder, CONFIG, LEVELS["float64"]).passed


def test_frequency_structure_says_when_no_shift_fits() -> None:
    # 2^63 − 5 + 710 overflows int64: no shifted row can be compared, which the result says
    # (no worst column, ratio 0, shifted_rows 0) instead of reporting a ratio of −1.
    config = EncodingConfig(np.array([2**63 - 5]), 4)
    result = prop_frequency_structure(rounded(np.float64), config, LEVELS["float64"])
    assert result.passed and result.worst_position is None and result.worst_column is None
    assert result.details == {"max_ratio": 0.0, "shifted_rows": 0}
    counted = prop_frequency_structure(rounded(np.float32), CONFIG, F32)
    assert counted.details["shifted_rows"] == 4 * 32  # 2 pairs × 2 shifts × the first 32 rows


def test_frequency_structure_checks_column_variances() -> None:
    # Column 6 (pair 3, whose wavelength is not probed) scaled by 0.98 at even positions: the
    # variance over the positions changes.
    def bug(values: NDArray[np.float64], positions: NDArray[Any]) -> None:
        values[:, 6] = np.where(positions % 2 == 0, values[:, 6] * 0.98, values[:, 6])

    config = EncodingConfig(np.arange(0, 64, 2, dtype=np.int64), 16)
    message = violation(
        prop_frequency_structure, perturbed(bug, np.float64), config, LEVELS["float64"]
    )
    assert "variance of column 6" in message


def test_determinism_detects_a_changing_output() -> None:
    calls = iter(range(100))

    def encoder(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        out = oracle.encode(positions, d_model, base=base)
        if next(calls) % 2:
            out[3, 4] = np.nextafter(out[3, 4], 2.0)
        return out

    message = violation(prop_determinism, encoder, CONFIG, LEVELS["float64"])
    assert "bit-identical" in message and "at position 3, column 4" in message


MISBEHAVING: list[tuple[Backend, str]] = [
    (lambda p, d, b: (_ for _ in ()).throw(RuntimeError("kernel failed")), "raised RuntimeError"),
    (lambda p, d, b: np.zeros((len(p), d + 1)), ", 17) (wrong shape)"),
    (lambda p, d, b: np.zeros((len(p), d), dtype=np.int64), "dtype int64"),
    (lambda p, d, b: np.full((len(p), d), np.nan, dtype=np.float16), "nan"),
]


@pytest.mark.parametrize(
    ("name", "encoder", "found"),
    [
        (name, encoder, found)
        for name in PROPERTIES
        for encoder, found in MISBEHAVING
        # NaN twice is deterministic; a NaN A is §5.1's to report, not §5.10's (not applicable)
        if not (name in ("determinism", "config_independence") and found == "nan")
    ],
)
def test_misbehaving_backend_gets_a_violation_not_a_crash(
    name: str, encoder: Backend, found: str
) -> None:
    message = violation(PROPERTIES[name], encoder, CONFIG, LEVELS["float16"])
    assert found in message or "not finite" in message


def test_config_independence_leaves_a_nan_backend_to_accuracy() -> None:
    nan = MISBEHAVING[3][0]
    result = PROPERTIES["config_independence"](nan, CONFIG, LEVELS["float16"])
    assert result.passed and result.details["applicable"] is False
    assert "(§5.1 reports it)" in result.details["reason"]


def test_non_canonical_convention_uses_its_column_roles() -> None:
    # MARIAN puts sines first: the rotation property pairs column i with column i + d/2.
    config = EncodingConfig(np.arange(0, 20), 8, convention=MARIAN)
    for check in PROPERTIES.values():
        assert check(rounded(np.float32, MARIAN), config, F32).passed
    violation(prop_rotation, rounded(np.float32), config, F32)


def test_registry_matches_spec_sections_and_function_names() -> None:
    text = (ROOT / "spec" / "05-properties.md").read_text(encoding="utf-8")
    headings = re.findall(r"^### (5\.\d+) (\w+)", text, flags=re.MULTILINE)
    assert headings == [(c.section, c.name) for c in PROPERTIES.values()]
    for check in PROPERTIES.values():
        assert check.function.__name__ == f"prop_{check.name}"
        assert f"`prop_{check.name}`" in text
        # Written once: the docstring states the property without repeating its name or §.
        assert f"§{check.section}" not in (check.function.__doc__ or "")


def test_a_registered_property_gets_its_context_from_the_decorator() -> None:
    # The name and § in a violation come from @spec_property, not from the function body.
    bug = perturbed(lambda v, p: v.__setitem__((3, 2), v[3, 2] + 1e-3), np.float64)
    with pytest.raises(PropertyViolation) as info:
        prop_accuracy(bug, CONFIG, LEVELS["float64"])
    assert (info.value.result.property, info.value.result.section) == ("accuracy", "5.1")
    assert str(info.value).startswith("accuracy (SPEC §5.1) violated at level float64")
    assert PROPERTIES["accuracy"].function is prop_accuracy


def test_the_registry_refuses_a_clash_or_a_misnamed_property() -> None:
    from pespec.sinusoidal.properties.registry import spec_property

    before = dict(PROPERTIES)

    def prop_norm(ctx: Any) -> Any:  # the name of §5.3's property again
        raise AssertionError("never called")

    def prop_fresh(ctx: Any) -> Any:  # a fresh name at §5.1's section
        raise AssertionError("never called")

    def norm_check(ctx: Any) -> Any:  # not named prop_<name>
        raise AssertionError("never called")

    with pytest.raises(ValueError, match=r"'norm'.*clashes"):
        spec_property("5.10", "again")(prop_norm)
    with pytest.raises(ValueError, match=r"'fresh'.*clashes with the registered 'accuracy'"):
        spec_property("5.1", "again")(prop_fresh)
    with pytest.raises(ValueError, match="prop_<name>; got 'norm_check'"):
        spec_property("5.10", "misnamed")(norm_check)
    with pytest.raises(ValueError, match="section must be dotted digits"):
        spec_property("§5.10", "bad section")
    assert PROPERTIES == before  # nothing registered by a refused call


@pytest.mark.slow
def test_seed_variance_claim_as_stated_in_spec() -> None:
    # SPEC §5.8: over positions 0 .. 999 (d = 512) the variance of the sine columns is near
    # 1/2 for pairs completing many periods, in no particular order, and falls with the
    # index only for pairs whose wavelength exceeds the window. Values from the oracle.
    x = oracle.encode(np.arange(1000), 512)
    variance = np.var(x[:, 0::2], axis=0)
    fast = variance[:20]  # wavelengths 2π … 12.5, far shorter than the window
    assert np.all(np.abs(fast - 0.5) < 0.01)
    assert np.any(np.diff(fast) > 0)  # not monotone: "falls with column index" fails here
    wavelengths = 2 * np.pi * 10000.0 ** (2 * np.arange(256) / 512)
    slow = variance[wavelengths > 4000]
    assert np.all(np.diff(slow) < 0) and slow[-1] < 0.01


def test_integer_shifts_quoted_in_spec() -> None:
    # SPEC §5.8 quotes 710 ≈ 113·2π and 355 ≈ 56.5·2π for pair 0; check them with mpmath.
    import mpmath

    wavelength = structure._wavelength(CONFIG, 0)
    assert structure._integer_shift(wavelength, half=False)[0] == 710
    assert structure._integer_shift(wavelength, half=True)[0] == 355
    with mpmath.workprec(120):
        assert abs(710 - 113 * 2 * mpmath.pi) < 7e-5
        assert f"{float(710 - 113 * 2 * mpmath.pi):.2e}" == "6.03e-05"  # SPEC's 6.03·10^−5
        assert abs(355 - mpmath.mpf(56.5) * 2 * mpmath.pi) < 7e-5


def test_a_raising_encoder_gives_a_result_without_numbers() -> None:
    # The violation has no output to measure: no |error| and no bound (not inf and 0).
    def raising(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        raise ValueError("unsupported d_model")

    for check in (prop_accuracy, prop_norm, prop_determinism):
        with pytest.raises(PropertyViolation) as info:
            check(raising, CONFIG, F32)
        result = info.value.result
        assert (result.max_error, result.bound) == (None, None)
        assert "the backend raised ValueError: unsupported d_model" in result.message
