"""The conformance suite as pytest tests: ``pytest --pyargs pespec.conformance --pe-backend B``.

One test per planned check; the ``pe_check`` and ``pe_run`` fixtures come from the plugin,
:mod:`pespec.pytest_plugin` (a front end, outside the engine). This module stays in the
engine's folder only because ``--pyargs pespec.conformance`` collects the test modules of this
folder; it imports nothing of pespec. Without ``--pe-backend`` the single test is skipped.
"""

from __future__ import annotations

from typing import Any

import pytest


def test_conformance(pe_check: Any, pe_run: Any) -> None:
    """Run one check of the suite on the ``--pe-backend`` backend."""
    outcome, message = pe_run(pe_check)
    if outcome == "skipped":
        pytest.skip(message)
    if outcome == "failed":
        pytest.fail(message, pytrace=False)
