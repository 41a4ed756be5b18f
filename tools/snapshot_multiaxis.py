"""The verdict snapshots of the two multi-axis families (issue 38 step 1), for
tools/snapshot_verdicts.py.

``tests/snapshots/multiaxis-verdicts.json`` (``--family multiaxis``)
    tests/multiaxis/sinusoidal/ports.py's correct transcriptions and bug classes and four contract
    breakers, run by :func:`pespec.multiaxis.sinusoidal.run.check` on published presets.
``tests/snapshots/multiaxis-rope-verdicts.json`` (``--family multiaxis-rope``)
    tests/multiaxis/rope/ports.py's NumPy M-RoPE and Flux ports (correct and each documented bug
    class)
    and four contract breakers, run by :func:`pespec.multiaxis.rope.run.check` on small grids of
    published presets.

Each entry keeps what :func:`normalise_multiaxis` keeps (verdict, level, failed ids, diagnosis
and its sentence) and, as ``report``, the whole JSON report with its times, durations and
environment dropped and § numbers, versions and paths normalised: the report bytes a
refactoring must keep (the multi-axis families have no entry in tests/snapshots/
engine-move.json).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from snapshot_verdicts import ROOT, UNSNAPPED, _scrub, _tests_module, _text

MULTIAXIS_PROFILE: dict[str, Any] = {"profile": "ci", "diagnose": True, "timeout": 60.0}
"""The check's arguments for every multi-axis backend (both families)."""

Case = tuple[str, Any, Any, dict[str, Any]]
"""(name, backend, config, extra arguments of check)."""


def _ports(name: str) -> Any:
    """tests/<name>/ports.py (the checkout's root on sys.path: ``tests`` is a package)."""
    import sys

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return _tests_module(f"tests.{name}.ports")


def _breakers(arity: int) -> Iterator[tuple[str, Callable[..., Any]]]:
    """Contract breakers of a backend taking ``arity`` arguments (the last the config):
    raises, wrong shape, a NaN, mutates its input."""
    import numpy as np

    def correct_like(*args: Any) -> Any:
        first = np.asarray(args[0], dtype=np.float64)
        return first.copy() if arity == 3 else np.zeros((first.shape[0], args[-1].d_model))

    def raises(*args: Any) -> Any:
        raise RuntimeError("boom")

    def wrong_shape(*args: Any) -> Any:
        return correct_like(*args)[:, :-1]

    def nan_output(*args: Any) -> Any:
        out = correct_like(*args)
        out[0, 0] = np.nan
        return out

    def mutates_input(*args: Any) -> Any:
        out = correct_like(*args)
        args[0][...] = 0
        return out

    yield from (
        ("raises", raises),
        ("wrong_shape", wrong_shape),
        ("nan_output", nan_output),
        ("mutates_input", mutates_input),
    )


def multiaxis_backends() -> Iterator[Case]:
    """The sin-cos multi-axis snapshot's cases, in a fixed order."""
    ports = _ports("multiaxis.sinusoidal")
    cases: tuple[tuple[str, str], ...] = (
        ("correct", "mae-vit-b-16"),
        ("correct", "sd3-medium"),
        ("correct_float32", "dit-xl-2-256"),
        ("h_first", "mae-vit-b-16"),
        ("correct_3d", "cogvideox-2b"),
        ("cogvideox_permuted", "cogvideox-2b"),
        ("cogvideox_thirds", "cogvideox-2b"),
        ("big_vision", "big-vision-vit-s16"),
        ("timm_float32", "timm-sincos2d-768"),
        ("mae_cls_unskipped", "mae-vit-b-16"),
    )
    for name, preset in cases:
        yield f"ports:{name} @ {preset}", getattr(ports, name), preset, {}
    for name, backend in _breakers(2):
        yield f"breaker:{name} @ mae-vit-b-16", backend, "mae-vit-b-16", {}


def multiaxis_rope_backends() -> Iterator[Case]:
    """The rotary multi-axis snapshot's cases, in a fixed order."""
    ports = _ports("multiaxis.rope")
    first, *others = ports.BUG_CLASSES
    levels: tuple[tuple[str, dict[str, Any]], ...] = (
        ("", {}),
        (" at float32", {"level": "float32"}),
        (" claiming bfloat16 stages", {"level": "float32/bfloat16/bfloat16"}),
    )
    cases = [(first[0] + words, first[1], first[2], extra) for words, extra in levels]
    cases += [(name, port, preset, {}) for name, port, preset, _ in others]
    for name, backend, preset, extra in cases:
        config = ports.small_config(preset)
        yield f"ports:{name} @ {preset} (small grid)", backend, config, extra
    qwen3 = ports.small_config("qwen3-vl-4b")
    for name, breaker in _breakers(3):
        yield f"breaker:{name} @ qwen3-vl-4b (small grid)", breaker, qwen3, {}


def normalise_multiaxis(report: dict[str, Any]) -> dict[str, Any]:
    """What a multi-axis snapshot keeps of a JSON report: verdict, level, failed ids,
    diagnosis and its sentence, and the report itself without times and environment."""
    document = {
        k: v for k, v in report.items() if k not in ("timestamp", "duration_s", "execution")
    }
    document["checks"] = [
        {k: v for k, v in c.items() if k != "duration_s"} for c in report["checks"]
    ]
    return {
        "verdict": report["verdict"],
        "level": report["level"]["name"] if isinstance(report["level"], dict) else report["level"],
        "failed": [c["id"] for c in report["checks"] if c["status"] == "failed"],
        "diagnosis": _scrub(
            {k: v for k, v in (report.get("diagnosis") or {}).items() if k not in UNSNAPPED}
        ),
        "diagnosis_sentence": _text(report.get("diagnosis_sentence")),
        "report": _scrub(document),
    }


def _run(
    check: Callable[..., Any], cases: Iterator[Case], progress: Callable[[str], None] | None
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, backend, config, extra in cases:
        if progress is not None:
            progress(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the breakers write NaN on purpose
            report = check(backend, config=config, **MULTIAXIS_PROFILE, **extra)
        result[name] = normalise_multiaxis(json.loads(report.to_json()))
    return result


def multiaxis_snapshot(progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """A fresh run of every sin-cos multi-axis case, normalised, keyed by name."""
    from pespec.multiaxis.sinusoidal.run import check

    return _run(check, multiaxis_backends(), progress)


def multiaxis_rope_snapshot(progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """A fresh run of every rotary multi-axis case, normalised, keyed by name."""
    from pespec.multiaxis.rope.run import check

    return _run(check, multiaxis_rope_backends(), progress)
