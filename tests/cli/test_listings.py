"""Named things can be listed and near misses are answered (issue 24, items 13 and 16).

``pespec conventions`` lists the sinusoidal family's named conventions as ``pespec rope
presets`` lists the rotary presets; ``pespec encode --convention`` offers every convention of
the registry (it offered 7 of 13); a near-miss convention, built-in backend or rotary
built-in gets "did you mean".
"""

from __future__ import annotations

import json

import pytest
from clirun import run_cli

from pespec.sinusoidal.reference.conventions import PRESETS, TIMESTEP_PRESETS

ALL_CONVENTIONS = [*PRESETS, *TIMESTEP_PRESETS]  # SPEC §3.2 and §3.3: 8 + 6 = 14 (mlx: issue 26)


def test_conventions_lists_every_named_convention(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(ALL_CONVENTIONS) == 14
    code, out, _ = run_cli(["conventions", "--names"], capsys)
    assert code == 0 and out.splitlines() == ALL_CONVENTIONS
    code, out, _ = run_cli(["conventions"], capsys)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 14
    whisper = lines[ALL_CONVENTIONS.index("whisper")]
    assert whisper.startswith("whisper ") and "sin_cos_halves" in whisper
    assert "c=1000" in lines[ALL_CONVENTIONS.index("flux")]


@pytest.mark.parametrize("name", ALL_CONVENTIONS)
def test_encode_offers_every_convention(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        ["encode", "--d-model", "4", "--seq-len", "2", "--convention", name, "--json"], capsys
    )
    assert code == 0, err
    assert len(json.loads(out)["values"]) == 2


@pytest.mark.parametrize(
    ("argv", "suggestion"),
    [
        (["encode", "--d-model", "4", "--seq-len", "2", "--convention", "wisper"], "whisper"),
        (["check", "numpy", "--convention", "wisper"], "whisper"),
        (["check", "nump"], "numpy"),
        (["check", "numpy-float23"], "numpy-float32"),
        (["rope", "check", "nump", "--config", "Llama-2-7B"], "numpy"),
    ],
)
def test_a_near_miss_gets_did_you_mean(
    argv: list[str], suggestion: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(argv, capsys)
    assert code == 2
    assert f"did you mean {suggestion}" in err
    assert "Traceback" not in err
