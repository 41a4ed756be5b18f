"""CITATION.cff validates (cffconvert) and agrees with the package metadata; LICENSE is MIT."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT

import pespec


def _cffconvert() -> list[str]:
    found = shutil.which("cffconvert", path=str(Path(sys.executable).parent))
    assert found is not None, "cffconvert is part of the [test] extra; install it"
    return [found]


@pytest.mark.slow
def test_citation_cff_validates() -> None:
    result = subprocess.run(
        [*_cffconvert(), "--validate", "-i", str(ROOT / "CITATION.cff")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "valid" in result.stdout


@pytest.mark.slow
def test_citation_converts_to_bibtex_with_title_and_version() -> None:
    result = subprocess.run(
        [*_cffconvert(), "-f", "bibtex", "-i", str(ROOT / "CITATION.cff")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "pespec" in result.stdout and "The pespec developers" in result.stdout


@pytest.mark.slow
def test_citation_bibtex_has_year_and_version() -> None:
    """Issue #12 item 12: cffconvert's BibTeX takes the year from date-released and has no
    version field, so the title names the version."""
    result = subprocess.run(
        [*_cffconvert(), "-f", "bibtex", "-i", str(ROOT / "CITATION.cff")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert re.search(r"year = \{20\d\d\}", result.stdout), result.stdout
    title = re.search(r"title = \{(.*)\}", result.stdout)
    assert title is not None and f"pespec {pespec.__version__}:" in title.group(1)


def test_citation_metadata_matches_the_package() -> None:
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    version = re.search(r"^version: (\S+)$", text, re.MULTILINE)
    assert version is not None and version.group(1) == pespec.__version__
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'\nversion = "{pespec.__version__}"\n' in pyproject
    assert re.search(r"^license: MIT$", text, re.MULTILINE)
    assert 'license = { text = "MIT" }' in pyproject


def test_license_is_mit_for_the_pespec_developers() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 The pespec developers" in text


def test_changelog_names_the_current_versions() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"package {pespec.__version__}, spec {pespec.SPEC_VERSION}" in text
