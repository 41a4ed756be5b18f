"""``pespec encode``: the printed values, JSON output, options and usage errors.

Printed values are checked against mpmath (bound (B) of tests/sinusoidal/reference/test_encoding.py:
(θ_max·(4·ln b + 3) + 8)·u) and, since the CLI prints shortest round-trip decimals,
bit for bit against the library function it wraps.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import mpmath as mp
import numpy as np
import pytest

from pespec.cli import main
from pespec.sinusoidal.reference import PRESETS, sinusoidal_positional_encoding

U = 2.0**-53


def _mp_rows(positions: list[int], d: int, base: float = 10000.0) -> np.ndarray:
    with mp.workdps(30):
        return np.array(
            [
                [
                    float(f(p * mp.power(mp.mpf(base), mp.mpf(-2 * i) / d)))
                    for i in range(d // 2)
                    for f in (mp.sin, mp.cos)
                ]
                for p in positions
            ]
        )


def _bound(theta_max: float, base: float = 10000.0) -> float:
    return (theta_max * (4.0 * math.log(base) + 3.0) + 8.0) * U


def _parse_text(out: str) -> tuple[list[int], np.ndarray]:
    positions, rows = [], []
    for line in out.strip().splitlines():
        match = re.fullmatch(r"pos (\d+): \[(.*)\]", line.strip())
        assert match is not None, line
        positions.append(int(match.group(1)))
        rows.append([float(v) for v in match.group(2).split()])
    return positions, np.array(rows)


def test_text_output_values(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["encode", "--d-model", "4", "--seq-len", "3"]) == 0
    positions, values = _parse_text(capsys.readouterr().out)
    assert positions == [0, 1, 2]
    assert values[0].tolist() == [0.0, 1.0, 0.0, 1.0]
    np.testing.assert_allclose(values, _mp_rows([0, 1, 2], 4), rtol=0, atol=_bound(2.0))
    # shortest round-trip printing: the parsed floats are the library's floats exactly
    assert np.array_equal(values, sinusoidal_positional_encoding(3, 4))


def test_json_output_with_offset_and_base(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["encode", "--d-model", "6", "--seq-len", "2", "--offset", "5", "--base", "100"]
    assert main([*argv, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["d_model"] == 6 and payload["offset"] == 5
    values = np.array(payload["values"])
    assert values.shape == (2, 6)
    np.testing.assert_allclose(values, _mp_rows([5, 6], 6, 100.0), rtol=0, atol=_bound(6.0, 100.0))
    expected = sinusoidal_positional_encoding(2, 6, base=100.0, offset=5)
    assert np.array_equal(values, expected)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_convention_option(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["encode", "--d-model", "8", "--seq-len", "2", "--convention", name, "--json"]) == 0
    values = np.array(json.loads(capsys.readouterr().out)["values"])
    expected = sinusoidal_positional_encoding(2, 8, convention=PRESETS[name])
    assert np.array_equal(values, expected)


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["--d-model", "7", "--seq-len", "3"], ("d_model", "7")),
        (["--d-model", "0", "--seq-len", "3"], ("d_model", "0")),
        (["--d-model", "4", "--seq-len", "-1"], ("seq_len", "-1")),
        (["--d-model", "4", "--seq-len", "2", "--offset", "-3"], ("offset", "-3")),
        (["--d-model", "4", "--seq-len", "2", "--base", "1"], ("base", "1.0")),
        (["--d-model", "4", "--seq-len", "2", "--base", "nan"], ("base", "nan")),
    ],
)
def test_bad_arguments_exit_2_with_a_clear_message(
    argv: list[str], fragments: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["encode", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("pespec: error: ")
    for fragment in fragments:
        assert fragment in captured.err


def test_unknown_convention_and_missing_arguments_are_usage_errors() -> None:
    for argv in (
        ["encode", "--d-model", "4", "--seq-len", "2", "--convention", "nope"],
        ["encode"],
    ):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2


@pytest.mark.slow
def test_module_entry_point_runs_in_a_fresh_process() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pespec", "encode", "--d-model", "4", "--seq-len", "2"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    positions, values = _parse_text(result.stdout)
    assert positions == [0, 1]
    assert np.array_equal(values, sinusoidal_positional_encoding(2, 4))
