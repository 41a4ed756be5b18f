"""``pespec plot diagnosis`` (issue 27, item 5): the data drawn, the picture, the command.

Expected values are planted or derived: a backend whose phase is off by a known δ in one
pair must show δ there (and ~0 elsewhere); a θ slip (10^6 for 10^4) leaves pair 0 (ω_0 = 1
for every θ) and moves the 63 others; a correct stack stays under the level's bound.
"""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from pespec import plot
from pespec.cli import main
from pespec.rope import reference
from pespec.rope.config import RopeConfig
from pespec.rope.diagnosis.curves import NotMeasured, diagnosis_curves
from pespec.rope.diagnosis.examples import numpy_backend, rotate_pairs
from pespec.rope.diagnosis.measure import phase_errors
from pespec.rope.oracle import frequencies
from pespec.rope.presets import PRESETS

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SMALL = RopeConfig(head_dim=16, theta=10000.0)
LLAMA2 = PRESETS["Llama-2-7B"]
_CORRECT = numpy_backend(np.float32)


def theta_slipped(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
    """A float32 stack computing θ = 10^6 whatever the config says (the CLI loads it)."""
    return _CORRECT(x, positions, dataclasses.replace(rope, theta=1e6))


def correct(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
    """A correct float32 stack (the CLI loads it by file:attr)."""
    return _CORRECT(x, positions, rope)


def raising(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
    raise RuntimeError("kernel launch failed")


def _shifted(pair: int, delta: float) -> Any:
    """A float64 stack computing φ_j(p) = p·ω_j, plus ``delta`` in pair ``pair`` (p ≥ 1)."""

    def backend(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        omegas, attention = frequencies(rope)
        phase = positions.astype(np.float64)[:, None] * omegas[None, :]
        phase[:, pair] += np.where(positions > 0, delta, 0.0)
        cos, sin = np.cos(phase) * attention, np.sin(phase) * attention
        return rotate_pairs(x, cos, sin, rope.d_r, rope.pairing)

    return backend


def test_phase_errors_read_a_planted_angle() -> None:
    angle = np.array([[0.3, -2.9, 3.1]])
    delta = np.array([[1e-3, -0.5, 0.2]])  # 3.1 + 0.2 wraps: the error is still +0.2
    amplitude = 1.7  # atan2(cross, dot) does not depend on the amplitude
    got = phase_errors(
        amplitude * np.cos(angle + delta), amplitude * np.sin(angle + delta),
        np.cos(angle), np.sin(angle),
    )  # fmt: skip
    np.testing.assert_allclose(got, delta, rtol=0, atol=1e-15)
    nan = phase_errors(np.array([[np.nan]]), np.array([[0.0]]), np.ones((1, 1)), np.zeros((1, 1)))
    assert np.isnan(nan).all()


def test_curves_show_a_planted_phase_shift_in_its_pair_only() -> None:
    delta = 1e-3
    curves = diagnosis_curves(_shifted(3, delta), SMALL, max_position=4095)
    # float64: |fl(p·ω) − p·ω| + cos/sin rounding ≤ 4096·2·2^-53 + 2^-52 < 1e-11
    moved = curves.positions > 0
    np.testing.assert_allclose(curves.phase_error[moved, 3], delta, rtol=0, atol=1e-11)
    others = np.delete(curves.phase_error, 3, axis=1)
    assert np.max(np.abs(others)) < 1e-11
    assert curves.level.name == "float64/float64/float64"  # the float64 output's default
    assert np.all(np.abs(curves.phase_error[moved, 3]) > curves.phase_bound[moved, 3])


def test_a_correct_stack_stays_under_the_bound_and_deviates_nowhere() -> None:
    for dtype in (np.float32, np.float64):
        curves = diagnosis_curves(numpy_backend(dtype), LLAMA2, max_position=4095)
        assert not curves.deviates.any()
        assert np.all(np.abs(curves.phase_error) <= curves.phase_bound)
        assert "no bug found" in curves.diagnosis.sentence


def test_an_exact_xpos_backend_stays_under_the_bound() -> None:
    # the pair's length is A·σ_j(p) there: the angle bound divides by it, not by A
    xpos = RopeConfig(head_dim=64, rotary_dim=32, pairing="interleaved", xpos_scale_base=512)
    curves = diagnosis_curves(reference.rotate, xpos, max_position=4095)
    assert not curves.deviates.any()
    assert np.all(np.abs(curves.phase_error) <= curves.phase_bound)


def test_a_theta_slip_deviates_in_every_pair_but_the_first() -> None:
    curves = diagnosis_curves(theta_slipped, LLAMA2, max_position=4095)
    assert curves.deviates.tolist() == [False] + [True] * 63  # ω_0 = θ^0 = 1 for any θ
    slipped, _ = frequencies(dataclasses.replace(LLAMA2, theta=1e6))
    np.testing.assert_allclose(curves.omega_measured, slipped, rtol=1e-5)
    declared, _ = frequencies(LLAMA2)
    assert np.array_equal(curves.omega_declared, declared)
    assert "θ measured 1.00000e6" in curves.diagnosis.sentence


def test_a_level_given_sets_the_bound() -> None:
    loose = diagnosis_curves(_CORRECT, SMALL, level="float32/bfloat16/bfloat16", max_position=99)
    tight = diagnosis_curves(_CORRECT, SMALL, max_position=99)
    assert loose.level.name == "float32/bfloat16/bfloat16"
    assert np.all(loose.phase_bound >= tight.phase_bound)
    assert np.any(loose.phase_bound > 10 * tight.phase_bound)


def test_a_backend_failing_every_probe_is_not_measured() -> None:
    with pytest.raises(NotMeasured, match="nothing measured to draw"):
        diagnosis_curves(raising, SMALL, max_position=99)


def test_the_figure_is_labelled() -> None:
    figure = plot.diagnosis_figure(theta_slipped, LLAMA2)
    top, bottom = figure.axes
    assert top.get_yscale() == "log" and top.get_xlabel() == "pair j"
    labels = [text.get_text() for text in top.get_legend().get_texts()]
    assert "deviates (63 of 64 pairs)" in labels
    assert bottom.get_xscale() == "log" and bottom.get_yscale() == "log"
    # docs/guide.md: 25 probe positions (0 … 2897 ≤ 4095) × 4 pairs; pair 0 (ω_0 = 1 for any θ)
    # and position 0 (no rotation) are exact, the 3 other pairs above at the 24 others
    assert "72 of 100 values above the bound" in bottom.get_title()
    pairs = [text.get_text() for text in bottom.get_legend().get_texts()]
    assert pairs[:4] == ["pair 30 (furthest above its bound)", "pair 0", "pair 32", "pair 63"]
    assert "θ measured 1.00000e6" in figure.get_suptitle()
    pyplot = pytest.importorskip("matplotlib.pyplot")
    pyplot.close(figure)


def test_a_correct_stack_draws_nothing_above_the_bound() -> None:
    figure = plot.diagnosis_figure("numpy-float32", "Llama-3.1-8B")
    top, bottom = figure.axes  # docs/guide.md: 38 probe positions up to 131071, 4 pairs
    assert "0 of 152 values above the bound" in bottom.get_title()
    assert not any("deviates" in t.get_text() for t in top.get_legend().get_texts())
    pytest.importorskip("matplotlib.pyplot").close(figure)


def test_cli_writes_a_png_for_a_slipped_and_a_correct_backend(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("theta_slipped", "correct"):
        out = tmp_path / f"{name}.png"
        spec = f"{Path(__file__).resolve()}:{name}"
        assert main(["plot", "diagnosis", spec, "--config", "Llama-2-7B", "-o", str(out)]) == 0
        assert out.read_bytes().startswith(PNG_SIGNATURE)
        assert f"wrote {out}" in capsys.readouterr().out
    assert not list(tmp_path.glob(".*"))  # no temp files left behind


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["numpy", "--config", "no-such-preset"], "no preset 'no-such-preset'"),
        (["numpy", "--config", "Llama-2-7B", "--level", "float8"], "level must be"),
        (["numpy", "--config", "Llama-2-7B", "-o", "d.jpg"], "-o must end in"),
        (["numpy", "--config", "Llama-2-7B", "--timeout", "0"], "--timeout must be > 0"),
        (["no-such-backend", "--config", "Llama-2-7B"], "no-such-backend"),
    ],
)
def test_cli_usage_errors_exit_2_in_one_line(
    args: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = [] if "-o" in args else ["-o", str(tmp_path / "d.png")]
    assert main(["plot", "diagnosis", *args, *output]) == 2
    err = capsys.readouterr().err
    assert words in err and err.startswith("pespec plot diagnosis: error:")
    assert len(err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())


def test_cli_without_config_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["plot", "diagnosis", "numpy"])
    assert exit_.value.code == 2
    assert "--config" in capsys.readouterr().err


def test_cli_reports_a_raising_backend(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"{Path(__file__).resolve()}:raising"
    out = tmp_path / "d.png"
    assert main(["plot", "diagnosis", spec, "--config", "Llama-2-7B", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "failed while plotting" in err and "the backend failed on the first probe" in err
    assert not out.exists()


def test_cli_without_matplotlib_exits_2_with_the_install_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.import_module

    def no_matplotlib(name: str, package: str | None = None) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError(f"No module named {name!r}")
        return real(name, package)

    monkeypatch.setattr(plot.importlib, "import_module", no_matplotlib)
    out = tmp_path / "d.png"
    assert main(["plot", "diagnosis", "numpy", "--config", "Llama-2-7B", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "needs matplotlib" in err and "pip install -e '.[plot]'" in err
    assert not out.exists()
