"""One-line reproductions: a backend's values next to the certified values and their bounds.

Every failed check of a report carries a line such as::

    python -c "from pespec.conformance import reproduce; \\
        reproduce('numpy-float16', [37], 512, 10000.0, column=130, level='float16', \\
        exit_status=True)"

which calls the backend on those positions and prints, per element, the backend's value, the
correctly rounded value from the oracle (SPEC Annex B), the absolute error and the bound of the
level (SPEC §4), and exits with status 1 when an element exceeds its bound.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pespec.conformance.backends import Backend
from pespec.sinusoidal.loading import load_backend
from pespec.sinusoidal.properties.base import EncodingConfig, Level, level_for_dtype, parse_level

__all__ = ["reproduce"]


def reproduce(
    backend: str | Backend | Callable[..., Any],
    positions: Any,
    d_model: int,
    base: float = 10000.0,
    *,
    column: int | None = None,
    level: str | Level | None = None,
    echo: bool = True,
    exit_status: bool = False,
    convention: Any = None,
) -> list[dict[str, Any]]:
    """Backend value, certified value, |error| and bound for ``positions`` × columns.

    ``column``: one column (default: all). ``level``: the level whose bound is shown (default:
    the backend's claimed level, else its output dtype's default level). ``convention``: a
    preset name, ``Convention.to_dict()`` or a Convention (default: the backend's declared
    convention, else canonical). Returns one dict per element; prints them as lines when
    ``echo``. Values are float64 absolute numbers. ``exit_status``: end the process with
    status 1 when an element exceeds its bound (the one-line ``python -c`` reproductions pass
    it, so a shell or CI sees the failure).
    """
    from pespec.conformance.compare import FIXTURE_ERROR
    from pespec.sinusoidal.declared import resolve_convention
    from pespec.sinusoidal.properties.errormodel import element_bound
    from pespec.sinusoidal.reference import oracle

    loaded = load_backend(backend)
    declared = convention if convention is not None else loaded.capabilities.convention
    chosen_convention = None if declared is None else resolve_convention(declared)
    config = EncodingConfig(np.asarray(positions), d_model, base)
    if chosen_convention is not None:
        config = EncodingConfig(config.positions, d_model, base, chosen_convention)
    output = loaded(config.positions, config.d_model, config.base)
    if isinstance(level, str):
        level = parse_level(level)
    chosen = level or loaded.capabilities.claimed_level() or level_for_dtype(output.dtype)
    exact = oracle.encode(
        config.positions,
        config.d_model,
        base=config.base,
        convention=config.convention,
        workers=1,
    )
    bound = np.asarray(element_bound(config, chosen), dtype=np.float64) + FIXTURE_ERROR
    if column is not None:
        if isinstance(column, bool) or not isinstance(column, int) or not 0 <= column < d_model:
            raise ValueError(f"column must be an int in [0, {d_model}); got {column!r}")
    columns = range(d_model) if column is None else [column]
    rows: list[dict[str, Any]] = []
    for i, position in enumerate(config.positions.tolist()):
        for j in columns:
            value = float(output[i, j])
            error = abs(value - float(exact[i, j]))
            rows.append(
                {
                    "position": position,
                    "column": j,
                    "backend": value,
                    "exact": float(exact[i, j]),
                    "abs_error": error,
                    "bound": float(bound[i, j]),
                    "within_bound": bool(error <= bound[i, j]),
                }
            )
    if echo:
        print(f"backend {loaded.name}, d_model={d_model}, base={base!r}, level {chosen.name}")
        for row in rows:
            verdict = "ok" if row["within_bound"] else "EXCEEDS BOUND"
            print(
                f"position {row['position']!r} column {row['column']}: backend {row['backend']!r} "
                f"exact {row['exact']!r} |error| {row['abs_error']:.3g} "
                f"bound {row['bound']:.3g} {verdict}"
            )
    if exit_status and not all(row["within_bound"] for row in rows):
        raise SystemExit(1)
    return rows
