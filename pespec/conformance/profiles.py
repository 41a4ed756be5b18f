"""Hypothesis settings profiles shared by pespec's tests and the conformance suite.

* ``ci``: derandomized (same examples every run, bit-identical verdicts), small, no database.
* ``dev``: random, moderate, for local work.
* ``thorough``: random, many examples, for exploration and release checks.

Select with the environment variable ``PESPEC_PROFILE`` (default ``ci``) or
:func:`load_profile`.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILES: dict[str, dict[str, object]] = {
    "ci": {"max_examples": 20, "derandomize": True, "database": None},
    "dev": {"max_examples": 60, "derandomize": False},
    "thorough": {"max_examples": 400, "derandomize": False, "database": None},
}

_COMMON = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
    "print_blob": True,
}

for _name, _options in PROFILES.items():
    settings.register_profile(f"pespec-{_name}", **{**_COMMON, **_options})  # type: ignore[arg-type]


def resolve_profile(name: str | None = None) -> str:
    """``name``, or ``$PESPEC_PROFILE``, or ``ci``: validated against :data:`PROFILES`."""
    chosen = name or os.environ.get("PESPEC_PROFILE", "ci")
    if chosen not in PROFILES:
        raise ValueError(f"profile must be one of {sorted(PROFILES)}; got {chosen!r}")
    return chosen


def profile_name(name: str | None = None) -> str:
    """The registered Hypothesis profile name for ``name`` (see :func:`resolve_profile`)."""
    return f"pespec-{resolve_profile(name)}"


def load_profile(name: str | None = None) -> str:
    """Activate a pespec Hypothesis profile; returns the registered profile name."""
    registered = profile_name(name)
    settings.load_profile(registered)
    return registered
