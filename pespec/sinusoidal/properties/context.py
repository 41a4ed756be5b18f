"""What every property's message and result need: :class:`Context` (the property, the
backend under test, its configuration and level) and the wording of a violation.

A violation says what was expected, what was found, by how much, where (position and
column, with the column's role), and how to reproduce it with the backend and the oracle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from numpy.typing import NDArray

from pespec.sinusoidal.properties.base import (
    Encoder,
    EncodingConfig,
    Level,
    PropertyResult,
    PropertyViolation,
)

__all__ = ["Context", "describe_excess", "position_value"]


@dataclass(frozen=True)
class Context:
    """What every message needs: the property, the backend and its configuration."""

    name: str
    section: str
    encoder: Encoder
    config: EncodingConfig
    level: Level

    def header(self) -> str:
        c = self.config
        return (
            f"{self.name} (SPEC §{self.section}) violated at level {self.level.name} "
            f"(d_model={c.d_model}, base={c.base!r}, convention={c.convention.name})"
        )

    def column_role(self, column: int) -> str:
        pair, is_sin = self.config.convention.column_roles(self.config.d_model)
        return f"pair {int(pair[column])}, {'sin' if is_sin[column] else 'cos'}"

    def convention_argument(self) -> str:
        """``, convention=...`` for oracle.encode, empty for the canonical convention."""
        c = self.config
        if c.convention.is_canonical:
            return ""
        return f", convention=pespec.Convention.from_dict({c.convention.to_dict()!r})"

    def pair_snippet(self, positions: str, columns: list[int], relation: str) -> str:
        """Reproduction of a relation between two positions: the backend's and the exact
        rows at ``positions`` (text of a list), ``columns``, and what must hold."""
        c = self.config
        return (
            f"y = encoder(np.array({positions}), {c.d_model}, {c.base!r})[:, {columns}]; "
            f"x = pespec.sinusoidal.reference.oracle.encode({positions}, {c.d_model}, "
            f"base={c.base!r}"
            f"{self.convention_argument()})[:, {columns}]; {relation}"
        )

    def reproduction(self, position: Any, column: int | None) -> str:
        c = self.config
        index = f"[0, {column}]" if column is not None else "[0]"
        convention = self.convention_argument()
        exact = (
            f"; x = pespec.sinusoidal.reference.oracle.encode([{position!r}], {c.d_model}, "
            f"base={c.base!r}{convention}){index}"
        )
        return f"y = encoder(np.array([{position!r}]), {c.d_model}, {c.base!r}){index}" + (
            exact if column is not None else ""
        )

    def violation(
        self,
        *,
        expected: str,
        found: str,
        excess: str,
        position: Any = None,
        column: int | None = None,
        max_error: float | None = None,
        bound: float | None = None,
        details: dict[str, Any] | None = None,
        snippet: str | None = None,
    ) -> PropertyViolation:
        """The violation; ``snippet`` replaces the one-element reproduction for a property
        that relates two positions (rotation, frequency structure)."""
        where = ""
        if position is not None:
            where = f" at position {position!r}"
            if column is not None:
                where += f", column {column} ({self.column_role(column)})"
        message = f"{self.header()}: expected {expected}; found {found} ({excess}){where}."
        if position is not None:
            message += " Reproduce (encoder = the backend under test): " + (
                snippet or self.reproduction(position, column)
            )
        return PropertyViolation(
            self.result(False, message, max_error, bound, position, column, details)
        )

    def result(
        self,
        passed: bool,
        message: str,
        max_error: float | None,
        bound: float | None,
        position: Any = None,
        column: int | None = None,
        details: dict[str, Any] | None = None,
    ) -> PropertyResult:
        """The result; max_error and bound None when there are no numbers (no output)."""
        return PropertyResult(
            property=self.name,
            section=self.section,
            passed=passed,
            max_error=None if max_error is None else float(max_error),
            bound=None if bound is None else float(bound),
            worst_position=position,
            worst_column=column,
            message=message,
            details=details or {},
        )

    def passed(
        self,
        max_error: float,
        bound: float,
        position: Any = None,
        column: int | None = None,
        details: dict[str, Any] | None = None,
    ) -> PropertyResult:
        message = f"{self.name} (SPEC §{self.section}) holds at level {self.level.name}"
        return self.result(True, message, max_error, bound, position, column, details)


def position_value(positions: NDArray[Any], row: int) -> int | float:
    """The position of ``row`` as a Python int or float (for messages and results)."""
    value = positions[row].item()
    return int(value) if isinstance(value, int) else float(value)


def describe_excess(error: float, bound: float) -> str:
    """How far ``error`` exceeds ``bound``, for a violation's message."""
    if not math.isfinite(error):
        return "not finite"
    if bound > 0:
        return f"{error:.3e} = {error / bound:.3g}× the tolerance {bound:.3e}"
    return f"{error:.3e} above the tolerance 0"
