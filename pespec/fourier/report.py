"""The Fourier family's report fields and report hooks (:mod:`pespec.families`).

The report's text (the judged line, its one Markdown line) is derived from the family data
``{"config": FourierConvention.to_dict()}`` alone, by the engine's
:class:`~pespec.conformance.derived_text.DerivedText`.
"""

from __future__ import annotations

from typing import Any

from pespec.conformance.derived_text import DerivedText
from pespec.fourier.convention import FourierConvention

__all__ = ["judged", "rebuilt", "refresh", "report_fields"]

COMMAND = "pespec check --family fourier"


def judged(config: dict[str, Any]) -> str:
    """What the verdict is relative to, in words."""
    return (
        f"convention {config.get('name')} (π factor {config.get('pi')}, law {config.get('law')}, "
        f"blocks {config.get('blocks')}, raw input {config.get('raw')}, domain "
        f"{config.get('domain')})"
    )


def _judged(data: dict[str, Any]) -> str:
    return judged(dict(data.get("config", {})))


_TEXT = DerivedText(COMMAND, _judged, lambda data: [f"- {_judged(data)}"])
rebuilt, refresh = _TEXT.rebuilt, _TEXT.refresh
"""A Fourier report read back from its JSON (the supervised run's parent); its text derived
again after its data changed."""


def report_fields(
    conv: FourierConvention, output_dtype: str | None, level: str | None
) -> dict[str, Any]:
    """The :class:`~pespec.conformance.report.Report` keywords of a Fourier report: the JSON
    field ``config``, what the verdict is relative to, the command."""
    return _TEXT.fields({"config": conv.to_dict()}, output_dtype, level, None)
