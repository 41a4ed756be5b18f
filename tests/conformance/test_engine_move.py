"""Issue 25 item 4's move to one engine Suite changes no byte of any report.

A few runs of both families (a conformant built-in, a bug with its diagnosis, a declared
convention, a rotary claim beyond the context that gets the domain advice) are rendered as the
JSON document (times, durations and the environment dropped), the summary line, the Markdown
report and the terminal table, and compared with tests/snapshots/engine-move.json, which was
written by this module on main before the move (``python tests/conformance/test_engine_move.py
--write``). A rebuilt report (:func:`report_from_dict`) renders the same. A change meant to
change a report regenerates the file and says why in its commit.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

SNAPSHOT = Path(__file__).resolve().parents[1] / "snapshots" / "engine-move.json"


def _runs() -> dict[str, Any]:
    """name -> Report, run now."""
    import catalog.buggy as buggy

    from pespec.conformance import check as sin_check
    from pespec.rope import PRESETS
    from pespec.rope import check as rope_check
    from pespec.rope.diagnosis.examples import bugs

    def beyond_4095(x: NDArray[Any], positions: NDArray[Any], rope: Any) -> NDArray[Any]:
        """A correct backend with a 4096-row cache: a later position raises IndexError."""
        from pespec.rope.reference import rotate

        if np.asarray(positions).size and int(np.max(positions)) > 4095:
            raise IndexError("index 4096 is out of bounds for axis 0 with size 4096")
        out: NDArray[Any] = np.asarray(rotate(x, positions, rope))
        return out

    small = {"stages": ("contract", "golden"), "timeout": 60.0}
    bug, _, config, backend = bugs()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return {
            "sin numpy": sin_check("numpy", **small),
            "sin swapped": sin_check(buggy.swapped, **small),
            "sin whisper declared": sin_check("numpy", convention="whisper", **small),
            "sin float32 property": sin_check(
                "numpy-float32", stages=("property",), examples=2, shrink=False
            ),
            "rope numpy-float32": rope_check("numpy-float32", "Llama-2-7B", profile="ci"),
            f"rope {bug}": rope_check(backend, config, profile="ci"),
            "rope beyond context": rope_check(
                beyond_4095, PRESETS["Llama-2-7B"], profile="ci", max_position=2**20
            ),
        }


def without_local_constants() -> Any:
    """A context in which Hypothesis draws no constants from local modules.

    Hypothesis (6.13x and later) mixes into its examples the constants of every *local*
    module loaded so far (a checkout is local), so the derandomized examples of a property
    run depend on which modules earlier tests imported: this snapshot failed in the full run
    and passed alone. Its runs are taken with that pool empty, in the test and in ``--write``.
    """
    from unittest import mock

    from hypothesis.internal.conjecture import providers

    return mock.patch.object(providers, "_get_local_constants", lambda: providers.Constants())


def render(report: Any) -> dict[str, Any]:
    """What the snapshot keeps of a report: its forms with times and environment fixed."""
    import io

    from rich.console import Console

    report.timestamp, report.duration_s = "T", 0.0
    for check in report.checks:
        check.duration_s = 0.0
    data = report.to_dict()
    data.pop("execution")
    console = Console(file=io.StringIO(), record=True, width=200, color_system=None)
    console.print(report.rich_table())
    return {
        "dict": data,
        "summary": report.summary(),
        "headline": report.headline(),
        "judged_against": report.judged_against,
        "markdown": report.to_markdown(),
        "table": console.export_text(),
    }


def rendered_in_a_fresh_process() -> dict[str, Any]:
    """Every run's forms, computed by this module in a new interpreter (``--dump``).

    The reports' property examples depended on what earlier tests left in the process (they
    differed in the full run and not alone, even with Hypothesis's local-constants pool
    empty): a new process gives the runs the state a user's ``pespec check`` starts from."""
    import subprocess

    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--dump"],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def fresh() -> dict[str, Any]:
    return rendered_in_a_fresh_process()


@pytest.mark.slow
def test_every_form_of_every_report_is_unchanged(fresh: dict[str, Any]) -> None:
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert list(fresh) == list(expected)
    for name, forms in fresh.items():
        for form, value in forms.items():
            assert value == expected[name][form], f"{name}: {form}"


@pytest.mark.slow
def test_a_rebuilt_report_renders_the_same(fresh: dict[str, Any]) -> None:
    from pespec.supervised.report_load import report_from_dict

    for name, forms in fresh.items():
        document = {**forms["dict"], "execution": {"device": "cpu", "libraries": {}}}
        rebuilt = report_from_dict(document)
        again = render(rebuilt)
        assert again["summary"] == forms["summary"], name
        assert again["markdown"] == forms["markdown"], name
        assert again["dict"] == forms["dict"], name


if __name__ == "__main__" and sys.argv[1:] in (["--write"], ["--dump"]):
    root = Path(__file__).resolve().parents[1]
    sys.path[:0] = [str(root), str(root.parent / "tools")]
    from pespec.conformance.profiles import load_profile

    load_profile()  # the profile the tests run under (tests/conftest.py)
    warnings.simplefilter("ignore")
    with without_local_constants():
        rendered = {name: render(report) for name, report in _runs().items()}
    text = json.dumps(rendered, indent=1, ensure_ascii=False) + "\n"
    if sys.argv[1] == "--dump":
        sys.stdout.write(text)
    else:
        SNAPSHOT.write_text(text, "utf-8")
