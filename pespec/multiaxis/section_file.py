"""What the two multi-axis kinds' ``--from-file`` checks share (SPEC §9.5, R9.15).

A saved (n, width) output of a multi-axis kind is checked without calls: the contract items
one array can show (:func:`file_contract`: shape, dtype, finite; the items and stages that
need calls are skipped), then the kind's golden and reference checks. The positions of the
file's rows are read by :mod:`pespec.conformance.filepositions`; each kind validates them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.contract import first_non_finite
from pespec.conformance.report import CheckResult
from pespec.numerics.formats import DTYPES

__all__ = ["file_contract"]


def file_contract(
    output: NDArray[Any],
    out_dtype: str | None,
    *,
    section: str,
    width: str,
    needs_calls: Sequence[str],
) -> list[CheckResult]:
    """The contract items of a saved ``output`` (n, ``width``) whose dtype is ``out_dtype``
    (None: not a pespec dtype): shape (a misfit is a usage error before this), dtype, and,
    for a known dtype, finite (the first non-finite value named); then ``item:*`` skipped
    for each of ``needs_calls`` (``deterministic`` is a contract item; the others are
    stages). ``section``: the SPEC section the results cite."""

    def result(check_id: str, title: str, status: str, message: str) -> CheckResult:
        stage = check_id.partition(":")[0]
        stage = "contract" if stage == "deterministic" else stage
        return CheckResult(check_id, stage, title, section, status, message)

    checks = [result("contract:shape", "shape", "passed", f"(n, {width}) = {output.shape}")]
    if out_dtype is None:
        message = f"dtype {output.dtype} is not one of {sorted(DTYPES)}"
        checks.append(result("contract:dtype", "dtype", "failed", message))
    else:
        checks.append(result("contract:dtype", "dtype", "passed", out_dtype))
        bad = first_non_finite(np.asarray(output))
        if bad is None:
            checks.append(result("contract:finite", "finite", "passed", "every value is finite"))
        else:
            value = float(output[bad])
            message = f"row {bad[0]}, column {bad[1]} is {value!r}"
            checks.append(result("contract:finite", "finite", "failed", message))
    for item in needs_calls:
        checks.append(result(f"{item}:*", item, "skipped", "needs calls; not from a file"))
    return checks
