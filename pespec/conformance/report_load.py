"""A conformance report rebuilt from its JSON document (``Report.to_dict()``).

The supervisor's child (SPEC §6.6) sends its report as JSON; the parent rebuilds the
:class:`~pespec.conformance.report.Report` (a :class:`~pespec.rope.suite.RopeReport` for the
rotary family) to print the verdict and write the files, which come out as the child's would
(its ``execution`` block kept: the libraries the backend imported live in the child).
"""

from __future__ import annotations

from typing import Any

from pespec.conformance.report import CheckResult, Report

__all__ = ["apply_state", "check_from_dict", "report_from_dict"]


def check_from_dict(data: dict[str, Any]) -> CheckResult:
    """The :class:`CheckResult` of ``CheckResult.to_dict()`` (``ratio`` is derived again)."""
    fields = {k: v for k, v in data.items() if k != "ratio"}
    return CheckResult(**fields)


class _Rebuilt:
    """A report rebuilt in the parent: its JSON keeps the child's ``execution`` block (the
    libraries the backend imported live there, not in the parent)."""

    execution: dict[str, Any] | None = None
    error_plot: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = super().to_dict()  # type: ignore[misc]
        if self.execution is not None:
            data["execution"] = self.execution
        return data


class _RebuiltReport(_Rebuilt, Report):
    pass


def report_from_dict(data: dict[str, Any]) -> Report:
    """The :class:`Report` (a RopeReport for ``family`` rope) of a ``to_dict()`` document."""
    backend, level, execution = data["backend"], data["level"], data["execution"]
    fields: dict[str, Any] = {
        "backend": backend["name"],
        "backend_spec": backend["spec"],
        "device": execution["device"],
        "capabilities": backend["capabilities"],
        "output_dtype": backend["output_dtype"],
        "level": level["name"],
        "working_dtype": level["working_dtype"],
        "profile": data["profile"],
        "checks": [check_from_dict(c) for c in data["checks"]],
        "timestamp": data["timestamp"],
        "duration_s": data["duration_s"],
        "libraries": dict(execution["libraries"]),
        "diagnosis": data["diagnosis"],
        "diagnosis_sentence": data["diagnosis_sentence"],
        "source_file": backend["file"],
        "convention": data["convention"],
        "backend_calls": data["backend_calls"],
        "not_run": dict(data["not_run"]),
    }
    report: Report
    if data.get("family") == "rope":
        from pespec.rope.report import RopeReport

        class _RebuiltRope(_Rebuilt, RopeReport):
            pass

        stages = level.get("stages")
        domain = None if data.get("domain") is None else dict(data["domain"])
        advice = None if domain is None else domain.pop("advice", None)
        report = _RebuiltRope(
            **fields,
            rope_config=data["config"],
            rope_level=stages,
            domain=domain,
            domain_advice=advice,
            config_notes=list(data.get("config_notes") or ()),
        )
    else:
        report = _RebuiltReport(**fields)
    report.execution = execution  # type: ignore[attr-defined]
    return report


def apply_state(report: Report, state: dict[str, Any] | None) -> None:
    """Set the level/dtype/calls a child reported last (see ``worker.state``)."""
    for key, value in (state or {}).items():
        if key != "rope_level" or hasattr(report, "rope_level"):
            setattr(report, key, value)
