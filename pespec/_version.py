"""Version numbers: the package version, the version of the specification it implements and
the version of the conformance suite (its checks and their order)."""

__version__ = "1.0.0.dev0"
SPEC_VERSION = "1.2"
SUITE_VERSION = "1.1"
"""Version of the suite (its checks and their order); bumped when a verdict can change. Here,
below the report and its renderer, so both read it without importing each other."""
