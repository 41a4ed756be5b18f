"""Snapshots of the suite's verdicts: the safety net of refactorings that must change no verdict.

One file per family, each a record of the suite's behaviour (not a claim of correctness):

``tests/snapshots/verdicts.json`` (``--family sinusoidal``)
    Every NumPy backend of tests/catalog/ and every built-in NumPy backend, run by
    :func:`pespec.conformance.check` under a small fixed profile (:data:`PROFILE`).
``tests/snapshots/rope-verdicts.json`` (``--family rope``)
    The rotary built-ins ``numpy`` and ``numpy-float32`` on :data:`ROPE_PRESETS`, the rotary
    bugs pespec knows (:func:`pespec.rope.diagnosis.examples.bugs`, the one-stage bugs and
    independent correct stacks of tests/rope_implementations.py, the contract breakers of
    tests/rope_misbehaving.py), run by :func:`pespec.rope.check` under :data:`ROPE_PROFILE`.
``tests/snapshots/fourier-verdicts.json`` (``--family fourier``)
    The Fourier reference on every preset, tests/fourier/ports.py's NeRF ports, one-axis
    slips (:data:`FOURIER_SLIPS`), the low-precision casts and narrow angles, and the
    shifted-sine cosine, run by :func:`pespec.fourier.run.check` under :data:`FOURIER_PROFILE`.

Each JSON report is reduced to what a refactoring must keep: the verdict, the level, the failed
checks' ids, the diagnosis (sinusoidal: convention, working precision, candidates, evidence;
rotary: pairing, schedule, parameters, stage precisions, causes) and its sentence, and for the
rotary family the description of the position domain checked. Timestamps, durations, paths,
versions and § numbers are normalised away (:func:`normalise`, :func:`normalise_rope`), so that
renumbering SPEC sections or moving the checkout changes nothing. torch/JAX/transformers
backends are left out: the README's test command runs without them.

Regenerate (deliberately, saying in the commit and CHANGELOG.md why a verdict changed)::

    python tools/snapshot_verdicts.py                    # every family's file
    python tools/snapshot_verdicts.py --family rope      # tests/snapshots/rope-verdicts.json only
    python tools/snapshot_verdicts.py --family fourier   # tests/snapshots/fourier-verdicts.json
    python tools/snapshot_verdicts.py --check            # compare, print the differences, exit 1

``tests/snapshots/multiaxis-verdicts.json`` and ``multiaxis-rope-verdicts.json``
(``--family multiaxis``, ``--family multiaxis-rope``)
    The two multi-axis families, verdicts and report bytes: tools/snapshot_multiaxis.py.

tests/sinusoidal/test_verdict_snapshot.py (sinusoidal),
tests/rope/test_rope_verdict_snapshot.py (rotary) and
tests/multiaxis/test_multiaxis_snapshot.py (both multi-axis families) and
tests/fourier/test_fourier_verdict_snapshot.py compare a fresh run with
the committed files.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import importlib
import json
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "tests" / "snapshots" / "verdicts.json"
ROPE_SNAPSHOT = ROOT / "tests" / "snapshots" / "rope-verdicts.json"
FOURIER_SNAPSHOT = ROOT / "tests" / "snapshots" / "fourier-verdicts.json"

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

ROPE_PROFILE: dict[str, Any] = {
    "profile": "ci",  # sampled positions, whatever PESPEC_PROFILE says
    "stages": ("contract", "golden", "reference", "property"),
    "diagnose": True,
    "timeout": 60.0,
}
"""pespec.rope.check's arguments for every rotary backend (about 15 s for the whole family)."""

ROPE_BUILTINS: tuple[str, ...] = ("numpy", "numpy-float32")
"""The rotary built-ins that need no torch."""

ROPE_PRESETS: tuple[str, ...] = (
    "Llama-2-7B",
    "Llama-3.1-8B",
    "gpt-oss-20b",
    "DeepSeek-V3",
    "Phi-3.5-mini-instruct-seq-len-4096",
)
"""The presets of the rotary built-ins: one per schedule (default, llama3, yarn with and without
DeepSeek's mscale, longrope)."""

Family = Callable[[Callable[[str], None] | None], dict[str, Any]]

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


UNSNAPPED = ("sentence", "measured_vs_declared")
"""Diagnosis fields the snapshot leaves out: the sentence (kept normalised apart) and the
per-pair measurement table (numbers at the last digits of a platform's libm)."""


def normalise(report: dict[str, Any]) -> dict[str, Any]:
    """What the snapshot keeps of a JSON report (SPEC §6.4): verdict, failures, diagnosis."""
    diagnosis = report.get("diagnosis") or {}
    return {
        "verdict": report["verdict"],
        "level": report["level"]["name"],
        "failed": [c["id"] for c in report["checks"] if c["status"] == "failed"],
        "diagnosis": _scrub({k: v for k, v in diagnosis.items() if k not in UNSNAPPED}),
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


def _tests_module(name: str) -> Any:
    """A helper module of tests/ (not a package mypy sees from tools/), imported by name."""
    tests = str(ROOT / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    return importlib.import_module(name)


def _rope_ports() -> Iterator[tuple[str, Any, str, dict[str, Any]]]:
    """(name, backend, preset, extra arguments) of tests/: one-stage bugs, correct stacks,
    contract breakers."""
    from pespec.rope import PRESETS

    impl, broken = _tests_module("rope_implementations"), _tests_module("rope_misbehaving")
    phi = PRESETS["Phi-3.5-mini-instruct-seq-len-4096"]
    cases: tuple[tuple[str, Any, str, dict[str, Any]], ...] = (
        ("bf16_positions", impl.bug_bf16_positions(PRESETS["Llama-2-7B"]), "Llama-2-7B", {}),
        (
            "halves_as_interleaved",
            impl.bug_pairing(PRESETS["Llama-2-7B"], "interleaved"),
            "Llama-2-7B",
            {},
        ),
        ("interleaved_as_halves", impl.bug_pairing(PRESETS["GPT-J-6B"], "halves"), "GPT-J-6B", {}),
        (
            "partial_over_head_dim",
            impl.bug_partial_over_head_dim(PRESETS["GPT-J-6B"]),
            "GPT-J-6B",
            {},
        ),
        (
            "long_factors_at_short_length",
            impl.bug_schedule(dataclasses.replace(phi, seq_len=phi.max_position_embeddings)),
            "Phi-3.5-mini-instruct-seq-len-4096",
            {},
        ),
        (
            "fp16_cache",
            impl.bug_fp16_cache(PRESETS["Qwen2.5-7B-Instruct"]),
            "Qwen2.5-7B-Instruct",
            {"max_position": 60000},
        ),
        ("halves_float64", impl.halves_float64, "Llama-3.1-8B", {}),
        ("gptj_numpy", impl.gptj_numpy, "GPT-J-6B", {}),
    )
    for name, backend, preset, extra in cases:
        yield f"rope_implementations:{name} @ {preset}", backend, preset, extra
    for name in ("raises", "wrong_shape", "nan_at_zero", "mutates_input"):
        yield f"rope_misbehaving:{name} @ Llama-2-7B", getattr(broken, name), "Llama-2-7B", {}


def rope_backends() -> Iterator[tuple[str, Any, Any, dict[str, Any]]]:
    """(name, backend, configuration, extra arguments of check) of the rotary snapshot:
    built-ins on every preset, the guide's bugs, then tests/' ports, in a fixed order."""
    from pespec.rope import PRESETS
    from pespec.rope.diagnosis.examples import bugs

    for preset in ROPE_PRESETS:
        for builtin in ROPE_BUILTINS:
            yield f"{builtin} @ {preset}", builtin, PRESETS[preset], {}
    for bug, configuration, config, backend in bugs():
        yield f"examples:{bug} @ {configuration}", backend, config, {}
    for name, backend, preset, extra in _rope_ports():
        yield name, backend, PRESETS[preset], extra


def normalise_rope(report: dict[str, Any]) -> dict[str, Any]:
    """What the rotary snapshot keeps of a JSON report (SPEC R8.15): the level name (the stage
    tuple), the position domain's description, the rest as :func:`normalise`."""
    domain = report.get("domain") or {}
    return {
        "verdict": report["verdict"],
        "level": report["level"]["name"],
        "domain": _text(domain.get("description")),
        "failed": [c["id"] for c in report["checks"] if c["status"] == "failed"],
        "diagnosis": _scrub(
            {k: v for k, v in (report.get("diagnosis") or {}).items() if k not in UNSNAPPED}
        ),
        "diagnosis_sentence": _text(report.get("diagnosis_sentence")),
    }


def rope_snapshot(progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """A fresh run of every rotary backend, normalised, keyed by backend name."""
    import warnings

    from pespec.rope import check

    result: dict[str, Any] = {}
    for name, backend, config, extra in rope_backends():
        if progress is not None:
            progress(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the bugs overflow on purpose
            report = check(backend, config, **ROPE_PROFILE, **extra)
        result[name] = normalise_rope(json.loads(report.to_json()))
    return result


def _multiaxis(progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """tools/snapshot_multiaxis.py's sin-cos multi-axis run (imported on use)."""
    import snapshot_multiaxis

    result: dict[str, Any] = snapshot_multiaxis.multiaxis_snapshot(progress)
    return result


def _multiaxis_rope(progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """tools/snapshot_multiaxis.py's rotary multi-axis run (imported on use)."""
    import snapshot_multiaxis

    result: dict[str, Any] = snapshot_multiaxis.multiaxis_rope_snapshot(progress)
    return result


FOURIER_PROFILE: dict[str, Any] = {"profile": "ci", "timeout": 60.0}
"""pespec.fourier.run.check's arguments for every Fourier backend (a few seconds in all)."""

FOURIER_SLIPS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("nerf-paper", {"pi": "none"}),
    ("nerfstudio-nerf", {"pi": "pi"}),
    ("rff-tancik", {"blocks": "sin|cos"}),
    ("timm-fourier", {"blocks": "interleaved"}),
    ("nerfstudio-nerf", {"order": "band-major"}),
    ("nerfstudio-nerf", {"raw": "first"}),
    ("diffusers-gaussian-fourier-log", {"input_log": False, "domain": (0.01, 400.0)}),
    ("nerf", {"input_scale": 2.0}),
)
"""(preset, one change) of the reference: slips the diagnosis names (the last, a doubled
input scale, it names none)."""


def fourier_backends() -> Iterator[tuple[str, Any, str, dict[str, Any]]]:
    """(name, backend, preset, extra arguments of check) of the Fourier snapshot, in a fixed
    order: the reference on every preset, the NeRF ports, the slips, the low-precision
    tables, the shifted-sine cosine."""
    import ml_dtypes

    from pespec.fourier.presets import PRESETS

    ports = _tests_module("fourier.ports")
    for preset in PRESETS:
        yield f"reference @ {preset}", "pespec.fourier.reference:encode", preset, {}
    for name, preset, extra in (
        ("nerf_code", "nerf", {}),
        ("nerf_code", "nerf-paper", {}),
        ("nerf_code_pi", "nerf-paper", {}),
        ("nerf_code_float32", "nerf", {}),
        ("nerf_code_float32", "nerf", {"level": "float64"}),
        ("nerf_code_float32_pi", "nerf-paper", {}),
        ("nerf_no_identity", "nerf", {}),
        ("shifted_sine_float32", "nerfstudio-nerf", {}),
    ):
        claim = f" (level {extra['level']})" if extra else ""
        yield f"ports:{name} @ {preset}{claim}", getattr(ports, name), preset, extra
    for preset, changes in FOURIER_SLIPS:
        text = ", ".join(f"{k}={v}" for k, v in changes.items())
        yield f"reference_of({text}) @ {preset}", ports.reference_of(**changes), preset, {}
    for dtype in ("float16", "bfloat16"):
        narrow = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
        yield (
            f"ports:cast_oracle({dtype}, through float32) @ nerf-paper",
            ports.cast_oracle(narrow, True),
            "nerf-paper",
            {},
        )
        yield (
            f"ports:narrow_angles({dtype}) @ nerf-paper",
            ports.narrow_angles(narrow),
            "nerf-paper",
            {},
        )


def fourier_snapshot(progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """A fresh run of every Fourier backend, normalised (as :func:`normalise`), by name."""
    from pespec.fourier.run import check

    result: dict[str, Any] = {}
    for name, backend, preset, extra in fourier_backends():
        if progress is not None:
            progress(name)
        report = check(backend, config=preset, **FOURIER_PROFILE, **extra)
        result[name] = normalise(json.loads(report.to_json()))
    return result


FAMILIES: dict[str, tuple[Path, Family]] = {
    "sinusoidal": (SNAPSHOT, snapshot),
    "rope": (ROPE_SNAPSHOT, rope_snapshot),
    "multiaxis": (ROOT / "tests" / "snapshots" / "multiaxis-verdicts.json", _multiaxis),
    "multiaxis-rope": (
        ROOT / "tests" / "snapshots" / "multiaxis-rope-verdicts.json",
        _multiaxis_rope,
    ),
    "fourier": (FOURIER_SNAPSHOT, fourier_snapshot),
}
"""Each family's snapshot file and the function that runs it afresh."""


def regenerate_hint(family: str) -> str:
    """How to regenerate ``family``'s file, and what a deliberate change owes its reader."""
    return (
        f"if the change is deliberate, regenerate with `python tools/snapshot_verdicts.py "
        f"--family {family}` and explain in the commit message and CHANGELOG.md which "
        "verdicts change and why; otherwise the refactoring changed a verdict (a bug)"
    )


def _lines(entry: Any) -> list[str]:
    return json.dumps(entry, indent=2, ensure_ascii=False).splitlines()


def difference(family: str, name: str, expected: Any, fresh: Any) -> str | None:
    """None when ``fresh`` equals ``expected``; else a message naming the backend, a unified
    diff of its snapshot entry (- committed, + fresh run) and how to regenerate."""
    if fresh == expected:
        return None
    diff = difflib.unified_diff(
        _lines(expected), _lines(fresh), "committed", "fresh run", lineterm="", n=2
    )
    return (
        f"{family} verdict snapshot: {name!r} changed:\n"
        + "\n".join(diff)
        + f"\n{regenerate_hint(family)}"
    )


def differences(family: str, expected: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """One message per backend that differs, is new or is gone (:func:`difference`)."""
    messages = [
        f"{family} verdict snapshot: {name!r} is not in the committed file; "
        f"{regenerate_hint(family)}"
        for name in fresh
        if name not in expected
    ]
    messages += [
        f"{family} verdict snapshot: {name!r} no longer runs; {regenerate_hint(family)}"
        for name in expected
        if name not in fresh
    ]
    for name in expected:
        if name in fresh:
            message = difference(family, name, expected[name], fresh[name])
            if message is not None:
                messages.append(message)
    return messages


def committed(family: str) -> dict[str, Any]:
    """The committed snapshot of ``family``."""
    data: dict[str, Any] = json.loads(FAMILIES[family][0].read_text(encoding="utf-8"))
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Write each chosen family's snapshot from a fresh run (``--check``: compare instead)."""
    parser = argparse.ArgumentParser(description="Regenerate or check the verdict snapshots.")
    parser.add_argument(
        "--family",
        action="append",
        choices=sorted(FAMILIES),
        help="the family to run (repeatable; default: every family)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="compare with the committed files; print differences, exit 1",
    )
    args = parser.parse_args(argv)
    failed = False
    for family in args.family or list(FAMILIES):
        path, run = FAMILIES[family]
        data = run(lambda name: print(name, file=sys.stderr, flush=True))
        if args.check:
            for message in differences(family, committed(family), data):
                failed = True
                print(message, file=sys.stderr)
            continue
        _write(path, data)
        print(f"wrote {path.relative_to(ROOT)} ({len(data)} backends)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
