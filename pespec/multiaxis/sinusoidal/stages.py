"""The multi-axis family's checks (SPEC §9.5): each section judged by the 1-D family's
reference, error bound and properties, and separability across axes.

Nothing here has a tolerance of its own: ``sections`` compares a section's columns with the
1-D exact reference within the 1-D comparison bound (:func:`pespec.sinusoidal.compare.
comparison_bound`: SPEC §4 bound + the reference's 2^-52); ``separability`` allows twice the
1-D element bound (both outputs are within it of the same exact value); ``property`` runs
the registered 1-D properties (SPEC §5) on the section seen as a 1-D backend.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import FIXTURE_ERROR, PlannedCheck, Worst, comparison_result
from pespec.conformance.report import CheckResult
from pespec.conformance.stage import contract_plan
from pespec.multiaxis.combinator import separability_result
from pespec.multiaxis.sinusoidal.reference import section_columns, section_positions
from pespec.multiaxis.sinusoidal.view import RunView
from pespec.sinusoidal.compare import (
    EXACT_REFERENCE_LIMIT,
    REFERENCE_ERROR,
    comparison_bound,
)
from pespec.sinusoidal.properties.base import EncodingConfig, PropertyViolation
from pespec.sinusoidal.properties.errormodel import element_bound
from pespec.sinusoidal.reference import oracle
from pespec.sinusoidal.reference.encoding import encode
from pespec.sinusoidal.reference.exact import scaled_reference_error

__all__ = ["PROPERTY_NAMES", "SectionEncoder", "dispatch", "plan"]

PROPERTY_NAMES = ("boundedness", "norm", "dot_products", "uniqueness", "determinism")
"""The 1-D properties run per section: those evaluated at the positions given (the grid's
coordinates). rotation and frequency_structure move positions off the grid, and accuracy is
the ``sections`` stage on every checked row."""
PROPERTY_POSITIONS = 32
"""Coordinates of an axis the properties use at most (evenly spaced over the grid's)."""


def plan(run: RunView) -> list[PlannedCheck]:
    """Every check of the selected stages, with stable ids naming sections and axes."""
    config, planned = run.config, []
    if "contract" in run.stages:
        planned += contract_plan("§9.5", {"shape": "returns an array of shape (n, D)"})
    count = len(config.sections)
    if "golden" in run.stages:
        from pespec.multiaxis.sinusoidal.golden_stage import golden_planned

        planned += golden_planned(run)
    if "reference" in run.stages:
        planned += [
            PlannedCheck(f"reference:section-{i}", "reference", config.describe(i), "§9.4", i)
            for i in range(count)
        ]
    if "separability" in run.stages:
        planned += [
            PlannedCheck(
                f"separability:axis-{a}",
                "separability",
                f"moving axis {a} leaves the other axes' columns",
                "§9.5",
                a,
            )
            for a in range(config.axes)
        ]
    if "property" in run.stages:
        planned += [
            PlannedCheck(
                f"property:{i}:{name}", "property", f"section {i}: {name}", "§9.5", (i, name)
            )
            for i in range(count)
            for name in PROPERTY_NAMES
        ]
    return planned


def dispatch(run: RunView, planned: PlannedCheck) -> CheckResult:
    """Run one planned check (BackendFailure propagates: the engine fails the check)."""
    if planned.stage == "golden":
        from pespec.multiaxis.sinusoidal.golden_stage import golden_check

        result = golden_check(run, planned)
        result.message = coordinate_words(result.message, run.config, None)
        return result
    if planned.stage == "reference":
        result = _section(run, planned, int(planned.payload))
        result.message = coordinate_words(result.message, run.config, int(planned.payload))
        return result
    if planned.stage == "separability":
        compare = partial(_separability, run, planned)
        return separability_result(planned, run.config.sections, run.positions, compare)
    index, name = planned.payload
    return _property(run, planned, int(index), str(name))


_AT = re.compile(r"at position (?P<p>[^,\s]+), column (?P<c>\d+)")


def coordinate_words(message: str, config: Any, section: int | None) -> str:
    """A comparison message's "at position X, column C" told for k axes (issue 41): X is a
    section's coordinate on its axis, C the output column (``section`` given: C is that
    section's own column)."""

    def words(found: re.Match[str]) -> str:
        column = int(found["c"])
        index = section
        if index is None:
            index = next(
                (i for i in range(len(config.sections)) if column in config.columns(i)), None
            )
            if index is None:
                return found.group(0)
        else:
            column = int(config.columns(index)[column])
        axis = config.sections[index].axis
        return f"at axis-{axis} coordinate {found['p']} (section {index}), output column {column}"

    return _AT.sub(words, message)


def _section_block(run: RunView, worst: Worst, block: NDArray[Any], index: int) -> None:
    """Fold one row block of section ``index`` into ``worst``: its columns against the 1-D
    exact reference (the oracle beyond the reference's domain), the 1-D comparison bound."""
    section = run.config.sections[index]
    local = section_columns(run.output(block), run.config, index)
    p = section_positions(block, run.config, index)
    one_d = (section.d_model,)
    if p.size and float(np.max(np.abs(p))) >= EXACT_REFERENCE_LIMIT:
        reference = oracle.encode(p, *one_d, base=section.base, convention=section.convention)
        error = FIXTURE_ERROR
    else:
        reference = encode(p, *one_d, base=section.base, convention=section.convention)
        error = max(REFERENCE_ERROR, scaled_reference_error(section.convention, section.d_model))
    config = EncodingConfig(p, section.d_model, section.base, section.convention)
    bound = comparison_bound(reference, config, run.level_object(), error)
    worst.update(local, reference, bound, p, np.arange(section.d_model, dtype=np.intp))


def _section(run: RunView, planned: PlannedCheck, index: int) -> CheckResult:
    worst = Worst()
    for block in run.blocks(run.positions):
        _section_block(run, worst, block, index)
    result = comparison_result(planned, worst, run.level_object())
    result.details["section"] = index
    result.details["rows"] = int(run.positions.shape[0])
    result.details["grid_rows"] = run.grid_rows
    if result.worst_column is not None:  # report the output column, not the section's
        result.details["section_column"] = result.worst_column
        result.worst_column = int(run.config.columns(index)[result.worst_column])
    return result


def _separability(
    run: RunView, planned: PlannedCheck, others: list[int], moved: NDArray[Any]
) -> CheckResult:
    """The sections ``others`` (not reading the moved axis) unchanged at ``moved``."""
    config, axis = run.config, int(planned.payload)
    worst_ratio, where = 0.0, None
    for block, block_moved in zip(run.blocks(run.positions), run.blocks(moved), strict=True):
        y, y_moved = run.output(block), run.output(block_moved)
        level = run.level_object()
        for i in others:
            section = config.sections[i]
            one_d = EncodingConfig(
                section_positions(block, config, i),
                section.d_model,
                section.base,
                section.convention,
            )
            tolerance = 2.0 * element_bound(one_d, level)
            change = np.abs(
                section_columns(y_moved, config, i).astype(np.float64)
                - section_columns(y, config, i).astype(np.float64)
            )
            ratio = change / tolerance
            r, j = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
            if ratio[r, j] > worst_ratio or where is None:
                worst_ratio, where = float(ratio[r, j]), (i, block[r].tolist(), int(j))
    assert where is not None
    section_index, position, column = where
    fields: dict[str, Any] = {
        "worst_column": int(config.columns(section_index)[column]),
        "details": {"section": section_index, "position": position, "ratio": worst_ratio},
    }
    if worst_ratio > 1.0:
        message = (
            f"moving axis {axis} changed section {section_index} (axis "
            f"{config.sections[section_index].axis}) by {worst_ratio:.3g}× twice its bound: "
            f"its columns depend on axis {axis}"
        )
        return planned.result("failed", message, **fields)
    return planned.result(
        "passed", f"other sections within 2·b (worst {worst_ratio:.3g})", **fields
    )


class SectionEncoder:
    """Section ``index`` of a multi-axis backend seen as a 1-D backend ``(positions,
    d_model, base)``: the other axes at their first grid coordinate."""

    def __init__(self, run: RunView, index: int) -> None:
        self.run, self.index = run, index
        self.anchor = run.positions[0].copy()

    def __call__(self, positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        p = np.asarray(positions)
        rows = np.repeat(self.anchor[None, :], p.shape[0], axis=0).astype(
            np.result_type(self.anchor.dtype, p.dtype)
        )
        rows[:, self.run.config.sections[self.index].axis] = p
        return section_columns(self.run.output(rows), self.run.config, self.index)


ONE_D = "Reproduce (encoder = the backend under test): "


def _section_words(message: str, encoder: SectionEncoder) -> str:
    """A 1-D property's message told for the multi-axis backend (issue 41): its positions
    are the section's axis coordinate, the other coordinates fixed, and its reproduction's
    ``encoder`` the section's columns of ``backend(positions (n, k), config)``."""
    section = encoder.run.config.sections[encoder.index]
    fixed = tuple(encoder.anchor.tolist())
    start = sum(s.d_model for s in encoder.run.config.sections[: encoder.index])
    columns = (
        f"columns {start}..{start + section.d_model - 1}"
        if encoder.run.config.arrangement == "sectioned"
        else "columns"
    )
    shape = (
        f"(section {encoder.index}: axis {section.axis}'s coordinate as the position, the "
        f"other coordinates as in {fixed}; encoder(p, d, base) = the section's {columns} "
        f"of backend(positions (n, {encoder.run.config.axes}), config))"
    )
    if ONE_D in message:
        return message.replace(ONE_D, f"Reproduce {shape}: ", 1)
    return message


def _property(run: RunView, planned: PlannedCheck, index: int, name: str) -> CheckResult:
    from pespec.sinusoidal.properties.registry import PROPERTIES

    section = run.config.sections[index]
    values = np.unique(section_positions(run.positions, run.config, index))
    pick = np.unique(
        np.linspace(0, values.size - 1, min(values.size, PROPERTY_POSITIONS)).astype(int)
    )
    encoder = SectionEncoder(run, index)
    config = EncodingConfig(values[pick], section.d_model, section.base, section.convention)
    encoder(config.positions[:1], section.d_model, section.base)  # fixes the level first
    try:
        outcome = PROPERTIES[name](encoder, config, run.level_object())
    except PropertyViolation as violation:
        outcome = violation.result
    status = "passed" if outcome.passed else "failed"
    return planned.result(
        status,
        _section_words(outcome.message, encoder),
        max_error=outcome.max_error,
        bound=outcome.bound,
        worst_position=outcome.worst_position,
        details={"section": index, **outcome.details},
    )
