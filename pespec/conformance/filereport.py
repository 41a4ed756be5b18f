"""The report of a saved output file, for every family's ``--from-file`` check (SPEC §6.5).

A file check has no backend to call: its report names the file as the backend, the device
and profile ``file``, no capabilities, and the time the check took from
:func:`started_now`. What the checks are and the family's report fields are the family's;
this module names no family.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from pespec.conformance.report import CheckResult, Report

__all__ = ["saved_file_report", "started_now"]


def started_now() -> tuple[str, float]:
    """(the start time as ISO seconds in UTC, the performance clock) of a file check."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds"), time.perf_counter()


def saved_file_report(
    name: str, checks: list[CheckResult], started: tuple[str, float], fields: dict[str, Any]
) -> Report:
    """The report of the file ``name``: its ``checks``, begun at ``started``
    (:func:`started_now`), with the family's report ``fields`` (level, output dtype, family
    data, text)."""
    return Report(
        backend=name,
        backend_spec=None,
        device="file",
        capabilities={},
        profile="file",
        checks=checks,
        timestamp=started[0],
        duration_s=time.perf_counter() - started[1],
        **fields,
    )
