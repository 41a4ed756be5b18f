"""The diagnosis value and its sentence (SPEC Annex D.8)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pespec.rope.diagnosis.formats import FORMATS, precision_rank

__all__ = ["STAGES", "RopeDiagnosis", "low_stages", "sentence"]

STAGES = ("inv_freq", "positions", "phase", "cache", "rotation")


@dataclass(frozen=True)
class RopeDiagnosis:
    """What a rotary backend computes instead of the configured rotation.

    ``pairing`` and ``rope_type`` are what the probes show; ``parameters`` the schedule
    parameters and attention factor found; ``stage_precision`` a format name or
    'undetermined' per stage; ``causes`` one phrase per bug found (empty: none);
    ``explained`` whether the model found reproduces the probes.
    """

    pairing: str
    rope_type: str
    parameters: dict[str, Any]
    stage_precision: dict[str, str]
    max_position_within_1e_2: int | None
    sentence: str
    explained: bool
    backend_calls: int
    causes: tuple[str, ...] = ()
    output_dtype: str = ""
    match_fraction: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the key ``max_position_within_1e-2`` spelled as in SPEC)."""
        return {
            "pairing": self.pairing,
            "rope_type": self.rope_type,
            "parameters": dict(self.parameters),
            "stage_precision": dict(self.stage_precision),
            "max_position_within_1e-2": self.max_position_within_1e_2,
            "sentence": self.sentence,
            "explained": self.explained,
            "backend_calls": self.backend_calls,
            "causes": list(self.causes),
            "output_dtype": self.output_dtype,
            "match_fraction": self.match_fraction,
            **({"measured_vs_declared": self.details["pairs"]} if "pairs" in self.details else {}),
        }


def _required(stage: str, output: str) -> str:
    """The default level's format for ``stage`` given the output dtype (SPEC §8, issue 19):
    float64 and float32 outputs everything in their format; 16-bit outputs float32 up to
    the phase, the output format for the cache and the rotation."""
    if output not in FORMATS:
        return "float32"
    if precision_rank(output) >= 2:
        return output
    return "float32" if stage in ("inv_freq", "positions", "phase") else output


def low_stages(stages: dict[str, str], output: str) -> list[str]:
    """Phrases for the stages shown in a coarser format than the default level allows."""
    out = []
    for stage in STAGES:
        found = stages[stage]
        if found not in FORMATS:
            continue
        need = _required(stage, output)
        if precision_rank(found) < precision_rank(need):
            what = {
                "inv_freq": "inverse frequencies",
                "positions": "positions",
                "phase": "phase p·ω",
                "cache": "cos/sin cache",
                "rotation": "rotation",
            }[stage]
            out.append(f"{what} in {found} (the {output} output's level needs {need})")
    return out


def sentence(
    pairing: str,
    rope_type: str,
    stages: dict[str, str],
    causes: list[str],
    explained: bool,
    reach: int | None,
) -> str:
    """One sentence: what the backend computes and, if any, the causes found."""
    shown = ", ".join(f"{k} {v}" for k, v in stages.items())
    where = (
        "; not within 1e-2 of exact even at position 0"
        if reach is None
        else f"; within 1e-2 of exact up to position {reach} of the probes"
    )
    if not explained:
        lead = (
            "The probes are not explained by any model tried "
            f"(pairing {pairing}, closest schedule {rope_type}; {shown})"
        )
        return lead + (": " + "; ".join(causes) if causes else "") + where + "."
    if not causes:
        return (
            f"The backend computes the configured rotation ({pairing} pairs, "
            f"{rope_type} schedule; {shown}): no bug found{where}."
        )
    return (
        f"The backend computes {pairing} pairs with the {rope_type} schedule "
        f"({shown}) and the cause is: " + "; ".join(causes) + where + "."
    )
