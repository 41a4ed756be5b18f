"""What the reports say (issue #12 items 11 and 12): values that are not errors, vacuous
bounds, the true maximum error, the diagnosed precision, a file's identity, the terminal's
first screen, and reproductions that relate the two positions a property compares.

Expected values come from construction: exact reference values (cos 0 = 1 exactly), errors
planted at chosen elements, a file's SHA-256 computed here with hashlib.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from paths import CATALOG

from pespec.cli import main
from pespec.conformance import check, load_backend
from pespec.sinusoidal.fromfile import compare_saved_output
from pespec.sinusoidal.properties import (
    prop_boundedness,
    prop_dot_products,
    prop_frequency_structure,
    prop_rotation,
)
from pespec.sinusoidal.properties.base import EncodingConfig, PropertyViolation, parse_level
from pespec.sinusoidal.properties.geometry import DEFAULT_OFFSETS
from pespec.sinusoidal.reference.encoding import encode

FLOAT64 = parse_level("float64")
HUGE = 14_096_060_000_000_000  # the position `pespec check numpy` reported (~1.4e16)


def _float32_angles(positions: Any, d_model: int, base: float) -> np.ndarray:
    """float64 output whose angles p·ω are rounded to float32: a real precision bug."""
    p = np.asarray(positions, dtype=np.float64)
    omega = np.power(float(base), -np.arange(0, d_model, 2, dtype=np.float64) / d_model)
    theta = np.outer(p, omega).astype(np.float32).astype(np.float64)
    out = np.empty((p.shape[0], d_model))
    out[:, 0::2], out[:, 1::2] = np.sin(theta), np.cos(theta)
    return out


def test_boundedness_reports_max_abs_value_not_an_error() -> None:
    result = prop_boundedness(
        load_backend("numpy"), EncodingConfig(np.array([0, 1, 2]), 4, 10000.0), FLOAT64
    )
    assert result.passed
    assert result.max_error is None and result.bound is None  # no |error| 1 against bound 1
    assert result.details["max_abs_value"] == 1.0  # cos(0·ω) = 1 exactly
    assert "max |y| = 1.0 ≤ 1" in result.message


def test_dot_products_reports_an_informative_pair_not_a_vacuous_bound() -> None:
    """At p ≈ 1.4e16 one float64 ulp of p is 2, so the bounds of pairs k ≥ 1 there
    (γ(K_θ(k))·p·ω_k: about 5 in pair 1 at d = 8) exceed any possible error; the worst pair
    reported is the small one (q = 3). d = 8, not 2: pair 0 alone has no angle term (ω̂_0 =
    1, SPEC §4.2, issue 14), and HUGE is even, a float64 number, so pair 0 stays exact."""
    config = EncodingConfig(np.array([HUGE, 3]), 8, 10000.0)
    result = prop_dot_products(load_backend("numpy"), config, FLOAT64)
    assert result.passed and result.worst_position == 3
    assert result.details["pairs_with_vacuous_bound"] == 3  # (p, p), (p, q), (q, p)
    assert result.bound is not None and result.bound < 1e-12


def test_a_vacuous_pair_still_fails_on_a_non_finite_output() -> None:
    def nan_when_huge(positions: Any, d_model: int, base: float) -> np.ndarray:
        out = encode(np.asarray(positions), d_model, base=base)
        out[np.asarray(positions) > 2**53] = np.nan
        return out

    config = EncodingConfig(np.array([HUGE, 3]), 2, 10000.0)
    with pytest.raises(PropertyViolation):
        prop_dot_products(nan_when_huge, config, FLOAT64)


@pytest.mark.slow
def test_numpy_suite_reports_no_position_beyond_2_to_53_as_worst() -> None:
    report = check("numpy", stages=("property",), diagnose=False)
    for check_id in ("property:dot_products", "property:frequency_structure"):
        position = report.get(check_id).worst_position
        assert position is None or abs(position) < 2**53, (check_id, position)


def test_markdown_max_abs_error_is_the_true_maximum() -> None:
    """Plant 1e-6 at position 1 (bound ~1e-16: the worst ratio) and 1e-5 at position 10^7 in
    pair 1 (bound γ(10(1 + ln 100))·10^5 ≈ 6e-10; pair 0 has no angle term since issue 14):
    the worst-ratio element's |error| is 1e-6, the maximum is 1e-5."""
    positions = np.array([0, 1, 10_000_000], dtype=np.int64)
    output = encode(positions, 4, base=10000.0)
    output[1, 0] += 1e-6
    output[2, 2] += 1e-5
    report = compare_saved_output(output, positions, 4)
    result = report.get("reference:file")
    assert result.max_error == pytest.approx(1e-6, rel=1e-6)
    row = next(line for line in report.to_markdown().splitlines() if "`reference:file`" in line)
    cells = [c.strip() for c in row.split(" | ")]
    assert cells[2] == "1e-05" and cells[3] == "1e-06"  # max abs error, worst |error|


def test_markdown_header_says_what_precision_the_diagnosis_found(tmp_path: Path) -> None:
    source = tmp_path / "f32_angles.py"
    source.write_text(
        "import numpy as np\n"
        "def pe(positions, d_model, base):\n"
        "    p = np.asarray(positions, dtype=np.float64)\n"
        "    w = np.power(float(base), -np.arange(0, d_model, 2) / d_model)\n"
        "    t = np.outer(p, w).astype(np.float32).astype(np.float64)\n"
        "    out = np.empty((p.shape[0], d_model))\n"
        "    out[:, 0::2], out[:, 1::2] = np.sin(t), np.cos(t)\n"
        "    return out\n",
        encoding="utf-8",
    )
    report = check(f"{source}:pe", stages=("golden",))
    assert report.diagnosis is not None and report.diagnosis["working_precision"] == "float32"
    header = report.to_markdown().splitlines()[2]
    assert "the level assumes working precision float64" in header
    assert "the diagnosis finds the angles computed in float32" in header


def test_from_file_report_records_the_file_and_its_positions(tmp_path: Path) -> None:
    path = tmp_path / "pe.npy"
    np.save(path, encode(np.arange(100, 140), 8, base=10000.0))
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    json_path, md_path = tmp_path / "r.json", tmp_path / "r.md"
    args = ["check", "--from-file", str(path), "--d-model", "8", "--positions", "100:140"]
    assert main([*args, "--json", str(json_path), "--markdown", str(md_path), "--quiet"]) == 0
    data = json.loads(json_path.read_text(encoding="utf-8"))
    file = data["backend"]["file"]
    assert file["sha256"] == digest and file["bytes"] == path.stat().st_size
    assert file["positions"] == {
        "given": "100:140",
        "count": 40,
        "first": 100,
        "last": 139,
        "min": 100,
        "max": 139,
    }
    markdown = md_path.read_text(encoding="utf-8")
    assert "backend spec `None`" not in markdown and digest in markdown
    assert "positions 100:140: 40 rows, 100 … 139" in markdown


@pytest.mark.slow
def test_failing_run_leads_with_verdict_diagnosis_and_first_failure_per_stage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = f"{CATALOG}/buggy.py:sqrt_cos"
    args = ["check", spec, "--stages", "golden,property", "--examples", "2", "--no-shrink"]
    assert main(args) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "NON-CONFORMANT" in lines[0]  # the verdict first
    assert any(line.startswith("Diagnosis:") for line in lines[:6])
    assert "┃" not in out  # no table of every check
    firsts = [line for line in lines if re.match(r"^(golden|property):\S+", line)]
    assert [f.split(":")[0] for f in firsts] == ["golden", "property"]  # one per stage
    assert "more failed checks: run with --verbose" in out
    assert main([*args, "--verbose"]) == 1
    verbose = capsys.readouterr().out
    assert "┃" in verbose and verbose.count("reproduce:") > out.count("reproduce:")


def test_reproduce_exits_1_only_when_an_element_exceeds_its_bound() -> None:
    from pespec.conformance import reproduce

    with pytest.raises(SystemExit) as exited:
        reproduce(_float32_angles, [16_777_217], 2, column=0, level="float64", exit_status=True)
    assert exited.value.code == 1
    rows = reproduce("numpy", [3], 4, level="float64", exit_status=True, echo=False)
    assert all(row["within_bound"] for row in rows)


def _pair_in(message: str) -> tuple[int, int]:
    found = re.search(r"encoder\(np\.array\(\[(-?\d+), (-?\d+)\]\)", message)
    assert found is not None, message
    return int(found.group(1)), int(found.group(2))


def test_rotation_reproduction_names_p_and_p_plus_k() -> None:
    config = EncodingConfig(np.array([16_777_167]), 2, 10000.0)
    with pytest.raises(PropertyViolation) as failed:
        prop_rotation(_float32_angles, config, FLOAT64)
    message = failed.value.result.message
    p, shifted = _pair_in(message)
    assert p == 16_777_167 and shifted - p in DEFAULT_OFFSETS
    assert "y[1] must equal" in message and f"k = {shifted - p}" in message


def test_frequency_structure_reproduction_names_p_and_the_shifted_position() -> None:
    config = EncodingConfig(np.array([16_776_507]), 2, 10000.0)
    with pytest.raises(PropertyViolation) as failed:
        prop_frequency_structure(_float32_angles, config, FLOAT64)
    message = failed.value.result.message
    p, shifted = _pair_in(message)
    shift = shifted - p
    assert p == 16_776_507 and f"y(p + {shift})" in message  # the shift the message names
    assert re.search(r"y\[1, 0\] [+−] y\[0, 0\] must equal x\[1, 0\] [+−] x\[0, 0\]", message)
