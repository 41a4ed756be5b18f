"""The rotary verdict snapshot (issue 25's safety net): a refactoring changes no rotary verdict.

A fresh run of the rotary built-ins ``numpy`` and ``numpy-float32`` on five presets, of the
guide's rotary bugs (pespec.rope.diagnosis.examples), of tests/rope_implementations.py's
one-stage bugs and correct stacks and of tests/rope_misbehaving.py's contract breakers, under
tools/snapshot_verdicts.py's small ``ROPE_PROFILE``, must give exactly the committed
tests/snapshots/rope-verdicts.json: verdict, level, position domain, failed checks' ids,
diagnosis and its sentence (times, paths, versions and § numbers normalised away). The file is
a record of the suite's behaviour, not a claim of correctness: tests/rope/test_suite.py and
tests/rope/test_diagnosis.py say why each verdict is right. A change meant to change a verdict
regenerates it (``python tools/snapshot_verdicts.py --family rope``) and says why in its
commit and in CHANGELOG.md.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import snapshot_verdicts  # tools/ is on pytest's pythonpath

FAMILY = "rope"


@pytest.fixture(scope="module")
def fresh() -> dict[str, Any]:
    return snapshot_verdicts.rope_snapshot()


@pytest.mark.slow
def test_rotary_snapshot_unchanged(fresh: dict[str, Any]) -> None:
    messages = snapshot_verdicts.differences(FAMILY, snapshot_verdicts.committed(FAMILY), fresh)
    assert not messages, "\n\n".join(messages)


def test_the_snapshot_covers_builtins_presets_and_bugs() -> None:
    names = list(snapshot_verdicts.committed(FAMILY))
    for preset in (
        "Llama-2-7B",
        "Llama-3.1-8B",
        "gpt-oss-20b",
        "DeepSeek-V3",
        "Phi-3.5-mini-instruct-seq-len-4096",
    ):
        assert {f"numpy @ {preset}", f"numpy-float32 @ {preset}"} <= set(names)
    assert names == [name for name, *_ in snapshot_verdicts.rope_backends()]
    data = snapshot_verdicts.committed(FAMILY)
    bugs = [name for name in names if data[name]["verdict"] == "non-conformant"]
    assert len(bugs) >= 15 and all(data[name]["failed"] for name in bugs)


def test_a_changed_verdict_fails_with_a_diff_naming_the_backend() -> None:
    expected = snapshot_verdicts.committed(FAMILY)
    name = "examples:YaRN truncate ignored @ gpt-oss-20b (truncate false)"
    changed = copy.deepcopy(expected)
    changed[name]["verdict"] = "conformant"  # a deliberately wrong expectation
    messages = snapshot_verdicts.differences(FAMILY, changed, expected)
    assert len(messages) == 1
    message = messages[0]
    assert repr(name) in message
    assert '-  "verdict": "conformant",' in message
    assert '+  "verdict": "non-conformant",' in message
    assert "python tools/snapshot_verdicts.py --family rope" in message
    assert "CHANGELOG.md" in message and "why" in message


def test_a_backend_gone_or_new_is_named() -> None:
    expected = snapshot_verdicts.committed(FAMILY)
    fewer = dict(list(expected.items())[1:])
    gone = snapshot_verdicts.differences(FAMILY, expected, fewer)
    new = snapshot_verdicts.differences(FAMILY, fewer, expected)
    first = repr(next(iter(expected)))
    assert len(gone) == 1 and first in gone[0] and "no longer runs" in gone[0]
    assert len(new) == 1 and first in new[0] and "not in the committed file" in new[0]


def test_normalise_rope_keeps_domain_and_level_drops_the_rest() -> None:
    report = {
        "verdict": "non-conformant",
        "level": {"name": "float32/float32/float32", "stages": {"phase": "float32"}},
        "domain": {"description": "integer positions 0..4095", "max_position": 4095},
        "checks": [
            {"id": "reference:0..4095", "status": "failed"},
            {"id": "contract:shape", "status": "passed"},
        ],
        "diagnosis": {"sentence": "dropped", "causes": [f"see §8.7 in {snapshot_verdicts.ROOT}"]},
        "diagnosis_sentence": "pespec 1.0.0.dev0 says so",
        "timestamp": "2026-01-01T00:00:00+00:00",
        "duration_s": 0.5,
    }
    assert snapshot_verdicts.normalise_rope(report) == {
        "verdict": "non-conformant",
        "level": "float32/float32/float32",
        "domain": "integer positions 0..4095",
        "failed": ["reference:0..4095"],
        "diagnosis": {"causes": ["see §N in <root>"]},
        "diagnosis_sentence": "pespec <version> says so",
    }
