"""The sinusoidal suite's position domain (SPEC R6.4; issue 24 item 6).

pespec's own float64 reference, ``pespec.sinusoidal.reference.encoding.encode``, takes |p| ≤ 2^53
(Annex C:
beyond, float64 cannot hold consecutive integers and the oracle is the tool) and raises beyond.
The suite's default domain is the same: positions beyond 2^53 are drawn only when a backend
claims them (``max_position``). Wrapping ``encode`` as a backend is therefore CONFORMANT.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pespec.conformance import check
from pespec.sinusoidal.reference.encoding import encode


def _wrapped(seen: list[float]) -> Any:
    def backend(positions: np.ndarray, d_model: int, base: float) -> np.ndarray:
        if np.asarray(positions).size:
            seen.append(float(np.max(np.abs(np.asarray(positions, dtype=np.float64)))))
        return encode(positions, d_model, base=base)

    return backend


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
def test_issue_24_wrapping_encode_is_conformant() -> None:
    seen: list[float] = []
    report = check(_wrapped(seen), diagnose=False)
    assert report.conformant, report.summary()
    assert max(seen) <= 2.0**53


@pytest.mark.parametrize("claim", [2.0**60])
def test_a_claimed_max_position_beyond_2_53_is_checked(claim: float) -> None:
    seen: list[float] = []
    inner = _wrapped(seen)

    def backend(positions: np.ndarray, d_model: int, base: float) -> np.ndarray:
        return inner(positions, d_model, base)

    backend.pespec_capabilities = {"max_position": claim}  # type: ignore[attr-defined]
    # no shrinking: the first failing example already names 2**53 (shrinking it took 200 s)
    stages = ("contract", "golden", "property")
    report = check(backend, stages=stages, diagnose=False, shrink=False)
    # encode refuses |p| > 2^53: a claim beyond its domain is judged there and fails
    assert not report.conformant
    assert any("2**53" in c.message for c in report.failed)


def test_a_declared_max_position_is_compared_exactly_for_integer_positions() -> None:
    # 2^53 + 1 as float64 rounds to 2^53 (ties to even), so a float comparison admits it under
    # a 2^53 limit; the capability must compare integers exactly (found merging issue 24:
    # the rotation property shifted 2^53 by +1 and called encode outside its domain).
    from pespec.sinusoidal.capabilities import Capabilities

    caps = Capabilities(max_position=2.0**53)
    positions = np.array([2**53 - 1, 2**53, 2**53 + 1, -(2**53) - 1], dtype=np.int64)
    assert caps.admits(positions).tolist() == [True, True, False, False]
    assert caps.accepts(positions[:2], 8, 10000.0) is None
    assert caps.accepts(positions[2:3], 8, 10000.0) is not None
