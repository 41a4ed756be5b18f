"""The verdict snapshot (issue 13's safety net): a refactoring changes no verdict.

A fresh run of every NumPy backend of tests/catalog/ and every built-in NumPy backend under
tools/snapshot_verdicts.py's small profile must give exactly the committed
tests/snapshots/verdicts.json: the verdict, the failed checks' ids, the diagnosis and its
sentence (timestamps, durations, paths, versions and § numbers normalised away). The expected
file is a record of the suite's behaviour, not a claim of correctness: the catalog's own tests
(tests/conformance/test_catalog.py, tests/sinusoidal/diagnosis/test_diagnosis.py) say why
each verdict is right. A change that is meant to change a verdict regenerates it
(``python tools/snapshot_verdicts.py --family sinusoidal``) and says why in its commit and in
CHANGELOG.md.
"""

from __future__ import annotations

from typing import Any

import pytest
import snapshot_verdicts  # tools/ is on pytest's pythonpath

pytestmark = [
    pytest.mark.slow,
    # the catalog's broken ports divide by zero on purpose (d/2 − s = 0): their warnings are noise
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
]


@pytest.fixture(scope="module")
def fresh() -> dict[str, Any]:
    return snapshot_verdicts.snapshot()


def _committed() -> dict[str, Any]:
    return snapshot_verdicts.committed("sinusoidal")


def test_snapshot_names_the_same_backends(fresh: dict[str, Any]) -> None:
    assert list(fresh) == list(_committed())


@pytest.mark.parametrize("name", list(_committed()))
def test_verdict_failures_and_diagnosis_unchanged(fresh: dict[str, Any], name: str) -> None:
    message = snapshot_verdicts.difference("sinusoidal", name, _committed()[name], fresh[name])
    assert message is None, message


def test_normalise_removes_what_a_refactoring_may_change() -> None:
    report = {
        "verdict": "non-conformant",
        "level": {"name": "float32"},
        "checks": [
            {"id": "golden:x", "status": "failed"},
            {"id": "contract:shape", "status": "passed"},
        ],
        "diagnosis": {"sentence": "dropped", "why": f"§4.2 in {snapshot_verdicts.ROOT}/a.py"},
        "diagnosis_sentence": "see Annex D.3 of pespec 0.4.1",
    }
    assert snapshot_verdicts.normalise(report) == {
        "verdict": "non-conformant",
        "level": "float32",
        "failed": ["golden:x"],
        "diagnosis": {"why": "§N in <root>/a.py"},
        "diagnosis_sentence": "see §N of pespec <version>",
    }
