"""The rotary report (SPEC R8.15): the absolute family's report with the rotary configuration,
the level as a stage tuple, the position domain checked and the configuration reader's notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pespec.conformance.report import Report

__all__ = ["RopeReport"]


@dataclass
class RopeReport(Report):
    """A :class:`Report` with the rotary configuration and the level as a stage tuple."""

    command: ClassVar[str] = "pespec rope check"
    family: ClassVar[str] = "rope"
    rope_config: dict[str, Any] | None = None
    rope_level: dict[str, str] | None = None
    domain: dict[str, Any] | None = None
    domain_advice: str | None = None
    config_notes: list[str] | None = None
    """What the configuration reader filled in (``θ defaulted to 10000: no rope_theta in the
    config``): shown with the verdict, JSON ``config_notes`` (schema 1.3)."""

    @property
    def level_output_dtype(self) -> str | None:
        return self.output_dtype

    @property
    def judged_against(self) -> str:
        """``level float32/float32/float32, rope yarn θ = 150000``: a rotary verdict is relative
        to its level and its configuration (the absolute family's conventions do not apply)."""
        config = self.rope_config or {}
        where = f" on {self.domain['description']}" if self.domain else ""
        notes = "".join(f" ({note})" for note in self.config_notes or ())
        return (
            f"level {self.level or 'unknown'}, rope {config.get('rope_type', 'unknown')} "
            f"θ = {config.get('theta', 'unknown')!s}{notes}{where}"
        )

    def summary(self) -> str:
        text = super().summary()
        if self.domain_advice and not self.conformant:
            text += f"; {self.domain_advice}"
        if self.diagnosis_sentence and not self.conformant:
            text += f"; diagnosis: {self.diagnosis_sentence}"
        return text

    def to_markdown(self, error_plot: str | None = None) -> str:
        """§6.4's Markdown report with the rotary configuration and the stage tuple."""
        import json

        lines = super().to_markdown(error_plot).split("\n")
        stages = ", ".join(f"{k} {v}" for k, v in (self.rope_level or {}).items())
        extra = [
            f"- rotary configuration: `{json.dumps(self.rope_config)}`",
            f"- level stages: {stages or 'unknown'}",
            f"- positions checked: {(self.domain or {}).get('description', 'unknown')}",
        ]
        if self.domain_advice:
            extra.append(f"- {self.domain_advice}")
        at = next((i for i, line in enumerate(lines) if line.startswith("- ")), len(lines))
        return "\n".join(lines[:at] + extra + lines[at:])

    def level_fields(self) -> dict[str, Any]:
        """The JSON ``level`` (schema 1.3): the stage tuple (phase, cache, rotation) under
        ``stages``; ``working_dtype`` is the phase's."""
        return {
            "name": self.level,
            "stages": self.rope_level,
            "output_dtype": self.output_dtype,
            "working_dtype": self.working_dtype,
        }

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["config"] = self.rope_config
        data["config_notes"] = list(self.config_notes or ())
        data["domain"] = (
            None if self.domain is None else {**self.domain, "advice": self.domain_advice}
        )
        return data
