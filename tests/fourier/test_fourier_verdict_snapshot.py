"""The Fourier verdict snapshot (issue 43 item 4): a refactoring changes no Fourier verdict.

A fresh run of the Fourier reference on every preset, tests/fourier/ports.py's NeRF ports,
one-axis slips, the low-precision casts and narrow angles, and the shifted-sine cosine, under
tools/snapshot_verdicts.py's ``FOURIER_PROFILE``, must give exactly the committed
tests/snapshots/fourier-verdicts.json (verdict, level, failed checks' ids, diagnosis and its
sentence; times, paths, versions and § numbers normalised away). The file is a record of the
suite's behaviour, not a claim of correctness: tests/fourier/test_suite.py and
test_low_precision.py say why each verdict is right. A change meant to change a verdict
regenerates it (``python tools/snapshot_verdicts.py --family fourier``) and says why.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import snapshot_verdicts  # tools/ is on pytest's pythonpath

FAMILY = "fourier"


@pytest.mark.slow
def test_fourier_snapshot_unchanged() -> None:
    fresh = snapshot_verdicts.fourier_snapshot()
    messages = snapshot_verdicts.differences(FAMILY, snapshot_verdicts.committed(FAMILY), fresh)
    assert not messages, "\n\n".join(messages)


def test_the_snapshot_covers_every_preset_and_both_verdicts() -> None:
    from pespec.fourier.presets import PRESETS

    data: dict[str, Any] = snapshot_verdicts.committed(FAMILY)
    names = list(data)
    assert names == [name for name, *_ in snapshot_verdicts.fourier_backends()]
    assert all(data[f"reference @ {p}"]["verdict"] == "conformant" for p in PRESETS)
    wrong = [n for n in names if data[n]["verdict"] == "non-conformant"]
    assert len(wrong) >= 10 and all(data[n]["failed"] for n in wrong)
    assert data["ports:nerf_code @ nerf-paper"]["diagnosis"]["slip"] == "π missing"
    assert {data[n]["level"] for n in names} >= {"float64", "float32", "float16", "bfloat16"}


def test_a_changed_verdict_fails_with_a_diff_naming_the_backend() -> None:
    expected = snapshot_verdicts.committed(FAMILY)
    name = "ports:nerf_code @ nerf-paper"
    changed = copy.deepcopy(expected)
    changed[name]["verdict"] = "conformant"  # a deliberately wrong expectation
    messages = snapshot_verdicts.differences(FAMILY, changed, expected)
    assert len(messages) == 1 and repr(name) in messages[0]
    assert "python tools/snapshot_verdicts.py --family fourier" in messages[0]
