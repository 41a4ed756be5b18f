"""Where the checkout and the tests' own data are, for a test at any depth under tests/.

tests/ is on pytest's ``pythonpath`` (pyproject.toml), so ``from paths import ...`` works in
every test folder, as do the shared helpers beside this file (catalog/, pluginrun.py, ...).
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
"""The tests/ folder (catalog/, data/, snapshots/ and the helper modules)."""

ROOT = TESTS.parent
"""The checkout: README.md, SPEC.md, spec/, docs/, tools/, pyproject.toml."""

CATALOG = TESTS / "catalog"
"""The catalog of backends (buggy, correct, tutorial, misbehaving, ...)."""

HF_CONFIGS = ROOT / "pespec" / "rope" / "published"
"""Copies of the published config.json files behind the rotary presets and clients, shipped
with the package (provenance in PROVENANCE.md)."""
