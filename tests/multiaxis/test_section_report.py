"""A multi-axis report's text, one for both section kinds (pespec/multiaxis/section_report.py):
the judged line, the Markdown lines and the report keywords, written by hand here for a toy
kind, and refreshed from the data."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pespec.conformance.report import Report
from pespec.multiaxis.section_report import SectionText

TOY = SectionText(
    "toy-kind",
    head=lambda config: f"W {config.get('width')}",
    part=lambda s: f"axis {s.get('axis')} w{s.get('w')}",
    rows=lambda data: f"{data.get('rows')} rows",
    section=lambda s: f"w = {s.get('w')}",
    data=lambda run: {"rows": run.rows},
    working=lambda level: level.working,
)


class Config:
    def to_dict(self) -> dict[str, Any]:
        sections = [{"axis": 0, "w": 2}, {"axis": 1, "w": 4}]
        return {"name": "tiny", "width": 6, "sections": sections}


def _run(level: Any) -> Any:
    name = None if level is None else "float32"
    return SimpleNamespace(
        config=Config(), rows=7, level=name, output_dtype=name, level_object=lambda: level
    )


def test_the_judged_line_and_the_markdown_lines() -> None:
    fields = TOY.fields(_run(SimpleNamespace(working="float64")))
    assert fields["judged"] == "toy-kind tiny (W 6: axis 0 w2, axis 1 w4)"
    assert fields["markdown_extra"] == [
        "- toy-kind tiny (W 6: axis 0 w2, axis 1 w4)",
        "- 7 rows",
        "- section 0: axis 0, w = 2",
        "- section 1: axis 1, w = 4",
    ]
    assert fields["command"] == TOY.command == "pespec check --family toy-kind"
    assert list(fields["family_data"]) == ["config", "rows"]  # the configuration first
    assert (fields["level"], fields["working_dtype"]) == ("float32", "float64")
    assert fields["diagnosis_in_summary"] is True


def test_no_working_dtype_before_the_level_is_known() -> None:
    fields = TOY.fields(_run(None))
    assert fields["level"] is None and fields["working_dtype"] is None


def test_the_text_is_derived_again_from_changed_data() -> None:
    fields = TOY.fields(_run(None))
    report = Report(
        backend="b", backend_spec=None, device="cpu", capabilities={}, profile="ci", checks=[],
        timestamp="t", duration_s=0.0, **fields,
    )  # fmt: skip
    report.family_data["config"]["name"] = "renamed"
    report.family_data["rows"] = 3
    TOY.refresh(report)
    assert report.judged == "toy-kind renamed (W 6: axis 0 w2, axis 1 w4)"
    assert report.markdown_extra[1] == "- 3 rows"
    report.command = "other"
    TOY.rebuilt(report, report.family_data)
    assert report.command == "pespec check --family toy-kind"
