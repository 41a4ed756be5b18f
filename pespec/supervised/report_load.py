"""A conformance report rebuilt from its JSON document (``Report.to_dict()``), in any family.

The supervisor's child (SPEC §6.6) sends its report as JSON; the parent rebuilds the
:class:`~pespec.conformance.report.Report` to print the verdict and write the files, which
come out as the child's would (its ``execution`` block kept: the libraries the backend
imported live in the child). The fields every family shares are read here; the top-level
fields only one family writes come back as its ``family_data``, and what the family derives
from them goes through its report hook in :mod:`pespec.families` (named by the JSON
``family``), so this module names no family.
"""

from __future__ import annotations

from typing import Any

from pespec.conformance.report import CheckResult, Report
from pespec.families import DEFAULT_FAMILY

__all__ = ["SHARED_KEYS", "apply_state", "check_from_dict", "family_head", "report_from_dict"]

SHARED_KEYS = frozenset(
    (
        "schema schema_version spec_version suite_version pespec_version verdict conformant "
        "family backend level backend_calls profile execution timestamp duration_s "
        "summary complete not_run checks diagnosis diagnosis_sentence"
    ).split()
)
"""The top-level JSON fields of every family's report (the rest are the family's own)."""


def check_from_dict(data: dict[str, Any]) -> CheckResult:
    """The :class:`CheckResult` of ``CheckResult.to_dict()`` (``ratio`` is derived again)."""
    fields = {k: v for k, v in data.items() if k != "ratio"}
    return CheckResult(**fields)


def report_from_dict(data: dict[str, Any]) -> Report:
    """The :class:`Report` of a ``to_dict()`` document, of whichever family it names."""
    backend, level, execution = data["backend"], data["level"], data["execution"]
    head = family_head(data)
    report = Report(
        backend=backend["name"],
        backend_spec=backend["spec"],
        device=execution["device"],
        capabilities=backend["capabilities"],
        output_dtype=backend["output_dtype"],
        level=level["name"],
        working_dtype=level["working_dtype"],
        profile=data["profile"],
        checks=[check_from_dict(c) for c in data["checks"]],
        timestamp=data["timestamp"],
        duration_s=data["duration_s"],
        libraries=dict(execution["libraries"]),
        diagnosis=data["diagnosis"],
        diagnosis_sentence=data["diagnosis_sentence"],
        source_file=backend["file"],
        backend_calls=data["backend_calls"],
        not_run=dict(data["not_run"]),
        family=str(data.get("family") or DEFAULT_FAMILY),
        family_head=head,
        family_data={k: v for k, v in data.items() if k not in SHARED_KEYS and k not in head},
        execution=execution,
    )
    rebuild = _family_hook(report.family, "rebuilt")
    if rebuild is not None:
        rebuild(report, data)
    return report


def family_head(data: dict[str, Any]) -> dict[str, Any]:
    """The family's fields written between ``level`` and ``backend_calls`` (the report's
    :attr:`~pespec.conformance.report.Report.family_head`), in order."""
    keys = list(data)
    if "level" not in keys or "backend_calls" not in keys:
        return {}
    between = keys[keys.index("level") + 1 : keys.index("backend_calls")]
    return {key: data[key] for key in between if key not in SHARED_KEYS}


def apply_state(report: Report, state: dict[str, Any] | None) -> None:
    """Set the level/dtype/calls a child reported last (see ``worker.state``), and let the
    family derive its text again."""
    for key, value in (state or {}).items():
        setattr(report, key, value)
    refresh = _family_hook(report.family, "refresh")
    if state and refresh is not None:
        refresh(report)


def _family_hook(name: str, hook: str) -> Any:
    """The family's report hook ``hook`` (``rebuilt`` or ``refresh``), or None."""
    from pespec.families import families

    family = families(entry_points=False).get(name) or families().get(name)
    return None if family is None else family.report_hook(hook)
