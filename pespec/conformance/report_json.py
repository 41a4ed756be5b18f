"""The JSON side of a conformance report: plain JSON values and the run's environment.

Every float is a float64 absolute value or null; non-finite numbers (a backend returning
NaN) become null, with the check's message saying why (SPEC §6.4).
"""

from __future__ import annotations

import importlib.metadata
import math
import platform
import sys
from typing import Any

from pespec._version import __version__

__all__ = ["environment", "json_float", "json_number", "jsonable"]

_LIBRARIES: tuple[str, ...] = ("numpy", "mpmath", "gmpy2", "ml_dtypes", "hypothesis")


def environment() -> dict[str, Any]:
    """Python, platform and library versions of this process (for the report)."""
    versions: dict[str, str] = {"pespec": __version__}
    for name in _LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    for name in ("torch", "jax"):
        module = sys.modules.get(name)
        if module is not None:
            versions[name] = str(getattr(module, "__version__", "unknown"))
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "pespec_libraries": versions,
    }


def json_float(value: float | None) -> float | None:
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def json_number(value: int | float | None) -> int | float | None:
    if value is None or isinstance(value, int):
        return value
    number = float(value)
    if number.is_integer() and abs(number) < 2**53:
        return int(number)
    return number if math.isfinite(number) else None


def jsonable(value: Any) -> Any:
    """Plain JSON types from dicts/lists of NumPy scalars, tuples and non-finite floats."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    if hasattr(value, "item") and callable(value.item):
        return jsonable(value.item())
    if isinstance(value, float):
        return json_float(value)
    return str(value)
