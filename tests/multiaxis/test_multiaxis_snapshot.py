"""The multi-axis verdict snapshots (issue 38 step 1): a refactoring changes no verdict and no
report byte of the families ``multiaxis`` and ``multiaxis-rope``.

A fresh run of tools/snapshot_multiaxis.py's cases (tests/multiaxis/sinusoidal/ports.py and
tests/multiaxis/rope/ports.py: correct transcriptions, each documented bug class, four contract
breakers) must give exactly the committed tests/snapshots/multiaxis-verdicts.json and
multiaxis-rope-verdicts.json: verdict, level, failed ids, diagnosis and its sentence, and the
whole JSON report without times and environment. The files record behaviour, not correctness
(tests/multiaxis/sinusoidal/test_suite.py and tests/multiaxis/rope/test_real.py say why each
verdict is right).
A change meant to change a report regenerates them (``python tools/snapshot_verdicts.py
--family multiaxis --family multiaxis-rope``) and says why in its commit and CHANGELOG.md.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import snapshot_multiaxis  # tools/ is on pytest's pythonpath
import snapshot_verdicts

FAMILIES = {
    "multiaxis": snapshot_multiaxis.multiaxis_snapshot,
    "multiaxis-rope": snapshot_multiaxis.multiaxis_rope_snapshot,
}
CASES = {
    "multiaxis": snapshot_multiaxis.multiaxis_backends,
    "multiaxis-rope": snapshot_multiaxis.multiaxis_rope_backends,
}


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("family", list(FAMILIES))
def test_multiaxis_snapshot_unchanged(family: str) -> None:
    fresh = FAMILIES[family]()
    messages = snapshot_verdicts.differences(family, snapshot_verdicts.committed(family), fresh)
    assert not messages, "\n\n".join(messages)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_the_snapshot_covers_ports_bugs_and_breakers(family: str) -> None:
    data = snapshot_verdicts.committed(family)
    assert list(data) == [name for name, *_ in CASES[family]()]
    verdicts = {data[name]["verdict"] for name in data}
    assert verdicts == {"conformant", "non-conformant"}
    diagnosed = [name for name in data if data[name]["diagnosis"]]
    assert len(diagnosed) >= 4
    breakers = [name for name in data if name.startswith("breaker:")]
    assert len(breakers) == 4 and all(data[n]["verdict"] == "non-conformant" for n in breakers)
    assert all("checks" in data[name]["report"] for name in data)


def test_a_changed_report_byte_fails_with_a_diff_naming_the_case() -> None:
    expected = snapshot_verdicts.committed("multiaxis")
    name = "ports:h_first @ mae-vit-b-16"
    changed = copy.deepcopy(expected)
    changed[name]["report"]["checks"][0]["message"] += "!"  # a deliberately wrong expectation
    messages = snapshot_verdicts.differences("multiaxis", changed, expected)
    assert len(messages) == 1 and repr(name) in messages[0]
    assert "--family multiaxis" in messages[0]


def test_normalise_multiaxis_drops_times_and_environment() -> None:
    report: dict[str, Any] = {
        "verdict": "conformant",
        "level": {"name": "float64"},
        "timestamp": "2026-01-01T00:00:00+00:00",
        "duration_s": 0.5,
        "execution": {"device": "cpu"},
        "pespec_version": "1.0.0.dev0",
        "checks": [{"id": "contract:shape", "status": "passed", "duration_s": 0.1}],
        "diagnosis": None,
        "diagnosis_sentence": None,
    }
    assert snapshot_multiaxis.normalise_multiaxis(report) == {
        "verdict": "conformant",
        "level": "float64",
        "failed": [],
        "diagnosis": {},
        "diagnosis_sentence": None,
        "report": {
            "verdict": "conformant",
            "level": {"name": "float64"},
            "pespec_version": "<version>",
            "checks": [{"id": "contract:shape", "status": "passed"}],
            "diagnosis": None,
            "diagnosis_sentence": None,
        },
    }
