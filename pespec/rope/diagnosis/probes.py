"""The diagnosis probes (SPEC Annex D.8): basis vectors and one mixed vector per position.

Each probe call hands the backend, for every chosen position p, the head_dim basis vectors
e_k followed by one "mixed" vector (a_j, b_j) = (1 + 2^-7, −3/4) in every pair, all exactly
representable in bfloat16. The basis rows give the whole matrix the backend applies at p;
the mixed row shows the precision of the rotation's arithmetic. The positions come in three
calls (up to 65504, the largest float16; up to 2^17; up to 2^20), so a backend limited to a
cache of positions loses only the calls beyond its limit. A call that raises (anything but
KeyboardInterrupt), hangs past the timeout or returns the wrong shape is a failed probe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig

__all__ = ["MIXED", "POSITION_GROUPS", "Probe", "run_probes"]

F64 = NDArray[np.float64]

MIXED: Final = (1.0078125, -0.75)
"""(a_j, b_j) of the mixed row: 8 significant bits each, so a·cos and b·sin need more."""


def _grid(low: int, high: int) -> list[int]:
    """Odd integers near 2^(k/2) in (low, high], so that coarse formats must round them."""
    out = []
    for k in range(0, 42):
        value = round(2.0 ** (k / 2)) | 1
        if low < value <= high:
            out.append(value)
    return out


POSITION_GROUPS: Final = (
    [0, 1, 2, 3, 4, 6, *_grid(6, 65504), 65503],
    [*_grid(65504, 1 << 17), 100003, 131071],
    [*_grid(1 << 17, 1 << 20), 1048575],
)
"""The positions of the three probe calls."""


@dataclass(frozen=True)
class Probe:
    """What one probe call returned: positions (m,), the basis matrices (m, out, in) and
    the mixed rows (m, head_dim), float64; ``dtype`` is the name of the returned dtype."""

    positions: NDArray[np.int64]
    matrices: F64
    mixed: F64
    dtype: str


def probe_inputs(positions: list[int], head_dim: int) -> tuple[F64, NDArray[np.int64]]:
    """x of shape (m·(head_dim + 1), head_dim) and the matching int64 positions."""
    block = np.vstack([np.eye(head_dim), np.zeros((1, head_dim))])
    block[head_dim, 0::2] = MIXED[0]
    block[head_dim, 1::2] = MIXED[1]
    x = np.tile(block, (len(positions), 1))
    p = np.repeat(np.asarray(positions, dtype=np.int64), head_dim + 1)
    return x, p


def _dtype_name(result: Any) -> str:
    name = str(getattr(result, "dtype", "float64"))
    return name.replace("torch.", "").replace("jnp.", "")


def to_float64(result: Any) -> tuple[F64, str]:
    """A backend's NumPy/torch/JAX result as a float64 array, and its dtype's name."""
    name = _dtype_name(result)
    if hasattr(result, "detach"):
        result = result.detach().cpu().float()
    return np.asarray(result).astype(np.float64), name


def _call(backend: Callable[..., Any], args: tuple[Any, ...], timeout: float | None) -> Any:
    """backend(*args) in a daemon thread; raises TimeoutError past ``timeout`` seconds."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = backend(*args)
        except BaseException as error:  # reported as a failed probe (or re-raised below)
            box["error"] = error

    if timeout is None:
        target()
    else:
        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        thread.join(max(0.0, timeout))
        if thread.is_alive():
            raise TimeoutError("the backend did not return in time")
    if isinstance(box.get("error"), KeyboardInterrupt):
        raise box["error"]
    if "error" in box:
        raise RuntimeError("the backend raised") from box["error"]
    return box["result"]


def declared_max_position(backend: Any) -> float | None:
    """``max_position`` of a backend's ``pespec_capabilities`` (a dict or an object)."""
    declared = getattr(backend, "pespec_capabilities", None)
    value = (
        declared.get("max_position")
        if isinstance(declared, dict)
        else getattr(declared, "max_position", None)
    )
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def run_probes(
    backend: Callable[..., Any],
    config: RopeConfig,
    timeout: float | None,
    max_position: float | None = None,
) -> tuple[list[Probe], int]:
    """The probes that succeeded (in position order) and the number of backend calls;
    no position beyond ``max_position`` is probed."""
    deadline = None if timeout is None else time.monotonic() + timeout
    probes: list[Probe] = []
    calls = 0
    width = config.head_dim + 1
    for group in POSITION_GROUPS:
        positions = [p for p in group if max_position is None or p <= max_position]
        if not positions:
            break
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            break
        x, p = probe_inputs(positions, config.head_dim)
        calls += 1
        try:
            values, name = to_float64(_call(backend, (x.copy(), p.copy(), config), left))
        except (Exception, SystemExit, GeneratorExit):
            break  # later groups hold larger positions: they would fail as well
        if values.shape != x.shape:
            break
        rows = values.reshape(len(positions), width, config.head_dim)
        probes.append(
            Probe(
                np.asarray(positions, dtype=np.int64),
                np.transpose(rows[:, :-1, :], (0, 2, 1)),
                rows[:, -1, :],
                name,
            )
        )
    return probes, calls
