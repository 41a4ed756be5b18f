"""The spec version the docs name is the one pespec implements (issue 24, item 18).

Before: docs/faq.md defined a conformance claim as "Conformant to pespec SPEC 1.0" while
pespec implemented spec 1.1. Every "SPEC X.Y" in README.md and docs/*.md must be
``pespec.SPEC_VERSION`` (a sentence about history says "version X.Y of the specification").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from paths import ROOT

from pespec import SPEC_VERSION

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("document", DOCUMENTS, ids=[p.name for p in DOCUMENTS])
def test_every_spec_version_named_is_the_implemented_one(document: Path) -> None:
    named = re.findall(r"\bSPEC (\d+\.\d+)\b", document.read_text(encoding="utf-8"))
    wrong = sorted(set(named) - {SPEC_VERSION})
    assert not wrong, f"{document.name} names SPEC {wrong}; pespec implements {SPEC_VERSION}"


def test_the_faq_states_the_claim_with_the_version() -> None:
    faq = (ROOT / "docs" / "faq.md").read_text(encoding="utf-8")
    assert f"*Conformant to pespec SPEC {SPEC_VERSION} at level L*" in faq
