"""The frame of every family's ``--from-file`` check (SPEC §6.5): its start, the file read
for a level claim, its report.

A file check has no backend to call. It starts the clock (:func:`started_now`), reads the
file (:func:`read_claimed`: a text file in the claimed level's output dtype, as ``strtof``
would read it), and reports (:func:`saved_file_report`): the file as the backend, the device
and profile ``file``, no capabilities, the time the check took. What the checks are, the
level rule's details and the family's report fields are the family's; this module names no
family.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pespec.conformance.report import CheckResult, Report
from pespec.conformance.savedfile import SavedOutput, read_output

__all__ = ["read_claimed", "saved_file_report", "started_now"]


def started_now() -> tuple[str, float]:
    """(the start time as ISO seconds in UTC, the performance clock) of a file check."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds"), time.perf_counter()


def read_claimed(
    path: str | Path, *, key: str | None, claim: Any, text_dtype: Callable[[Any], str]
) -> tuple[str, bool, SavedOutput]:
    """(the file's name, whether it is text, what it holds) of the saved output ``path``
    (:func:`~pespec.conformance.savedfile.read_output`; ``key``: the array of an ``.npz``).
    Text carries no dtype: with a level ``claim``, a text file is read in its output dtype
    ``text_dtype(claim)``; else as float64."""
    name = str(path)
    text = not name.lower().endswith((".npy", ".npz"))
    narrow = None if claim is None or not text else text_dtype(claim)
    return name, text, read_output(path, key=key, text_dtype=narrow)


def saved_file_report(
    name: str,
    checks: list[CheckResult],
    started: tuple[str, float],
    fields: dict[str, Any],
    *,
    device: str = "file",
) -> Report:
    """The report of the file ``name``: its ``checks``, begun at ``started``
    (:func:`started_now`), with the family's report ``fields`` (level, output dtype, family
    data, text); ``device``: what was read, also the report's profile (``file``; a family's
    saved table: ``table``)."""
    return Report(
        backend=name,
        backend_spec=None,
        device=device,
        capabilities={},
        profile=device,
        checks=checks,
        timestamp=started[0],
        duration_s=time.perf_counter() - started[1],
        **fields,
    )
