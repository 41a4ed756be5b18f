"""Conformance reports: per-check results, the verdict, and their JSON/Markdown/terminal forms.

The JSON form is a versioned schema (SPEC §6.4): ``schema`` names it, ``schema_version``
changes when a field changes meaning. Every float is a float64 absolute value or null;
non-finite numbers (a backend returning NaN) are written as null with the message saying why.
Files are written atomically (temporary file + ``os.replace``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pespec._atomic import write_atomic
from pespec._version import SPEC_VERSION, SUITE_VERSION, __version__
from pespec.conformance.report_json import environment, json_float, json_number, jsonable

__all__ = [
    "REPORT_SCHEMA",
    "REPORT_SCHEMA_VERSION",
    "STATUSES",
    "SUITE_VERSION",
    "CheckResult",
    "Report",
]

REPORT_SCHEMA = "pespec-conformance-report"
REPORT_SCHEMA_VERSION = "1.5"

STATUSES: tuple[str, ...] = ("passed", "failed", "skipped")


@dataclass
class CheckResult:
    """One check of the suite.

    ``max_error`` and ``bound`` are absolute (float64) at the worst element, the one whose
    error is the largest fraction of its bound; ``worst_position``/``worst_column`` locate it.
    ``reproduction`` is one line of Python that re-runs the failing case.
    """

    id: str
    stage: str
    title: str
    section: str
    status: str
    message: str = ""
    max_error: float | None = None
    bound: float | None = None
    worst_position: int | float | None = None
    worst_column: int | None = None
    reproduction: str | None = None
    duration_s: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}; got {self.status!r}")

    @property
    def ratio(self) -> float | None:
        """Largest error/bound over the elements checked (≤ 1 passes): ``details["max_ratio"]``
        when the check reports it, else max_error / bound; None when unknown."""
        from pespec.numerics.ratio import reported_ratio  # NumPy: not at import (issue 37)

        return reported_ratio(self.details, self.max_error, self.bound)

    @property
    def max_abs_error(self) -> float | None:
        """The largest |error| over every element the check compared (``details
        ["max_abs_error"]`` when the check reports it), else the worst element's |error|."""
        reported = self.details.get("max_abs_error")
        if isinstance(reported, (int, float)) and not isinstance(reported, bool):
            return float(reported)
        return self.max_error

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (non-finite floats become null)."""
        return {
            "id": self.id,
            "stage": self.stage,
            "title": self.title,
            "section": self.section,
            "status": self.status,
            "message": self.message,
            "max_error": json_float(self.max_error),
            "bound": json_float(self.bound),
            "ratio": json_float(self.ratio),
            "worst_position": json_number(self.worst_position),
            "worst_column": self.worst_column,
            "reproduction": self.reproduction,
            "duration_s": round(self.duration_s, 3),
            "details": jsonable(self.details),
        }


@dataclass
class Report:
    """The outcome of one suite run against one backend, in any family.

    What only one family writes comes as data (the fields from ``family`` on, all defaulted,
    so the default family's reports are built as before): JSON fields of its own
    (``family_data``), its level's stages, what else the verdict is relative to (``judged``),
    advice, and lines of its Markdown header. The family derives them; this class only
    renders them.
    """

    backend: str
    backend_spec: str | None
    device: str
    capabilities: dict[str, Any]
    output_dtype: str | None
    level: str | None
    working_dtype: str | None
    profile: str
    checks: list[CheckResult]
    timestamp: str
    duration_s: float
    libraries: dict[str, str] = field(default_factory=dict)
    diagnosis: dict[str, Any] | None = None
    diagnosis_sentence: str | None = None
    source_file: dict[str, Any] | None = None
    """For ``--from-file``: the file's path (as given), SHA-256, size, the positions its rows
    were checked at (``{"given": "0:128", "count": 128, "first": 0, "last": 127, "min": 0,
    "max": 127}``), ``columns`` (the family's name of a row's width and its count),
    ``coverage`` (the verdict line's "128 positions (0..127), NAME 64") and ``small_sample``
    (its note, or None): :func:`pespec.conformance.filerules.file_record`."""
    backend_calls: dict[str, int] | None = None
    """Calls made to the backend and rows (positions) requested: ``suite`` and ``diagnosis``."""
    not_run: dict[str, str] = field(default_factory=dict)
    """Checks of the suite that were not run, and why: ``{"property:*": "stage not selected
    ", "golden:tiny-d4-L3": "listed in --pe-skip-file F"}``. The verdict is over
    the checks that ran; a partial run says so in its summary and report."""
    family: str = "sinusoidal"
    """The family checked (:mod:`pespec.families`): the JSON report's ``family``."""
    command: str = "pespec check"
    """The command that checks this family (the terminal table's title names it)."""
    family_head: dict[str, Any] = field(default_factory=dict)
    """Top-level JSON fields the family writes right after ``level`` (schema 1.3's key order),
    in order; each also reads as an attribute of the report (``report.NAME``)."""
    family_data: dict[str, Any] = field(default_factory=dict)
    """Top-level JSON fields only this family writes, after the shared ones, in order."""
    level_stages: dict[str, str] | None = None
    """None: the level is ``OUTPUT[@WORKING]`` and its stages follow from its name. A dict (empty
    while the level is unknown): the family's level is one dtype per stage, in the order
    computed, judged on the output dtype the backend returned."""
    judged: str | None = None
    """What, besides the level, the verdict is relative to (None: the level alone)."""
    judged_markdown: str | None = None
    """The same in the Markdown report's verdict line (None: the level alone)."""
    advice: str | None = None
    """What to declare instead, told in the summary of a non-conformant report."""
    markdown_extra: list[str] = field(default_factory=list)
    """Lines of the Markdown report's header, before the versions line."""
    diagnosis_in_summary: bool = False
    """Whether the summary of a non-conformant report ends with the diagnosis sentence."""
    execution: dict[str, Any] | None = None
    """The JSON ``execution`` block of a report rebuilt from another process's JSON (the
    libraries the backend imported live there); None: this process's environment."""

    if not TYPE_CHECKING:  # at run time only: type checkers keep every attribute checked

        def __getattr__(self, name: str) -> Any:
            """A field of :attr:`family_head` by its name (for code written when the report
            had it as its own attribute; deprecated, removed in the next release)."""
            head = self.__dict__.get("family_head") or {}
            if name.startswith("__") or name not in head:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            return head[name]

    @property
    def judged_against(self) -> str:
        """``level float32, WHAT``: what the verdict is relative to (the level, then
        :attr:`judged` when the family gives it)."""
        against = "" if self.judged is None else f", {self.judged}"
        return f"level {self.level or 'unknown'}{against}"

    @property
    def level_output_dtype(self) -> str | None:
        """The output dtype of the level tested (``float16`` for ``float16@float64``), which a
        misbehaving backend's own output dtype need not equal; a level of stages
        (:attr:`level_stages`) is judged on the backend's."""
        if self.level is None or self.level_stages is not None:
            return self.output_dtype
        return self.level.partition("@")[0]

    @property
    def complete(self) -> bool:
        """True when every check of the suite ran (no stage left out, nothing skipped by hand)."""
        return not self.not_run

    @property
    def failed(self) -> list[CheckResult]:
        """The failed checks, in suite order."""
        return [c for c in self.checks if c.status == "failed"]

    @property
    def conformant(self) -> bool:
        """True when no check failed and at least one primary check (golden/reference) passed."""
        primary = [c for c in self.checks if c.stage in ("golden", "reference")]
        return not self.failed and any(c.status == "passed" for c in primary)

    @property
    def is_judged(self) -> bool:
        """False for a partial run that cannot be judged: checks were left out (``not_run``),
        none failed, and no golden or reference check passed (``--stages contract``)."""
        return self.conformant or bool(self.failed) or not self.not_run

    @property
    def verdict(self) -> str:
        """``"conformant"``, ``"non-conformant"``, or ``"not judged"`` (see :attr:`is_judged`)."""
        if not self.is_judged:
            return "not judged"
        return "conformant" if self.conformant else "non-conformant"

    def headline(self) -> str:
        """Verdict, level and counts (and a partial run's missing checks), without the first
        failure: the first line a failing run prints on the terminal."""
        counts = {s: sum(c.status == s for c in self.checks) for s in STATUSES}
        source = self.source_file or {}
        covered = f", for {source['coverage']}" if source.get("coverage") else ""
        text = (
            f"{self.backend}: {self.verdict.upper()} at {self.judged_against}{covered} "
            f"({counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped)"
        )
        if source.get("small_sample"):  # a file: what it covered is part of the verdict
            text += f"; {source['small_sample']}"
        if self.not_run:
            names = list(self.not_run)
            shown = (
                ", ".join(names)
                if len(names) <= 6
                else (
                    f"{', '.join(names[:3])} and {len(names) - 3} more (every one is in the JSON "
                    "and Markdown reports, with why)"
                )
            )
            text += f"; PARTIAL RUN, not run: {shown}"
        return text

    def summary(self) -> str:
        """One line: verdict, level, counts, and the first failure."""
        text = self.headline()
        if self.failed:
            first = self.failed[0]
            text += f"; first failure {first.id}: {first.message}"
        elif not self.is_judged:
            text += "; no golden or reference check ran: nothing judged the values"
        elif not self.conformant:
            text += "; no golden or reference check ran inside the declared capabilities"
        if self.advice and not self.conformant:
            text += f"; {self.advice}"
        if self.diagnosis_in_summary and self.diagnosis_sentence and not self.conformant:
            text += f"; diagnosis: {self.diagnosis_sentence}"
        return text

    def get(self, check_id: str) -> CheckResult:
        """The check with this id; KeyError names the ids that exist."""
        for result in self.checks:
            if result.id == check_id:
                return result
        raise KeyError(f"check_id must be one of {[c.id for c in self.checks]}; got {check_id!r}")

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON document (SPEC §6.4)."""
        return {
            "schema": REPORT_SCHEMA,
            "schema_version": REPORT_SCHEMA_VERSION,
            "spec_version": SPEC_VERSION,
            "suite_version": SUITE_VERSION,
            "pespec_version": __version__,
            "verdict": self.verdict,
            "conformant": self.conformant,
            "family": self.family,
            "backend": {
                "name": self.backend,
                "spec": self.backend_spec,
                "file": jsonable(self.source_file),
                "output_dtype": self.output_dtype,
                "capabilities": jsonable(self.capabilities),
            },
            "level": self.level_fields(),
            **{key: jsonable(value) for key, value in self.family_head.items()},
            "backend_calls": jsonable(self.backend_calls),
            "profile": self.profile,
            "execution": self.execution
            or {
                "device": self.device,
                "libraries": dict(sorted(self.libraries.items())),
                **environment(),
            },
            "timestamp": self.timestamp,
            "duration_s": round(self.duration_s, 3),
            "summary": self.summary(),
            "complete": self.complete,
            "not_run": dict(self.not_run),
            "checks": [c.to_dict() for c in self.checks],
            "diagnosis": jsonable(self.diagnosis),
            "diagnosis_sentence": self.diagnosis_sentence,
            **self.family_data,
        }

    def level_fields(self) -> dict[str, Any]:
        """The JSON ``level``, one shape in every family (schema 1.3): ``name``, ``stages``
        (the dtype of each stage, in the order computed: here ``working`` then ``output``),
        ``output_dtype``, ``working_dtype``; a family's own stages when it gives them."""
        output = self.level_output_dtype
        stages: dict[str, Any] | None
        if self.level_stages is not None:
            stages = dict(self.level_stages) or None
        elif self.level is not None:
            stages = {"working": self.working_dtype, "output": output}
        else:
            stages = None
        return {
            "name": self.level,
            "stages": stages,
            "output_dtype": output,
            "working_dtype": self.working_dtype,
        }

    def to_json(self) -> str:
        """The JSON document as text (sorted by the schema's field order, 2-space indent)."""
        return json.dumps(self.to_dict(), indent=2, allow_nan=False) + "\n"

    def to_markdown(self, error_plot: str | None = None) -> str:
        """The same report for humans (:func:`pespec.conformance.report_text.markdown`);
        ``error_plot``: a PNG (relative path) to embed."""
        from pespec.conformance.report_text import markdown

        return markdown(self, error_plot)

    def write_json(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_json` to ``path`` atomically."""
        write_atomic(Path(path), self.to_json())

    def write_markdown(self, path: str | os.PathLike[str], error_plot: str | None = None) -> None:
        """Write :meth:`to_markdown` to ``path`` atomically; ``error_plot``: a picture (path
        relative to the report) to embed, made by the caller (:func:`pespec.plot.report_error_plot`
        for the command line), since this module sits below the plotting one."""
        write_atomic(Path(path), self.to_markdown(error_plot=error_plot))

    def rich_table(self) -> Any:
        """A ``rich.table.Table`` of the checks (:mod:`pespec.conformance.report_text`)."""
        from pespec.conformance.report_text import rich_table

        return rich_table(self)
