"""Fail fast (issue 37, SPEC R6.14): a failed output contract leaves the property and large
stages out, so a broken backend gets its verdict in seconds; a piped run prints one line per
finished stage.

The bound on work is counted, not timed: ``suite_rows`` (positions the backend was asked
for) stays below one large configuration (131072 rows in the ``ci`` profile), and no
property or large check is in the report. The full run of the same backend (``fail_fast``
off) asks for the large stage's rows, so the count can tell the two apart.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import pespec
from pespec.cli import main
from pespec.cli.terminal import StageLines
from pespec.conformance import check
from pespec.conformance.engine import FAIL_FAST_STAGES

LARGE_ROWS = 131072
"""Rows of the smallest ``ci`` large configuration (pespec.sinusoidal.run.LARGE_SIZES)."""


def one_nan(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """The float64 reference with one NaN: row of position 3, column 0 (in every call)."""
    out = pespec.encode(positions, d_model, base=base)
    out[np.asarray(positions) == 3, 0] = np.nan
    return out


def _stages_run(report: Any) -> set[str]:
    return {c.stage for c in report.checks}


def test_one_nan_stops_before_the_property_and_large_stages() -> None:
    report = check(one_nan, fail_fast=True)
    failed = {c.id for c in report.checks if c.status == "failed"}
    assert not report.conformant
    assert "contract:finite" in failed
    assert _stages_run(report) == {"contract", "golden"}
    assert set(report.not_run) == {f"{stage}:*" for stage in FAIL_FAST_STAGES}
    assert "contract:finite failed" in report.not_run["large:*"]
    assert "PARTIAL RUN" in report.summary()
    assert report.backend_calls is not None
    assert report.backend_calls["suite_rows"] < LARGE_ROWS  # no large configuration asked for


def test_without_fail_fast_every_stage_runs() -> None:
    """The same backend, fail fast off (the API's default): the large stage runs and fails
    at the NaN (small sizes and few examples keep this test short)."""
    report = check(one_nan, examples=1, shrink=False, large_sizes=((64, 8),), diagnose=False)
    assert _stages_run(report) == {"contract", "golden", "property", "large"}
    assert not report.not_run
    large = next(c for c in report.checks if c.stage == "large")
    assert large.status == "failed" and large.worst_position == 3


def test_wrong_dtype_for_the_declared_level_stops_early() -> None:
    """float64 output checked at --level float16: contract:dtype fails, nothing larger runs."""
    report = check("numpy", level="float16", fail_fast=True)
    assert report.level == "float16"
    assert not report.conformant
    assert next(c for c in report.checks if c.id == "contract:dtype").status == "failed"
    assert _stages_run(report) == {"contract", "golden"}
    assert report.backend_calls is not None
    assert report.backend_calls["suite_rows"] < LARGE_ROWS


def test_a_conformant_backend_is_not_stopped() -> None:
    report = check("numpy", fail_fast=True, examples=1, large_sizes=((64, 8),))
    assert report.conformant and not report.not_run


FULL = ["--no-fail-fast", "--stages", "contract,golden,property", "--examples", "1", "--no-shrink"]


@pytest.mark.parametrize("extra", [[], FULL])
def test_the_command_fails_fast_by_default(tmp_path: Path, extra: list[str]) -> None:
    source = tmp_path / "nan_backend.py"
    source.write_text(
        "import numpy as np\nimport pespec\n\n\n"
        "def one_nan(positions, d_model, base):\n"
        "    out = pespec.encode(positions, d_model, base=base)\n"
        "    out[np.asarray(positions) == 3, 0] = np.nan\n"
        "    return out\n"
    )
    report_path = tmp_path / "report.json"
    options = ["--in-process", "--quiet", "--json", str(report_path), *extra]
    code = main(["check", f"{source}:one_nan", *options])
    assert code == 1
    report = json.loads(report_path.read_text())
    ran = {c["stage"] for c in report["checks"]}
    if extra:  # --no-fail-fast: the property stage runs (large deselected to keep it short)
        assert "property" in ran and "property:*" not in report["not_run"]
    else:
        assert ran == {"contract", "golden"}
        assert set(report["not_run"]) == {"property:*", "large:*"}


def test_stage_lines_name_each_finished_stage() -> None:
    stream = io.StringIO()  # not a terminal: a CI log
    lines = StageLines("numpy", quiet=False, stream=stream)
    for check_id, failed in (
        ("contract:shape", False),
        ("contract:dtype", True),
        ("golden:a", False),
    ):
        lines.start(check_id)
        lines.done(failed)
    lines.finish()
    lines.finish()  # twice: nothing more
    text = stream.getvalue().splitlines()
    assert len(text) == 2
    assert text[0].startswith("numpy: stage contract done in ")
    assert text[0].endswith(" s (2 checks, 1 failed)")
    assert text[1].startswith("numpy: stage golden done in ")


def test_stage_lines_are_silent_when_quiet_or_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stream, quiet in ((io.StringIO(), True), (Terminal(), False)):
        lines = StageLines("numpy", quiet=quiet, stream=stream)
        lines.start("contract:shape")
        lines.done(False)
        lines.finish()
        assert stream.getvalue() == ""


def test_a_piped_check_prints_its_stage_lines(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "numpy", "--in-process", "--stages", "contract,golden"])
    assert code == 0  # the golden stage passed: conformant over the checks that ran
    err = capsys.readouterr().err
    assert "numpy: stage contract done in " in err
    assert "numpy: stage golden done in " in err
