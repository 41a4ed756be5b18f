"""Snapshot of the suite's verdicts: the safety net of refactorings that must change no verdict.

For every NumPy backend of tests/catalog/ and every built-in NumPy backend, the conformance
suite runs under a small fixed profile (:data:`PROFILE`) and the JSON report is reduced to what
a refactoring must keep: the verdict, the failed checks' ids, the diagnosis (convention, working
precision, candidates, evidence) and its sentence. Timestamps, durations, paths, versions and
§ numbers are normalised away (:func:`normalise`), so that renumbering SPEC sections or moving
the checkout changes nothing. torch/JAX/transformers backends are left out: the README's test
command runs without them.

Regenerate (deliberately, saying in the commit why a verdict changed)::

    python tools/snapshot_verdicts.py            # writes tests/snapshots/verdicts.json

tests/conformance/test_verdict_snapshot.py compares a fresh run with the committed file.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "tests" / "snapshots" / "verdicts.json"

PROFILE: dict[str, Any] = {
    "examples": 2,
    "shrink": False,
    "large_sizes": ((4608, 32),),  # crosses the 4096-row table of catalog.buggy.stops_at_4096
    "diagnose": True,
    "timeout": 60.0,
}
"""The suite's arguments for every backend: small, and the same for the tool and the test."""

BUILTINS: tuple[str, ...] = ("numpy", "numpy-float32", "numpy-float16", "numpy-bfloat16")
"""The built-in backends that need neither torch nor JAX."""

_SECTION = re.compile(r"§\s?\d+(?:\.\d+)*|\bAnnex [A-Z](?:\.\d+)*")
_VERSION = re.compile(r"\b\d+\.\d+\.\d+(?:[.\w+-]*)?\b")


def _catalog() -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """(name, backend, extra arguments of check) for every NumPy backend of tests/catalog/."""
    tests = str(ROOT / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    # Imported by name: tests/ is not a package mypy sees from tools/.
    buggy, correct, casts, misbehaving, model_bugs, ports, tutorial = (
        importlib.import_module(f"catalog.{name}")
        for name in ("buggy", "correct", "casts", "misbehaving", "model_bugs", "ports", "tutorial")
    )
    for table, label in ((buggy.BUGGY, "buggy"), (correct.CORRECT, "correct")):
        for name, fn in table.items():
            yield f"catalog.{label}:{name}", fn, {}
    for name, (fn, level) in casts.CASTS.items():
        if "torch" not in name:
            yield f"catalog.casts:{fn.__name__}", fn, {"level": level}
    yield "catalog.casts:recurrence_float64_to_float32", casts.recurrence_float64_to_float32, {}
    for module, names in (
        (model_bugs, ("reduced_by_float32_two_pi", "cos_as_shifted_sine", "norm_drift")),
        (ports, ("whisper_port", "wrong_layout", "shift_zero", "offset_two")),
        (ports, ("bfloat16_timesteps", "float16_angles")),
        (tutorial, ("numpy_float32", "numpy_float32_declared")),
        (tutorial, ("numpy_float16_model", "numpy_bfloat16_model")),
        # hangs is left out: it costs the whole timeout and says nothing a refactoring changes.
        (misbehaving, ("raises", "returns_list", "integer_output", "mutates_input")),
        (misbehaving, ("float64_claiming_float32",)),
    ):
        short = module.__name__.rsplit(".", 1)[-1]
        for name in names:
            yield f"catalog.{short}:{name}", getattr(module, name), {}


def backends() -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """Every backend of the snapshot, built-ins first, in a fixed order."""
    for name in BUILTINS:
        yield name, name, {}
    yield from _catalog()


def _text(value: str | None) -> str | None:
    """Text with § numbers, versions and the checkout's path replaced by placeholders."""
    if value is None:
        return None
    value = value.replace(str(ROOT), "<root>")
    value = _SECTION.sub("§N", value)
    return _VERSION.sub("<version>", value)


def _scrub(value: Any) -> Any:
    """``value`` with every string normalised by :func:`_text` (dicts and lists walked)."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def normalise(report: dict[str, Any]) -> dict[str, Any]:
    """What the snapshot keeps of a JSON report (SPEC §6.4): verdict, failures, diagnosis."""
    diagnosis = report.get("diagnosis") or {}
    return {
        "verdict": report["verdict"],
        "level": report["level"]["name"],
        "failed": [c["id"] for c in report["checks"] if c["status"] == "failed"],
        "diagnosis": _scrub({k: v for k, v in diagnosis.items() if k != "sentence"}),
        "diagnosis_sentence": _text(report.get("diagnosis_sentence")),
    }


def snapshot(progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """A fresh run of every backend, normalised, keyed by backend name."""
    from pespec.conformance import check

    result: dict[str, Any] = {}
    for name, backend, extra in backends():
        if progress is not None:
            progress(name)
        report = check(backend, **PROFILE, **extra)
        result[name] = normalise(json.loads(report.to_json()))
    return result


def main() -> int:
    """Write :data:`SNAPSHOT` from a fresh run."""
    data = snapshot(progress=lambda name: print(name, file=sys.stderr, flush=True))
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n"
    tmp = SNAPSHOT.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(SNAPSHOT)
    print(f"wrote {SNAPSHOT.relative_to(ROOT)} ({len(data)} backends)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
