"""The Fourier suite (SPEC §10.7, §10.9): each convention axis judged, slips named."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pespec.fourier.convention import FourierConvention
from pespec.fourier.presets import PRESETS, convention_from
from pespec.fourier.reference import encode
from pespec.fourier.run import check
from tests.fourier import ports


def test_nerf_without_pi_declared_so_is_conformant() -> None:
    report = check(ports.nerf_code, config="nerf")
    assert report.conformant, [(c.id, c.message) for c in report.checks]


def test_the_same_code_declared_with_pi_is_non_conformant_with_pi_missing_measured() -> None:
    report = check(ports.nerf_code, config="nerf-paper")
    assert not report.conformant
    assert report.diagnosis is not None and report.diagnosis["slip"] == "π missing"
    # sin(2^j x) vs sin(2^j πx) differ by up to 2 (measured on the suite's inputs)
    assert report.diagnosis["max_error_declared"] > 1.0
    assert report.diagnosis["max_error_found"] <= 2.0**-52


def test_a_float32_nerf_passes_at_float32_and_fails_a_float64_claim() -> None:
    assert check(ports.nerf_code_float32, config="nerf").conformant
    assert check(ports.nerf_code_float32_pi, config="nerf-paper").conformant
    assert not check(ports.nerf_code_float32, config="nerf", level="float64").conformant


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_float64_reference_is_conformant_to_every_preset(name: str) -> None:
    report = check(encode, config=name)
    assert report.conformant, [(c.id, c.message) for c in report.checks]


SLIPS = [
    ("nerf-paper", {"pi": "2pi"}, "π doubled (2π where π)"),
    ("nerfstudio-nerf", {"pi": "pi"}, "π where 2π (a factor 2 missing)"),
    ("nerf", {"pi": "pi"}, "an extra π"),
    ("timm-fourier", {"base": 2.0}, "frequency base 2 where 10000"),
    (
        "nerf",
        {"law": "geometric", "base": 10000.0, "exponent_step": -1, "exponent_denominator": 10},
        "frequencies 10000^(-j/n) where base 2",
    ),
    ("rff-tancik", {"blocks": "sin|cos"}, "block order sin|cos where cos|sin"),
    (
        "timm-fourier",
        {"law": "linear", "linear_start": 1.0, "linear_stop": math.pow(10000.0, -63 / 64)},
        "linear bands where geometric",
    ),
    (
        "timm-fourier-linear",
        {"law": "geometric", "base": 112.0, "exponent_step": 1, "exponent_denominator": 63},
        "geometric bands where linear",
    ),
    ("timm-fourier", {"blocks": "interleaved"}, "block order interleaved where sin|cos"),
    ("nerfstudio-nerf", {"order": "band-major"}, "angle order band-major where axis-major"),
    ("nerfstudio-nerf", {"raw": "first"}, "raw input first where appended last"),
    ("rff-tancik", {"raw": "last"}, "raw input appended last where not included"),
]


@pytest.mark.parametrize(("name", "changes", "slip"), SLIPS)
def test_the_diagnosis_names_each_axis(name: str, changes: dict[str, object], slip: str) -> None:
    report = check(ports.reference_of(**changes), config=name)
    assert not report.conformant
    assert report.diagnosis is not None and report.diagnosis["slip"] == slip


def test_a_doubled_input_scale_fails_and_is_not_misnamed() -> None:
    report = check(ports.reference_of(input_scale=2.0), config="nerf")
    assert not report.conformant
    assert report.diagnosis_sentence == "no one-axis change of the convention reproduces the values"


def test_wrong_shapes_and_non_finite_values_fail_the_contract() -> None:
    def nan(x: np.ndarray, config: FourierConvention) -> np.ndarray:
        out = encode(x, config)
        out[0, 0] = np.nan
        return out

    report = check(nan, config="nerf")
    assert not report.conformant
    status = {c.id: c.status for c in report.checks}
    assert status["contract:finite"] == "failed" and status["contract:shape"] == "passed"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"pi": "tau"}, "pi must be one of none, pi, 2pi; got 'tau'"),
        ({"law": "matrix"}, "matrix must be m rows"),
        ({"blocks": "per-band", "order": "axis-major"}, "per-band needs"),
        ({"domain": [1.0, -1.0]}, "low < high"),
        ({"base": 1.0}, "base must be > 1"),
        ({"colour": 1}, "no field(s) ['colour']"),
    ],
)
def test_bad_conventions_name_the_field(data: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=None) as info:
        convention_from(data)
    assert words in str(info.value)


def test_a_preset_with_changes_and_a_json_file(tmp_path: Path) -> None:
    changed = convention_from({"preset": "nerf", "pi": "pi"})
    assert changed == PRESETS["nerf-paper"].with_changes(name="nerf")
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(PRESETS["rff-tancik"].to_dict()), encoding="utf-8")
    assert convention_from(str(path)) == PRESETS["rff-tancik"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pespec", "check", "--family", "fourier", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


def test_the_command_exit_codes() -> None:
    ok = _cli("tests.fourier.ports:nerf_code", "--config", "nerf", "--in-process")
    assert ok.returncode == 0, ok.stderr
    bad = _cli("tests.fourier.ports:nerf_code", "--convention", "nerf-paper", "--in-process")
    assert bad.returncode == 1 and "π missing" in bad.stdout
    usage = _cli("tests.fourier.ports:nerf_code", "--config", "nerff")
    assert usage.returncode == 2 and "did you mean nerf" in usage.stderr
    assert "Traceback" not in usage.stderr
    other = _cli("tests.fourier.ports:nerf_code", "--config", "nerf", "--seq-len", "4")
    assert other.returncode == 2 and "--seq-len does not apply" in other.stderr
