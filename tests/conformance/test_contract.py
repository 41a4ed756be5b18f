"""The contract stage (pespec.conformance.contract): a misbehaving backend fails the right
contract item and the suite never crashes; a hung backend times out once per suite.

The expected outcomes are fixed by construction (a backend built to raise must fail
contract:shape with the exception's text, ...).
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from catalog import misbehaving

from pespec.conformance import check

FAST = {"stages": ("contract",), "diagnose": False}


@pytest.mark.parametrize(
    ("backend", "item", "text"),
    [
        (misbehaving.raises, "shape", "raised RuntimeError: kernel launch failed"),
        (misbehaving.returns_list, "shape", "must return an array"),
        (misbehaving.integer_output, "dtype", "got int64"),
        (misbehaving.mutates_input, "input-unchanged", "became"),
        (misbehaving.non_deterministic, "deterministic", "different outputs"),
        (misbehaving.float64_claiming_float32, "dtype", "must be float32"),
    ],
)
def test_misbehaving_backend_fails_the_right_contract_item(
    backend: Any, item: str, text: str
) -> None:
    report = check(backend, **FAST)  # type: ignore[arg-type]
    assert report.verdict == "non-conformant"
    result = report.get(f"contract:{item}")
    assert result.status == "failed"
    assert text in result.message


@pytest.mark.slow
def test_hung_backend_times_out_and_later_calls_fail_at_once() -> None:
    start = time.perf_counter()
    report = check(
        misbehaving.hangs,
        timeout=0.3,
        stages=("contract", "large"),
        large_sizes=((16, 4), (32, 4)),
        diagnose=False,
    )
    elapsed = time.perf_counter() - start
    assert "did not return within 0.3 s" in report.get("contract:shape").message
    assert "no level to test against: the backend hung" in report.get("large:16x4").message
    forced = check(misbehaving.hangs, level="float64", timeout=0.3, stages=("large",))
    assert "did not return within 0.3 s" in forced.checks[0].message
    assert all("hung in an earlier call" in c.message for c in forced.checks[1:])
    assert report.verdict == "non-conformant"
    assert elapsed < 2.5  # one timeout per suite, not one per call (each call sleeps 3 s)
