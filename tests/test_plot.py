"""Tests of pespec.plot: the pictures are drawn, labelled, deterministic, and honest about errors.

Expected errors are planted: a backend that returns the oracle's values plus a known δ at
one element must show exactly δ there and 0 elsewhere.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from numpy.typing import NDArray

from pespec import plot
from pespec.cli import main
from pespec.sinusoidal.properties.base import LEVELS
from pespec.sinusoidal.reference import oracle

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_encoding_figure_is_labelled() -> None:
    figure = plot.encoding_figure(16, 20)
    axes = figure.axes[0]
    assert axes.get_xlabel().startswith("column j")
    assert axes.get_ylabel() == "position p"
    assert "d = 16" in axes.get_title()
    colorbar = figure.axes[1]
    assert colorbar.get_ylabel() == "PE(p, j)"
    image = axes.get_images()[0]
    assert image.get_array().shape == (20, 16)
    assert image.get_clim() == (-1.0, 1.0)


@pytest.mark.slow
def test_encoding_plot_writes_identical_png_twice(tmp_path: Path) -> None:
    first = plot.encoding_plot(8, 10, tmp_path / "a.png")
    second = plot.encoding_plot(8, 10, tmp_path / "sub" / "b.png")
    assert first.read_bytes().startswith(PNG_SIGNATURE)
    assert first.read_bytes() == second.read_bytes()
    assert not list(tmp_path.glob(".*.png"))  # no temp files left behind


def test_encoding_plot_rejects_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="d_model must be a positive even int; got 7"):
        plot.encoding_plot(7, 10, tmp_path / "x.png")
    with pytest.raises(ValueError, match="seq_len must be a positive int"):
        plot.encoding_plot(8, 0, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def _planted(delta: float, row: int, column: int) -> Any:
    """A backend returning the certified values, with ``delta`` added at one element."""

    def backend(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
        out = oracle.encode(positions, d_model, base=base)
        out[row, column] += delta
        return out

    return backend


def test_error_curves_report_the_planted_error() -> None:
    positions = np.array([0, 3, 1000])
    level, pos, error, bound = plot.error_curves(
        _planted(2.0**-20, 1, 5), "float64", d_model=8, positions=positions
    )
    assert level == LEVELS["float64"]
    assert pos.tolist() == [0, 3, 1000]
    expected = np.zeros((3, 8))
    expected[1, 5] = 2.0**-20  # exact in float64: |x + 2^-20 − x| for |x| ≤ 1
    assert np.array_equal(error, expected)
    assert bound.shape == (3, 8) and np.all(bound > 0)
    assert error[1, 5] > bound[1, 5]  # 2^-20 is far above the float64 bound


def test_error_curves_level_defaults_to_output_dtype() -> None:
    def half(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        return oracle.encode(positions, d_model, base=base).astype(ml_dtypes.bfloat16)

    level, _, error, bound = plot.error_curves(half, d_model=4, positions=[0, 1, 2])
    assert level == LEVELS["bfloat16"]
    assert np.all(error <= bound)  # one rounding of the exact value is within the bound


def test_error_figure_counts_values_above_bound_and_non_finite() -> None:
    def broken(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
        out = oracle.encode(positions, d_model, base=base)
        out[2, 0] = np.nan
        out[3, 1] += 0.5
        return out

    figure = plot.error_figure(broken, "float32", d_model=8, positions=np.arange(6))
    axes = figure.axes[0]
    title = axes.get_title()
    assert "1 of 24 values above the bound" in title
    assert "1 non-finite" in title
    assert axes.get_xscale() == "log" and axes.get_yscale() == "log"
    assert axes.get_xlabel() == "position p"
    assert "absolute error" in axes.get_ylabel()
    labels = [text.get_text() for text in axes.get_legend().get_texts()]
    assert "element bound, level float32 (SPEC §4)" in labels
    assert "column 0 (sin, pair 0)" in labels


def test_error_figure_rejects_bad_columns() -> None:
    with pytest.raises(ValueError, match=r"columns must be column indices in \[0, 8\)"):
        plot.error_figure("numpy", None, d_model=8, positions=[1, 2], columns=[8])


@pytest.mark.slow
def test_error_plot_for_a_builtin_backend(tmp_path: Path) -> None:
    path = plot.error_plot("numpy-float32", None, tmp_path / "err.png", d_model=8,
                           positions=plot.default_positions(1000, 20))  # fmt: skip
    assert path.read_bytes().startswith(PNG_SIGNATURE)


@pytest.mark.slow
def test_cli_plot_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pe.png"
    assert main(["plot", "encoding", "--d-model", "16", "--seq-len", "12", "-o", str(out)]) == 0
    assert out.read_bytes().startswith(PNG_SIGNATURE)
    err = tmp_path / "err.png"
    args = ["plot", "error", "numpy-float16", "--d-model", "8", "--max-position", "500"]
    assert main([*args, "-o", str(err)]) == 0
    assert err.exists()
    assert main(["plot", "error", "no-such-backend", "-o", str(err)]) == 2
    assert "no-such-backend" in capsys.readouterr().err


def raising_backend(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    raise RuntimeError("kernel launch failed")


def test_cli_reports_a_raising_backend(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"{Path(__file__).resolve()}:raising_backend"
    assert main(["plot", "error", spec, "-o", str(tmp_path / "e.png")]) == 1
    assert "RuntimeError: kernel launch failed" in capsys.readouterr().err


def test_missing_matplotlib_gives_install_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.import_module

    def no_matplotlib(name: str, package: str | None = None) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError(f"No module named {name!r}")
        return real(name, package)

    monkeypatch.setattr(plot.importlib, "import_module", no_matplotlib)
    with pytest.raises(plot.PlotDependencyError, match=r"pip install 'pespec\[plot\]'"):
        plot.encoding_figure(8, 4)
    out = tmp_path / "pe.png"
    assert main(["plot", "encoding", "--d-model", "8", "--seq-len", "4", "-o", str(out)]) == 2
    assert "needs matplotlib" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.slow
def test_markdown_report_embeds_the_error_plot(tmp_path: Path) -> None:
    report = tmp_path / "report.md"
    args = ["check", "numpy-float32", "--stages", "contract,golden", "--quiet"]
    assert main([*args, "--markdown", str(report)]) == 0
    picture = tmp_path / "report.error.png"
    assert picture.read_bytes().startswith(PNG_SIGNATURE)
    assert "](report.error.png)" in report.read_text(encoding="utf-8")


def test_markdown_report_without_a_picture_when_plotting_fails(tmp_path: Path) -> None:
    from pespec.conformance import check

    def fails_on_long_inputs(positions: NDArray[Any], d_model: int, base: float) -> Any:
        if positions.shape[0] > 100:  # the error plot asks for more rows than the suite
            raise RuntimeError("out of memory")
        return oracle.encode(positions, d_model, base=base)

    result = check(fails_on_long_inputs, stages=("contract",), diagnose=False)
    report = tmp_path / "report.md"
    picture = plot.report_error_plot(fails_on_long_inputs, result.level, report)
    assert picture is None
    result.write_markdown(report, error_plot=picture)
    assert "Error against the bound" not in report.read_text(encoding="utf-8")
    assert not (tmp_path / "report.error.png").exists()


def test_a_long_encoding_is_drawn_at_1024_positions_in_the_formats_the_guide_names(
    tmp_path: Path,
) -> None:
    # docs/guide.md: "A long --seq-len is drawn at 1024 evenly spaced positions"; "-o" takes
    # .png, .pdf or .svg.
    image = plot.encoding_figure(8, 5000).axes[0].get_images()[0]
    assert image.get_array().shape == (1024, 8)
    for suffix in (".png", ".pdf", ".svg"):
        written = plot.encoding_plot(8, 20, tmp_path / f"pe{suffix}")
        assert Path(written).stat().st_size > 0
    with pytest.raises(ValueError, match="must end in"):
        plot.encoding_plot(8, 20, tmp_path / "pe.jpg")
