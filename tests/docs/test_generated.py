"""Every generated block in SPEC.md, README.md and docs/*.md is up to date (CONTRIBUTING)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from paths import ROOT


@pytest.mark.slow
def test_generated_docs_are_up_to_date() -> None:
    # The same command CI documents; exit 1 names the stale files.
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "generate_docs.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_spec_has_every_part_in_order() -> None:
    # One "## " heading per part: the numbered normative sections, then the lettered annexes.
    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    headings = [line for line in spec.splitlines() if line.startswith("## ")]
    sections = [line for line in headings if line.split()[1][0].isdigit()]
    annexes = [line.split()[2] for line in headings if line.split()[1] == "Annex"]
    numbers = [int(line.split()[1].rstrip(".")) for line in sections]
    parts = sorted((ROOT / "spec").glob("[0-9][0-9]-*.md"))[1:]  # 00 is the front matter
    assert len(sections) + len(annexes) == len(headings) == len(parts), headings
    assert numbers == list(range(1, len(numbers) + 1)), headings
    assert annexes == [chr(ord("A") + k) for k in range(len(annexes))], headings
    assert len(numbers) >= 8, numbers  # 1-7 the sinusoidal encoding, 8 rotary (SPEC 1.1)
    assert "<!-- GENERATED: pespec.tables:quoted_table -->" in spec
