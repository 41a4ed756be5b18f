"""Generated blocks of SPEC Annex D and the guide: what the diagnosis probes and concludes."""

from __future__ import annotations

from typing import Any

from numpy.typing import NDArray

from pespec._markdown import cell
from pespec.numerics.formats import SIGNIFICAND_BITS
from pespec.rope.diagnosis.diagnose import diagnose as diagnose_rope
from pespec.rope.diagnosis.examples import bugs
from pespec.sinusoidal.diagnosis.precision import (
    FORMATS_COARSE_TO_FINE,
    REPRESENTABILITY_FORMATS,
    SPREAD_BITS,
)
from pespec.sinusoidal.diagnosis.probes import (
    FIT_DIMS,
    PRIMARY_BASE,
    SECONDARY_BASE,
    fit_positions,
    large_positions,
)
from pespec.sinusoidal.diagnosis.slips import SLIPS

__all__ = [
    "diagnosis_probes_table",
    "named_mistakes_text",
    "precision_classes_table",
    "rope_bugs_table",
]


def _describe_positions(positions: NDArray[Any]) -> str:
    first, last = (f"{int(v)}" if float(v).is_integer() else f"{v:g}" for v in positions[[0, -1]])
    return f"{len(positions)} positions {first} … {last}"


def diagnosis_probes_table() -> str:
    """The probes :func:`~pespec.sinusoidal.diagnosis.diagnose` makes (SPEC Annex D.1)."""
    fractional = _describe_positions(fit_positions(False))
    integer = _describe_positions(fit_positions(True))
    rows = [
        ("fit", FIT_DIMS[0], PRIMARY_BASE, fractional, integer),
        ("fit", FIT_DIMS[1], PRIMARY_BASE, fractional, integer),
        ("fit", FIT_DIMS[0], SECONDARY_BASE, fractional, integer),
        (
            "precision and limit",
            FIT_DIMS[0],
            PRIMARY_BASE,
            _describe_positions(large_positions()),
            "same",
        ),
    ]
    lines = [
        "| probe | d_model | base | positions | with integer positions only |",
        "|---|---|---|---|---|",
    ]
    for role, d, base, positions, integer_only in rows:
        lines.append(f"| {role} | {d} | {base:g} | {positions} | {integer_only} |")
    return "\n".join(lines)


def precision_classes_table() -> str:
    """The precision classes of SPEC Annex D.2."""
    lines = [
        "| format | p | u = 2^−p | integers exact up to | merged probe rows "
        "| error bits classified as |",
        "|---|---|---|---|---|---|",
    ]
    low = SIGNIFICAND_BITS["bfloat16"] - 1.5
    for coarse_index, name in enumerate(FORMATS_COARSE_TO_FINE):
        p = SIGNIFICAND_BITS[name]
        if coarse_index + 1 < len(FORMATS_COARSE_TO_FINE):
            fine = FORMATS_COARSE_TO_FINE[coarse_index + 1]
            high = (p + SPREAD_BITS + SIGNIFICAND_BITS[fine]) / 2.0
            interval = f"[{low:g}, {high:g})"
            low = high
        else:
            interval = f"≥ {low:g} (or none seen where float32 would show)"
        merged = f"{2**p} and {2**p + 1}" if name in REPRESENTABILITY_FORMATS else "—"
        lines.append(f"| {name} | {p} | {2.0**-p:.3g} | {2**p} | {merged} | {interval} |")
    return "\n".join(lines)


def named_mistakes_text() -> str:
    """The named mistakes outside the convention family, as a list (SPEC Annex D.4)."""
    return "\n".join(f"* `{slip.name}`: {slip.description}" for slip in SLIPS) + "\n"


def rope_bugs_table() -> str:
    """Each rotary bug of :func:`~pespec.rope.diagnosis.examples.bugs`, what the diagnosis
    says and its backend calls (the guide)."""
    lines = [
        "| bug (NumPy reproduction) | configuration | explained | calls | diagnosis sentence |",
        "|---|---|---|---|---|",
    ]
    for bug, where, config, backend in bugs():
        # the bfloat16 stacks stand for torch modules returning bfloat16 tensors
        model = "bfloat16" if "bfloat16" in bug else None
        result = diagnose_rope(backend, config, output_dtype=model)
        lines.append(
            f"| {bug} | {where} | {str(result.explained).lower()} | "
            f"{result.backend_calls} | {cell(result.sentence)} |"
        )
    return "\n".join(lines) + "\n"
