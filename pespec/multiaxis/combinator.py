"""The multi-axis combinator's parts that do not depend on the section kind (SPEC §9).

A section kind (:mod:`pespec.multiaxis.sinusoidal`, :mod:`pespec.multiaxis.rope`) brings its
presets, its configuration type and its 1-D reference; what follows is the same for both:
resolving the ``--config`` value to a preset (a name, a preset, a mapping, a ``.json`` file),
the planned ``golden`` check of a preset's certified set, and the separability check's
positions (one axis's coordinates reversed, the others kept).
Shapes: positions (n, k), one column per axis.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import PlannedCheck
from pespec.conformance.report import CheckResult

__all__ = [
    "axis_reversed",
    "certified_set_check",
    "require_config",
    "resolve_preset",
    "separability_result",
]

P = TypeVar("P")


def _read_json_object(path: str) -> dict[str, Any]:
    """The JSON object in the file ``path``; ValueError naming the file otherwise."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"config file {path!r} could not be read: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"config file {path!r} must hold a JSON object")
    return data


def resolve_preset(
    value: Any,
    kind: type[P],
    presets: Mapping[str, P],
    from_mapping: Callable[[Mapping[str, Any], str], P],
) -> P:
    """``value`` as a preset of a section kind: a ``kind`` instance as it is, a mapping read
    by ``from_mapping(data, name)`` (name ``config.json``), a ``.json`` path read the same way
    (name: the file's name), or a name in ``presets``; ValueError naming the known presets and
    the closest for an unknown name, TypeError for anything else."""
    if isinstance(value, kind):
        return value
    if isinstance(value, Mapping):
        return from_mapping(value, "config.json")
    if isinstance(value, str) and value.endswith(".json"):
        return from_mapping(_read_json_object(value), Path(value).name)
    if isinstance(value, str) and value in presets:
        return presets[value]
    if isinstance(value, str):
        from pespec._suggest import did_you_mean

        raise ValueError(
            f"config must be one of {list(presets)} or a JSON file; got {value!r}"
            f"{did_you_mean(value, presets)}"
        )
    raise TypeError(f"config must be a preset name, a dict or a .json path; got {value!r}")


def require_config(config: Any, family: str) -> Any:
    """``config`` itself, or ValueError when it is None: a multi-axis run needs a preset or a
    JSON config (``family``: the registry name the message names)."""
    if config is None:
        raise ValueError(
            f"config must name a {family} preset or a JSON config (--config on the command "
            "line, --pe-option config=NAME under pytest); got None"
        )
    return config


def axis_reversed(positions: NDArray[Any], axis: int) -> NDArray[Any]:
    """``positions`` (n, k) with the coordinates of ``axis`` mapped onto the same set in
    reverse order (the smallest to the largest, ...), the other axes unchanged: the moved
    positions the separability check compares with (a section not reading ``axis`` must
    not change)."""
    values = np.unique(positions[:, axis])
    moved: NDArray[Any] = positions.copy()
    moved[:, axis] = values[::-1][np.searchsorted(values, positions[:, axis])]
    return moved


def separability_result(
    planned: PlannedCheck,
    sections: Sequence[Any],
    positions: NDArray[Any],
    compare: Callable[[list[int], NDArray[Any]], CheckResult],
) -> CheckResult:
    """The separability check of the axis ``planned.payload``: ``compare(others, moved)``
    (the kind's comparison) of the indices of the ``sections`` (each with its ``axis``) that
    do not read that axis and ``positions`` (n, k) with it reversed (:func:`axis_reversed`);
    passed when every section reads it (nothing can change)."""
    axis = int(planned.payload)
    others = [i for i, s in enumerate(sections) if s.axis != axis]
    if not others:
        return planned.result("passed", f"every section reads axis {axis}")
    return compare(others, axis_reversed(positions, axis))


def certified_set_check(fixture: Any, rows: str, section: str) -> list[PlannedCheck]:
    """The ``golden`` check of a preset's certified set ``fixture`` (a kind's fixture with
    ``name``, ``preset`` and ``rows``), or none when the preset has no set (None); ``rows``
    names what the set's rows index (``grid``, ``ids``), ``section`` the SPEC section."""
    if fixture is None:
        return []
    title = f"the certified set of {fixture.preset} ({fixture.rows.size} {rows} rows)"
    return [PlannedCheck(f"golden:{fixture.name}", "golden", title, section, fixture)]
