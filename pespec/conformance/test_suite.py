"""The conformance suite as pytest tests: ``pytest --pyargs pespec.conformance --pe-backend B``.

One test per planned check; the ``pe_check``, ``pe_suite`` and ``pe_record`` fixtures come
from :mod:`pespec.conformance.plugin`. Without ``--pe-backend`` the single test is skipped.
"""

from __future__ import annotations

from typing import Any

import pytest


def test_conformance(pe_check: Any, pe_suite: Any, pe_record: Any) -> None:
    """Run one check of the suite on the ``--pe-backend`` backend."""
    from pespec.conformance.guard import CallProtocolError
    from pespec.conformance.supervisor import NotRun

    try:
        result = pe_suite.run_check(pe_check)
    except CallProtocolError as exc:  # no backend at all: a usage error, not a verdict
        pytest.exit(f"--pe-backend: {exc}", returncode=pytest.ExitCode.USAGE_ERROR)
    except NotRun as exc:  # the backend ended the supervised process in an earlier check
        pytest.skip(str(exc))
    pe_record(result)
    if result.status == "skipped":
        pytest.skip(result.message)
    if result.status == "failed":
        lines = [f"{result.id} ({result.section}): {result.message}"]
        if result.reproduction:
            lines.append(f"reproduce: {result.reproduction}")
        pytest.fail("\n".join(lines), pytrace=False)
