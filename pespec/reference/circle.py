"""Facade: the circle table lives in :mod:`pespec.numerics.circle` (issue 25); kept for old
imports."""

from __future__ import annotations

from pespec.numerics.circle import TABLE_SIZE, circle_table, veltkamp_split

__all__ = ["TABLE_SIZE", "circle_table", "veltkamp_split"]
