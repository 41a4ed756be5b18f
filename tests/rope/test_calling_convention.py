"""A rotary backend that does not fit ``backend(x, positions, rope)`` is told the rotary
convention, not the sinusoidal one (issue 24, item 12)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pespec.cli import main
from pespec.conformance.guard import BackendLoadError, CallProtocolError
from pespec.rope import PRESETS, check

SOURCE = """
def two(x, positions):
    return x


def four(x, positions, rope, extra):
    return x


class Rotary:
    def __init__(self, head_dim, theta):
        self.head_dim = head_dim

not_callable = 3
"""


def _two(x: Any, positions: Any) -> Any:
    return x


@pytest.mark.parametrize("attr", ["two", "four", "Rotary"])
def test_the_cli_gives_the_rotary_calling_convention(
    attr: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "arity.py").write_text(SOURCE, encoding="utf-8")
    spec = f"{tmp_path / 'arity.py'}:{attr}"
    assert main(["rope", "check", spec, "--config", "Llama-2-7B", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "backend(x, positions, rope) -> array" in err
    assert "(x, positions, rope) -> array" in err.split("; ", 1)[1]  # the advice, too
    assert "d_model" not in err and "module_backend" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_non_callable_names_the_rotary_convention(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "arity.py").write_text(SOURCE, encoding="utf-8")
    spec = f"{tmp_path / 'arity.py'}:not_callable"
    assert main(["rope", "check", spec, "--config", "Llama-2-7B"]) == 2
    err = capsys.readouterr().err
    assert "backend(x, positions, rope) -> array" in err and "d_model" not in err


def test_the_python_api_raises_with_the_rotary_convention() -> None:
    with pytest.raises(CallProtocolError, match=r"backend\(x, positions, rope\) -> array"):
        check(_two, PRESETS["Llama-2-7B"])


def test_a_fitting_backend_still_loads() -> None:
    def ok(x: Any, positions: Any, rope: Any) -> Any:
        from pespec.rope import rotate

        return rotate(np.asarray(x), positions, rope)

    report = check(ok, PRESETS["Llama-2-7B"], stages=("contract", "golden"))
    assert report.conformant, report.summary()


def test_the_sinusoidal_family_keeps_its_convention(capsys: pytest.CaptureFixture[str]) -> None:
    from pespec.conformance import check as sinusoidal_check

    with pytest.raises(BackendLoadError, match=r"backend\(positions, d_model, base\)"):
        sinusoidal_check(_two)
