"""A conformance report for people: the Markdown document and the terminal table (SPEC §6.4).

The Markdown table gives each check's largest absolute error over everything it compared
(``max abs error``), and at its worst element (the largest fraction of its bound) that
element's |error|, bound, ratio, position and column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from pespec._version import SPEC_VERSION, SUITE_VERSION, __version__
from pespec.conformance.measured_table import markdown_lines
from pespec.conformance.report_json import json_number

__all__ = ["CheckView", "ReportView", "markdown", "rich_table"]


class CheckView(Protocol):
    """What the renderer reads of one check (:class:`pespec.conformance.report.CheckResult`
    has it); a protocol, so this module renders a report without importing its module."""

    @property
    def id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def max_error(self) -> float | None: ...
    @property
    def max_abs_error(self) -> float | None: ...
    @property
    def bound(self) -> float | None: ...
    @property
    def ratio(self) -> float | None: ...
    @property
    def worst_position(self) -> int | float | None: ...
    @property
    def worst_column(self) -> int | None: ...
    @property
    def reproduction(self) -> str | None: ...


class ReportView(Protocol):
    """What the renderer reads of a report (:class:`pespec.conformance.report.Report` has it):
    the report imports this module, never the other way."""

    @property
    def command(self) -> str: ...
    @property
    def backend(self) -> str: ...
    @property
    def backend_spec(self) -> str | None: ...
    @property
    def device(self) -> str: ...
    @property
    def capabilities(self) -> dict[str, Any]: ...
    @property
    def output_dtype(self) -> str | None: ...
    @property
    def level(self) -> str | None: ...
    @property
    def working_dtype(self) -> str | None: ...
    @property
    def profile(self) -> str: ...
    @property
    def timestamp(self) -> str: ...
    @property
    def duration_s(self) -> float: ...
    @property
    def diagnosis(self) -> Mapping[str, Any] | None: ...
    @property
    def diagnosis_sentence(self) -> str | None: ...
    @property
    def source_file(self) -> Mapping[str, Any] | None: ...
    @property
    def not_run(self) -> Mapping[str, str]: ...
    @property
    def checks(self) -> Sequence[CheckView]: ...
    @property
    def failed(self) -> Sequence[CheckView]: ...
    @property
    def verdict(self) -> str: ...
    @property
    def judged_markdown(self) -> str | None: ...
    @property
    def judged_against(self) -> str: ...
    @property
    def level_output_dtype(self) -> str | None: ...
    @property
    def markdown_extra(self) -> Sequence[str]: ...


def _working_text(report: ReportView) -> str:
    """The level's working precision, and the diagnosis's estimate when it differs."""
    text = f"the level assumes working precision {report.working_dtype or 'unknown'}"
    found = (report.diagnosis or {}).get("working_precision")
    if isinstance(found, str) and found not in ("unknown", report.working_dtype):
        text += f"; the diagnosis finds the angles computed in {found}"
    return text


def _origin_lines(report: ReportView) -> list[str]:
    """Where the output came from: the backend spec and device, or the checked file."""
    source = report.source_file
    if source is None:
        given = (
            "passed as a Python object (no spec rebuilds it)"
            if report.backend_spec is None
            else f"spec `{report.backend_spec}`"
        )
        return [
            f"- backend {given}, device `{report.device}`",
            f"- capabilities: {_capabilities_text(report.capabilities)}",
        ]
    positions = source.get("positions", {})
    return [
        f"- file `{source.get('path')}`, SHA-256 `{source.get('sha256')}`, "
        f"{source.get('bytes')} bytes",
        f"- positions {positions.get('given')}: {positions.get('count')} rows, "
        f"{positions.get('first')} … {positions.get('last')}",
    ]


def markdown(report: ReportView, error_plot: str | None = None) -> str:
    """The report as Markdown (SPEC §6.4); ``error_plot``: a PNG (relative path) to embed."""
    lines = [
        f"# pespec conformance report: {report.backend}",
        "",
        f"**Verdict: {report.verdict}** at level `{report.level or 'unknown'}` "
        f"(output {report.level_output_dtype or 'unknown'}, {_working_text(report)}"
        + (
            f"; the backend returned {report.output_dtype}"
            if report.output_dtype not in (None, report.level_output_dtype)
            else ""
        )
        + ")"
        + ("" if report.judged_markdown is None else f", {report.judged_markdown}")
        + ".",
        "",
        *report.markdown_extra,
        f"- spec {SPEC_VERSION}, suite {SUITE_VERSION}, pespec {__version__}, "
        f"profile `{report.profile}`",
        *_origin_lines(report),
        f"- {report.timestamp}, {report.duration_s:.1f} s",
    ]
    if report.not_run:
        lines += ["", "**Partial run**: the verdict covers only the checks that ran. Not run:"]
        lines += [f"- `{check}`: {reason}" for check, reason in report.not_run.items()]
    if report.diagnosis_sentence:
        lines += ["", f"**Diagnosis:** {report.diagnosis_sentence}"]
        lines += markdown_lines(report.diagnosis)
    lines += [
        "",
        "| check | status | max abs error | worst: \\|error\\| | bound | ratio | position "
        "| column | note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in report.checks:
        note = c.message.replace("|", "\\|").replace("\n", " ")
        lines.append(
            f"| `{c.id}` | {c.status} | {_fmt(c.max_abs_error)} | {_fmt(c.max_error)} | "
            f"{_fmt(c.bound)} | {_fmt(c.ratio)} | {_fmt_position(c.worst_position)} | "
            f"{'' if c.worst_column is None else c.worst_column} | {note} |"
        )
    if error_plot:
        lines += ["", "## Error against the bound", "",
                  f"![|error| against position, with the bound of level {report.level}]"
                  f"({error_plot})"]  # fmt: skip
    reproductions = [c for c in report.failed if c.reproduction]
    if reproductions:
        lines += ["", "## Reproductions", ""]
        for c in reproductions:
            shell = str(c.reproduction).startswith("python -c ")
            fence = "```bash" if shell else "```python"  # else run where backend is bound
            lines += [f"`{c.id}`:", "", fence, str(c.reproduction), "```", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def rich_table(report: ReportView) -> Any:
    """A ``rich.table.Table`` of the checks (imported lazily: rich is only for terminals).

    The title and the check ids hold what users named (a backend ``pe_x.py:x``): they are
    ``rich.text.Text``, never read as markup or emoji codes, whatever console prints them."""
    from rich.table import Table
    from rich.text import Text

    title = Text(f"{report.command} {report.backend} ({report.judged_against})")
    table = Table(title=title)
    table.add_column("check", no_wrap=True)
    table.add_column("status", no_wrap=True)
    for header in ("|error|", "bound", "ratio", "position", "col"):
        table.add_column(header, justify="right", no_wrap=True)
    styles = {"passed": "green", "failed": "bold red", "skipped": "yellow"}
    for c in report.checks:
        table.add_row(
            Text(c.id),
            Text(c.status, style=styles[c.status]),
            _fmt(c.max_error),
            _fmt(c.bound),
            _fmt(c.ratio),
            _fmt_position(c.worst_position),
            "" if c.worst_column is None else str(c.worst_column),
        )
    return table


def _fmt(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:.3g}"


def _fmt_position(value: int | float | None) -> str:
    if value is None:
        return ""
    number = json_number(value)
    if isinstance(number, int) and abs(number) < 10**7:
        return str(number)
    return f"{value:.7g}"


def _capabilities_text(capabilities: Mapping[str, Any]) -> str:
    declared = {k: v for k, v in capabilities.items() if v not in (None, False)}
    if not declared:
        return "none declared"
    return ", ".join(f"{k}={v}" for k, v in declared.items())
