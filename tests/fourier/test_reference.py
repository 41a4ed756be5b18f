"""The float64 reference and the error model (SPEC §10.4-§10.5) against the certified oracle,
and the properties (SPEC §10.6): each holds for correct values and fails for a wrong one."""

from __future__ import annotations

import numpy as np
import pytest

from pespec.fourier.errormodel import element_bounds, tolerance
from pespec.fourier.inputs import suite_inputs
from pespec.fourier.oracle import oracle_encode
from pespec.fourier.presets import PRESETS
from pespec.fourier.properties import applicable, evaluate
from pespec.fourier.reference import encode
from tests.fourier import mp


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_reference_is_within_its_float64_bound(name: str) -> None:
    conv = PRESETS[name]
    x = suite_inputs(conv, 256)
    error = np.abs(encode(x, conv) - oracle_encode(x, conv))
    assert np.all(error <= element_bounds(x, conv, "float64"))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_float32_port_is_within_the_float32_bound(name: str) -> None:
    """float32 in and out: x rounded to float32 (F1) and the values stored in float32 (F3);
    a computation in float32 throughout is tests/fourier/test_suite.py's NeRF port."""
    conv = PRESETS[name]
    x = suite_inputs(conv, 256)
    x32 = x.astype(np.float32).astype(np.float64)
    out = encode(x32, conv).astype(np.float32).astype(np.float64)
    assert np.all(np.abs(out - oracle_encode(x, conv)) <= tolerance(x, conv, "float32"))


def test_the_oracle_agrees_with_mpmath_off_the_golden_rows() -> None:
    conv = PRESETS["nerfstudio-nerf"]
    x = suite_inputs(conv, 40)[20:]
    want = np.array([mp.ROWS["nerfstudio-nerf"](row) for row in x.tolist()])
    assert want.view(np.int64).tolist() == oracle_encode(x, conv).view(np.int64).tolist()


def test_the_bound_grows_with_the_angle_and_a_dropped_pi_exceeds_it() -> None:
    conv = PRESETS["nerf-paper"]
    x = np.array([[0.0, 0.5, 1.0]])
    bound = element_bounds(x, conv, "float32")
    sin_last_band = [c for c, (k, j) in enumerate(conv.columns()) if k == "sin" and j >= 27]
    assert bound[0, sin_last_band[2]] > bound[0, sin_last_band[1]] > bound[0, sin_last_band[0]]
    wrong = encode(x, conv.with_changes(pi="none"))
    assert np.any(np.abs(wrong - oracle_encode(x, conv)) > tolerance(x, conv, "float32"))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_properties_hold_for_the_oracle_and_a_float32_port(name: str) -> None:
    conv = PRESETS[name]
    x = suite_inputs(conv, 64)
    out32 = encode(x.astype(np.float32).astype(np.float64), conv).astype(np.float32)
    for prop in applicable(conv):
        assert evaluate(prop, oracle_encode(x, conv), x, conv, "float64")[0], prop
        assert evaluate(prop, out32.astype(np.float64), x, conv, "float32")[0], prop


def test_each_property_fails_on_a_wrong_value() -> None:
    conv = PRESETS["nerf"]
    x = suite_inputs(conv, 16)
    columns = conv.columns()
    out = encode(x, conv)
    bad = out.copy()
    bad[:, columns.index(("cos", 3))] *= 1.001  # a cosine off by 0.1 %
    assert not evaluate("pythagoras", bad, x, conv, "float32")[0]
    beyond = out.copy()
    beyond[0, columns.index(("sin", 0))] = 1.0 + 2.0**-10
    assert not evaluate("bounded", beyond, x, conv, "float32")[0]
    tripled = encode(x, conv.with_changes(law="geometric", base=3.0))  # not doubling
    assert not evaluate("doubling", tripled, x, conv, "float32")[0]
    assert evaluate("doubling", out, x, conv, "float64")[0]
