"""Facade: the ratio rules and the worst-ratio accumulator live in :mod:`pespec.numerics.ratio`
(issue 25); kept for old imports."""

from __future__ import annotations

from pespec.numerics.ratio import error_ratio, finite_error, reported_ratio, scalar_ratio

__all__ = ["error_ratio", "finite_error", "reported_ratio", "scalar_ratio"]
