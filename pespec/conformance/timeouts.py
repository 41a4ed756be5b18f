"""The engine's default timeout, in a module that imports nothing (SPEC §6.6).

Why: a supervising ``pespec check`` process needs this one number before it starts the child
that runs the suite; importing the engine for it cost that process 0.25 s of imports
(NumPy, the comparison engine, the references) it never used (issue 37).
"""

from __future__ import annotations

__all__ = ["DEFAULT_TIMEOUT"]

DEFAULT_TIMEOUT = 120.0
"""Seconds one backend call may take before it counts as hung."""
