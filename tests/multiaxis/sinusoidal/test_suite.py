"""The multi-axis suite on hand-made backends and through ``pespec check --family
multiaxis`` (SPEC §9.5–§9.6): verdicts, misbehaving backends, the report's sections."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pespec.multiaxis.sinusoidal.run import check, sample_rows
from tests.multiaxis.sinusoidal import ports

ROOT = Path(__file__).resolve().parents[3]
PORTS = "tests/multiaxis/sinusoidal/ports.py"


def test_a_correct_port_is_conformant_and_names_its_sections() -> None:
    report = check(ports.correct, config="mae-vit-b-16")
    assert report.verdict == "conformant", report.summary()
    assert report.level == "float64"
    ids = [c.id for c in report.checks]
    assert "reference:section-0" in ids and "separability:axis-1" in ids
    titles = {c.id: c.title for c in report.checks}
    assert "section 0 (axis 1, d=384" in titles["reference:section-0"]
    assert report.family == "multiaxis"
    assert report.family_data["config"]["sections"][0]["axis"] == 1


def test_float32_output_is_judged_at_float32() -> None:
    report = check(ports.correct_float32, config="dit-xl-2-256")
    assert report.verdict == "conformant" and report.level == "float32"


def test_h_first_fails_every_section_and_is_named() -> None:
    report = check(ports.h_first, config="mae-vit-b-16")
    assert report.verdict == "non-conformant"
    failed = {c.id for c in report.failed}
    assert {"reference:section-0", "reference:section-1"} <= failed
    assert {"separability:axis-0", "separability:axis-1"} <= failed
    assert "h and w swapped" in (report.diagnosis_sentence or "")


def _one_ulp_off_in_w(positions: Any, config: Any) -> Any:
    """Correct except column 1 (w section, sine of pair 1) raised by 2^-30 (its float64
    bound is about 1e-14)."""
    out = ports.correct(positions, config)
    out[:, 1] = np.nextafter(out[:, 1], np.inf) + 2.0**-30
    return out


def test_a_small_error_in_one_section_fails_that_section_only() -> None:
    report = check(_one_ulp_off_in_w, config="mae-vit-b-16", stages=["reference"])
    status = {c.id: c.status for c in report.checks}
    assert status == {"reference:section-0": "failed", "reference:section-1": "passed"}
    assert report.failed[0].worst_column == 1


def _wrong_shape(positions: Any, config: Any) -> Any:
    return np.zeros((positions.shape[0], config.d_model + 1))


def _raises(positions: Any, config: Any) -> Any:
    raise RuntimeError("boom")


def _nan(positions: Any, config: Any) -> Any:
    out = ports.correct(positions, config)
    out[0, 0] = np.nan
    return out


@pytest.mark.parametrize(
    ("backend", "words"),
    [(_wrong_shape, "returned shape"), (_raises, "RuntimeError: boom"), (_nan, "non-finite")],
)
def test_a_misbehaving_backend_fails_and_never_crashes(backend: Any, words: str) -> None:
    report = check(backend, config="mae-vit-b-16")
    assert report.verdict == "non-conformant"
    assert words in report.failed[0].message


def test_sample_rows_meet_every_coordinate_of_every_axis() -> None:
    rows = sample_rows((192, 192), 4096)
    assert rows.size <= 4096
    assert set((rows // 192).tolist()) == set(range(192))
    assert set((rows % 192).tolist()) == set(range(192))
    assert sample_rows((14, 14), 4096).size == 196
    # A stride larger than the last axis would skip middle coordinates: they are added.
    rows = sample_rows((3, 1000, 2), 1000)
    for axis, size in enumerate((3, 1000, 2)):
        assert set(np.unravel_index(rows, (3, 1000, 2))[axis].tolist()) == set(range(size))


def test_bad_options_name_the_parameter() -> None:
    with pytest.raises(ValueError, match="config must name a multiaxis preset"):
        check(ports.correct)
    with pytest.raises(ValueError, match="stages must be a subset"):
        check(ports.correct, config="mae-vit-b-16", stages=["large"])
    with pytest.raises(ValueError, match="level must be"):
        check(ports.correct, config="mae-vit-b-16", level="float8")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pespec", "check", "--family", "multiaxis", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
def test_the_command_line_gives_0_1_2_and_the_report_names_sections(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    good = _cli(f"{PORTS}:correct", "--config", "mae-vit-b-16", "--json", str(out), "--quiet")
    assert good.returncode == 0, good.stderr
    data = json.loads(out.read_text())
    assert data["family"] == "multiaxis" and data["config"]["name"] == "mae-vit-b-16"
    bad = _cli(f"{PORTS}:h_first", "--config", "mae-vit-b-16")
    assert bad.returncode == 1
    assert "h and w swapped" in bad.stdout
    usage = _cli(f"{PORTS}:correct", "--config", "nope")
    assert usage.returncode == 2 and "Traceback" not in usage.stderr
    assert "--config: config must be one of" in usage.stderr
    other = _cli(f"{PORTS}:correct", "--config", "mae-vit-b-16", "--seq-len", "4")
    assert other.returncode == 2 and "--seq-len does not apply" in other.stderr


def test_big_vision_and_timm_transcriptions_meet_their_presets() -> None:
    assert check(ports.big_vision, config="big-vision-vit-s16").verdict == "conformant"
    timm = check(ports.timm_float32, config="timm-sincos2d-768")
    assert timm.verdict == "conformant" and timm.level == "float32", timm.summary()


def test_the_other_denominator_fails() -> None:
    # diffusers' ω_k = 10000^(−k/(D/4)) against big_vision's 10000^(−k/(D/4 − 1)): every
    # pair k ≥ 1 differs (far beyond the bound at the grid's positions ≥ 1).
    report = check(ports.correct, config="big-vision-vit-s16", stages=["reference"])
    assert [c.status for c in report.checks] == ["failed", "failed"]


def _declared_integer(positions: Any, config: Any) -> Any:
    assert positions.dtype == np.int64  # only integer coordinates are sent
    return ports.correct(positions, config)


_declared_integer.pespec_capabilities = {"integer_positions_only": True}  # type: ignore[attr-defined]


def test_declared_capabilities_narrow_the_grid_rows() -> None:
    # PixArt-α's coordinates are i/2: an integer-only backend is checked on the even ones.
    report = check(_declared_integer, config="pixart-alpha-1024")
    assert report.verdict == "conformant", report.summary()
    assert report.family_data["rows_declared_out"] == 4096 - 1024


def test_a_claimed_level_must_match_the_output() -> None:
    report = check(ports.correct, config="mae-vit-b-16", level="float32")
    assert report.verdict == "non-conformant"
    assert "the level float32 claims float32 output" in report.failed[0].message


def test_the_command_line_needs_a_config() -> None:
    usage = _cli(f"{PORTS}:correct")
    assert usage.returncode == 2
    assert "--family multiaxis needs --config" in usage.stderr


def test_a_json_config_file_and_the_markdown_report(tmp_path: Path) -> None:
    from pespec.multiaxis.sinusoidal.presets import PRESETS

    path = tmp_path / "mine.json"
    data = PRESETS["mae-vit-b-16"].to_dict()
    data["config"]["name"] = "mine"
    path.write_text(json.dumps(data))
    report = check(ports.correct, config=str(path))
    assert report.verdict == "conformant"
    markdown = report.to_markdown()
    assert "section 0: axis 1, d = 384" in markdown and "grid [14, 14]" in markdown
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(ValueError, match=r"config file .* could not be read"):
        check(ports.correct, config=str(broken))


def test_the_config_help_names_every_preset() -> None:
    from pespec.families import FAMILIES
    from pespec.multiaxis.sinusoidal.presets import PRESETS

    (option,) = [o for o in FAMILIES["multiaxis"].options if o.flags == ("--config",)]
    assert all(name in option.help for name in PRESETS)
